"""Experiment configurations: frozen, validated models of the YAML files in ``configs/``.

A configuration names an experiment and its design: the problems (``grid.problem``), the
penalty weights (``grid.lambda``), the methods (``grid.method``), the replications, the oracle
budget and the final evaluation (paper Section 4.2, DESIGN.md section 5). ``methods`` overrides a
method's parameters (validated against the method's own settings model); a ``sensitivity``
block describes a one-at-a-time study (paper Section 5.5).

:func:`parse` validates a mapping against the models; every mistake is one
:class:`ConfigError` line (where, then what), with at most a short excerpt of a value.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import reprlib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    Strict,
    ValidationError,
    field_validator,
    model_validator,
)

from acfs_cli.common.naming import did_you_mean, problem_label
from acfs_cli.core.risk import MIN_TAIL_DRAWS, min_tail_draws

#: Paper Section 4.3: the common cap on counted oracle draws per replication.
DEFAULT_BUDGET = 260_000
#: The largest budget (acfs_cli.core.oracle.MAX_BUDGET, repeated here so that reading a
#: configuration imports no numerical code).
MAX_BUDGET = 10**9
#: Paper Section 4.2: the CVaR level of every setting.
DEFAULT_ALPHA = 0.95
#: Paper Section 4.2: replications per setting.
DEFAULT_REPLICATIONS = 100
DEFAULT_SEED = 20240607

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

#: What a parquet int64 column can hold: every integer of a configuration ends up in one.
INT64_MAX = 2**63 - 1
#: Cells one run may define (about 50 times the main study): a larger grid is a typo, and
#: building it would exhaust memory before the first cell ran.
MAX_CELLS = 200_000
#: Characters of a user's value quoted in an error message, and of a whole message.
EXCERPT = 80
MAX_MESSAGE = 400

#: Integers, floats and booleans exactly as written: ``true`` is not 1, ``"5"`` is not 5.
StrictInt = Annotated[int, Strict()]
StrictFloat = Annotated[float, Strict()]
StrictBool = Annotated[bool, Strict()]

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = EXCERPT
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6
_REPR.maxlevel = 3


def excerpt(value: Any) -> str:
    """``repr(value)`` cut to about :data:`EXCERPT` characters, whatever its size."""
    if isinstance(value, str) and len(value) > EXCERPT:
        return f"{value[:EXCERPT]!r}... ({len(value):,} characters)"
    return _REPR.repr(value)


def bounded(message: str, limit: int = MAX_MESSAGE) -> str:
    """One line of at most ``limit`` characters, whitespace collapsed."""
    text = " ".join(str(message)[: 4 * limit].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ConfigError(ValueError):
    """A configuration that cannot be run; the message is one line meant for the user, with
    at most a short excerpt of any value it quotes. ``key`` is the top-level key at fault
    when one is ("" otherwise), ``detail`` the message without the source."""

    def __init__(self, message: str, key: str = "", detail: str = ""):
        super().__init__(bounded(message))
        self.key, self.detail = key, detail or message


class ConfigErrors(ConfigError):
    """Several mistakes of one configuration, found in one reading: ``lines`` holds one
    ``file:LINE: message`` per mistake, so that all are fixed before the next run."""

    def __init__(self, lines: list[str]):
        super().__init__(f"{len(lines)} mistakes: " + "; ".join(lines))
        self.lines = lines


def _as_list(value: Any) -> Any:
    """A scalar where a list is expected means a one-element list (``lambda: 0.7``)."""
    if value is None or isinstance(value, list | tuple):
        return value
    return [value]


def _no_duplicates(values: list, what: str = "") -> list:
    seen = set()
    for v in values:
        key = json.dumps(v, sort_keys=True, default=str)
        if key in seen:
            raise ValueError(f"{what}{excerpt(v)} appears twice")
        seen.add(key)
    return values


def _budgets_valid(v: list[int] | None) -> list[int] | None:
    if v is not None:
        if not v:
            raise ValueError("must not be empty")
        for b in v:
            if not 0 < b <= MAX_BUDGET:
                raise ValueError(f"a budget must be a positive count of at most "
                                 f"{MAX_BUDGET:,} draws, got {b:,}")
        _no_duplicates(v)
    return v


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FinalEval(_Frozen):
    """The final evaluation of each x*, outside the budget (paper Section 4.2)."""

    #: Rows of the common pool per (problem, rep) drawn at every x*.
    draws: StrictInt = Field(2000, gt=0, le=INT64_MAX)
    #: Bootstrap resamples for the 95 % percentile interval of J (0 disables the interval).
    bootstrap: StrictInt = Field(400, ge=0, le=INT64_MAX)
    #: Draws of the optional large-sample estimate of the true J(x*) (None: not computed).
    precise_draws: StrictInt | None = Field(None, gt=0, le=INT64_MAX)


class ProblemSpec(_Frozen):
    """A problem with constructor parameters or options, as an entry of ``grid.problem``::

        - problem: performative-pricing     # a registered name or package.module:Class
          params: {dim: 50}                 # passed to the constructor
          x0: [1.5, 1.5, ...]               # where searches start (unbounded X needs one)
          sample_only: true                 # offer a transform problem as a black box
          rows_per_stream: 16               # rows a sample-only simulator draws per seed
          label: pricing-50                 # the name in results (default: name(params))
    """

    problem: str = Field(min_length=1, max_length=200)
    params: dict[str, Any] = Field(default_factory=dict)
    #: Where searches start (in place of the problem's own x0; needed where X is unbounded).
    x0: list[StrictFloat | StrictInt] | None = Field(None, min_length=1, max_length=10_000)
    #: This problem's budgets, in place of the grid's (problems of a testbed come with budgets
    #: of their own: SimOpt's default and a tenth of it, say).
    budget: Annotated[list[StrictInt] | None, BeforeValidator(_as_list)] = None
    sample_only: StrictBool = False
    rows_per_stream: StrictInt | None = Field(None, gt=0, le=INT64_MAX)
    label: str | None = Field(None, min_length=1, max_length=200)

    def options(self) -> dict[str, Any]:
        """Everything :func:`acfs_cli.problems.get_problem` takes besides the name."""
        out = dict(self.params)
        if self.x0 is not None:
            out["x0"] = [float(v) for v in self.x0]
        if self.sample_only:
            out["sample_only"] = True
        if self.rows_per_stream is not None:
            out["rows_per_stream"] = self.rows_per_stream
        return out

    @field_validator("budget")
    @classmethod
    def _budget_valid(cls, v: list[int] | None) -> list[int] | None:
        return _budgets_valid(v)

    @property
    def name(self) -> str:
        """The problem's name in cells, results and streams."""

        return self.label or problem_label(self.problem, self.options())


def _problem_name(entry: str | ProblemSpec) -> str:
    return entry if isinstance(entry, str) else entry.name


class Grid(_Frozen):
    """The crossed design: every problem x lambda x method (x budget) is one configuration."""

    #: Problems by registered name (``dgp1``, a library problem), import path
    #: ``pkg.mod:Class``, or a mapping with parameters (:class:`ProblemSpec`).
    problem: Annotated[list[str | ProblemSpec], BeforeValidator(_as_list)] = Field(
        min_length=1, validation_alias=AliasChoices("problem", "dgp"))
    #: Budgets, for a fixed-budget comparison in which each method plans for its budget
    #: (default: the top-level ``budget`` alone).
    budget: Annotated[list[StrictInt] | None, BeforeValidator(_as_list)] = None
    #: Penalty weights lam >= 0 on the CVaR term.
    lam: Annotated[list[StrictFloat], BeforeValidator(_as_list)] = Field(alias="lambda",
                                                                          min_length=1)
    #: Registered method names; optional for a sensitivity study (its method is implied).
    method: Annotated[list[str] | None, BeforeValidator(_as_list)] = None

    @model_validator(mode="before")
    @classmethod
    def _one_problem_key(cls, data: Any) -> Any:
        # "dgp" is the key of the first configurations (the paper's two benchmarks)
        if isinstance(data, dict) and "problem" in data and "dgp" in data:
            raise ValueError("give the problems once, under problem (dgp is its old name)")
        return data

    @field_validator("problem")
    @classmethod
    def _problems_unique(cls, v: list) -> list:
        for entry in v:
            name = _problem_name(entry)
            if len(name) > 200:
                raise ValueError(f"a problem name of {len(name):,} characters: {excerpt(name)}")
        _no_duplicates([_problem_name(e) for e in v])
        return v

    @field_validator("budget")
    @classmethod
    def _budget_valid(cls, v: list[int] | None) -> list[int] | None:
        return _budgets_valid(v)

    @field_validator("lam")
    @classmethod
    def _lam_valid(cls, v: list[float]) -> list[float]:
        for lam in v:
            if not math.isfinite(lam) or lam < 0:
                raise ValueError(f"lambda must be a finite number >= 0, got {lam}")
        return _no_duplicates(v)

    @field_validator("method")
    @classmethod
    def _method_valid(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            if not v:
                raise ValueError("must not be empty")
            _no_duplicates(v)
        return v


class Sensitivity(_Frozen):
    """A one-at-a-time study (paper Section 5.5): each value of each parameter is one grid
    point, with the method's other parameters at their defaults (or at ``methods`` overrides)."""

    method: str = "acfs"
    params: dict[str, Annotated[list[Any], BeforeValidator(_as_list)]] = Field(min_length=1)

    @field_validator("params")
    @classmethod
    def _params_valid(cls, v: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for name, values in v.items():
            if not values:
                raise ValueError(f"parameter {name!r} has no values")
            _no_duplicates(values, f"parameter {name!r}: ")
        return v


class Config(_Frozen):
    """One experiment (see the shipped ``configs/*.yaml`` for commented examples)."""

    #: Experiment name: the folder under ``results/`` and the ``experiment`` column.
    name: str
    #: Results folder; default ``results/<name>`` (relative paths are taken from the CWD).
    output: Path | None = None
    #: Base seed of every random stream (DESIGN.md section 5).
    seed: StrictInt = Field(DEFAULT_SEED, ge=0, le=INT64_MAX)
    alpha: StrictFloat = DEFAULT_ALPHA
    #: Hard cap on counted oracle draws per replication.
    budget: StrictInt = Field(DEFAULT_BUDGET, gt=0, le=MAX_BUDGET)
    #: A count (replications 0..n-1) or an explicit list of replication indices.
    replications: StrictInt | list[StrictInt] = DEFAULT_REPLICATIONS
    final_eval: FinalEval = FinalEval()
    #: Worker processes; -1 uses every core.
    n_jobs: StrictInt = -1
    #: Workers of each cell's draws (its search's requests and its evaluations): local
    #: processes of the cell's own, or the cluster's workers for a cell on a Dask cluster;
    #: -1: every core (every worker of the cluster). Rows do not depend on it.
    draw_jobs: StrictInt = 1
    #: What to do with a cell whose budget is below its method's minimum: refuse the grid
    #: (one line naming it), or leave such cells out (a testbed's small budgets, where some
    #: methods cannot run).
    below_minimum: Literal["refuse", "skip"] = "refuse"
    #: What to do with a cell whose method cannot keep its problem's declarations (integer
    #: coordinates, stochastic constraints): refuse the grid (one line naming them), or leave
    #: such cells out (a testbed where each solver takes what it can).
    refused: Literal["refuse", "skip"] = "refuse"
    #: Seconds one cell may run before it is stopped and recorded as failed (None: no limit).
    #: A cell with a limit runs in a worker process even with n_jobs 1, so it can be stopped.
    timeout: StrictFloat | StrictInt | None = Field(None, gt=0, le=10**9)
    kind: Literal["comparison", "ablation", "sensitivity"] = "comparison"
    grid: Grid
    #: Per-method parameter overrides, ``{method: {parameter: value}}``.
    methods: dict[str, dict[str, Any]] = Field(default_factory=dict)
    sensitivity: Sensitivity | None = None
    #: Fractions of the budget at which each method's incumbent is evaluated like x*
    #: (quality against draws from one run), for example [0.05, 0.1, 0.2, 0.5, 1].
    checkpoints: Annotated[list[StrictFloat] | None, BeforeValidator(_as_list)] = None
    #: The folder of the configuration file (put on the import path for problems and methods
    #: named by import path; not part of what defines a result).
    _source_dir: str | None = PrivateAttr(default=None)

    @field_validator("checkpoints")
    @classmethod
    def _checkpoints_valid(cls, v: list[float] | None) -> list[float] | None:
        if v is None:
            return v
        if not v:
            raise ValueError("must not be empty")
        for f in v:
            if not 0.0 < f <= 1.0:
                raise ValueError(f"a checkpoint is a fraction of the budget in (0, 1], got {f}")
        _no_duplicates(v)
        return sorted(v)

    @field_validator("name")
    @classmethod
    def _name_valid(cls, v: str) -> str:
        if not _NAME.match(v) or len(v) > 200:
            raise ValueError(
                "name must be letters, digits, '.', '_' or '-' (a folder name, at most 200), "
                f"got {excerpt(v)}"
            )
        return v

    @field_validator("output", mode="before")
    @classmethod
    def _output_valid(cls, v: Any) -> Any:
        if isinstance(v, str) and not v.strip():
            raise ValueError("must name a folder (leave it out for results/<name>)")
        return v

    @field_validator("alpha")
    @classmethod
    def _alpha_valid(cls, v: float) -> float:
        if not 0.0 < v < 1.0:
            raise ValueError(f"alpha must lie strictly between 0 and 1, got {v}")
        return v

    @field_validator("replications")
    @classmethod
    def _replications_valid(cls, v: int | list[int]) -> int | list[int]:
        if isinstance(v, int):
            if v <= 0:
                raise ValueError(f"replications must be a positive count, got {v}")
            if v > MAX_CELLS:
                raise ValueError(f"{v:,} replications are more than one run may hold "
                                 f"({MAX_CELLS:,} cells); run them in parts")
            return v
        if not v:
            raise ValueError("must not be empty")
        if any(r < 0 for r in v):
            raise ValueError(f"replication indices must be >= 0, got {min(v)}")
        if max(v) > INT64_MAX:
            raise ValueError(f"replication index {excerpt(max(v))} does not fit in 64 bits")
        if len(v) > MAX_CELLS:
            raise ValueError(f"{len(v):,} replications are more than one run may hold "
                             f"({MAX_CELLS:,} cells); run them in parts")
        return _no_duplicates(v, "replication ")

    @field_validator("n_jobs", "draw_jobs")
    @classmethod
    def _n_jobs_valid(cls, v: int, info) -> int:
        if v == 0 or v < -1:
            raise ValueError(f"{info.field_name} must be a positive count or -1 (every core), "
                             f"got {v}")
        return v

    @model_validator(mode="after")
    def _kind_consistent(self) -> Config:
        if self.kind == "sensitivity":
            if self.sensitivity is None:
                raise ValueError("kind 'sensitivity' needs a 'sensitivity' block")
            given = self.grid.method
            if given is not None and list(given) != [self.sensitivity.method]:
                raise ValueError(
                    f"a sensitivity study varies one method ({self.sensitivity.method!r}); "
                    f"leave grid.method out or set it to [{self.sensitivity.method}]"
                )
        else:
            if self.sensitivity is not None:
                raise ValueError("a 'sensitivity' block needs kind: sensitivity")
            if not self.grid.method:
                raise ValueError("grid.method is missing: name at least one method")
        return self

    @model_validator(mode="after")
    def _tail_covered(self) -> Config:
        need = min_tail_draws(self.alpha)
        final = self.final_eval
        for name, draws in (("draws", final.draws), ("precise_draws", final.precise_draws)):
            if draws is not None and draws < need:
                raise ValueError(
                    f"final_eval.{name}: {draws:,} draws leave fewer than {MIN_TAIL_DRAWS} in "
                    f"the CVaR tail at alpha {self.alpha:g}; at least {need:,} are needed"
                )
        return self

    @model_validator(mode="after")
    def _grid_size(self) -> Config:
        n = self.n_cells()
        if n > MAX_CELLS:
            raise ValueError(
                f"the grid has {n:,} cells, more than the {MAX_CELLS:,} one run may hold; "
                "run it in parts (--replications)"
            )
        return self

    # -- derived ---------------------------------------------------------------------------------
    def n_cells(self) -> int:
        """Cells of the grid, counted without building it."""
        reps = self.replications if isinstance(self.replications, int) else len(
            self.replications)
        if self.kind == "sensitivity":
            params = self.sensitivity.params if self.sensitivity is not None else {}
            configurations = sum(len(v) for v in params.values())
        else:
            configurations = len(self.grid.method or ())
        budgets = sum(len(self.budgets_of(e)) for e in self.grid.problem)
        return reps * len(self.grid.lam) * configurations * budgets

    @property
    def output_dir(self) -> Path:
        return Path(self.output) if self.output is not None else Path("results") / self.name

    @property
    def reps(self) -> list[int]:
        """Replication indices, in order."""
        if isinstance(self.replications, int):
            return list(range(self.replications))
        return list(self.replications)

    @property
    def method_names(self) -> list[str]:
        if self.kind == "sensitivity":
            return [self.sensitivity.method]
        return list(self.grid.method)

    def overrides(self, method: str) -> dict[str, Any]:
        return dict(self.methods.get(method, {}))

    @property
    def budgets(self) -> list[int]:
        """Every budget of the grid: the problems' own and ``grid.budget`` (else the top-level
        ``budget``)."""
        found = {b: None for e in self.grid.problem for b in self.budgets_of(e)}
        return list(found)

    def budgets_of(self, entry: str | ProblemSpec) -> list[int]:
        """The budgets of one problem entry: its own, else the grid's."""
        if isinstance(entry, ProblemSpec) and entry.budget:
            return list(entry.budget)
        return list(self.grid.budget) if self.grid.budget else [self.budget]

    @property
    def problems(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(name in results, registered name or import path, options) of each problem."""
        return [(e, e, {}) if isinstance(e, str) else (e.name, e.problem, e.options())
                for e in self.grid.problem]

    @property
    def problem_budgets(self) -> dict[str, list[int]]:
        """Each problem's budgets, by its name in results."""
        return {(e if isinstance(e, str) else e.name): self.budgets_of(e)
                for e in self.grid.problem}

    @property
    def source_dir(self) -> str | None:
        return self._source_dir

    def config_hash(self) -> str:
        """sha256 of everything that defines the results (not the output folder, nor how
        many workers compute them)."""
        return _sha256(self.model_dump(mode="json", by_alias=True,
                                       exclude={"output", "n_jobs", "draw_jobs", "timeout"}))


def _sha256(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _location(loc: tuple) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif str(item).startswith(("function-", "int", "list[")):
            continue  # pydantic's union-branch markers say nothing to the user
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts)


def _first_error(exc: ValidationError) -> dict:
    """The error to report. A union (``replications: int | list[int]``) yields one error per
    branch: report the most specific, a value error raised by our own validators, when there
    is one. A union (a problem by name or by mapping) fails in every branch: the branch whose
    type matched the input (an unknown key, a missing one) says more than "not a string"."""
    errors = exc.errors()
    errors.sort(key=lambda e: (e["type"] != "value_error", e["type"].endswith("_type")))
    return errors[0]


def validation_message(exc: ValidationError, model: type[BaseModel]) -> str:
    return error_message(_first_error(exc), model)


def error_message(err: dict, model: type[BaseModel]) -> str:
    """One validation error as a user reads it: where, then what."""
    where = _location(err["loc"])
    if err["type"] == "extra_forbidden":
        parent = err["loc"][:-1]
        known = _known_keys(model, parent)
        key = str(err["loc"][-1])
        hint = f" (allowed: {', '.join(known)})" if known else ""
        text = f"unknown key {excerpt(key)}{did_you_mean(key, known)}{hint}"
        where = _location(parent)
    elif err["type"] == "missing":
        text = "required key is missing"
    elif err["type"] == "too_short":
        text = "must not be empty"
    else:
        text = err["msg"].removeprefix("Value error, ")
        if err["type"] != "value_error" and "input" in err:
            text += f" (got {excerpt(err['input'])})"
    return f"{where}: {text}" if where else text


def _known_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    current: Any = model
    for item in loc:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        field = current.model_fields.get(str(item))
        if field is None:
            return []
        current = field.annotation
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or n for n, f in current.model_fields.items()]
    # Optional sub-models (``Sensitivity | None``).
    for arg in getattr(current, "__args__", ()):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return [f.alias or n for n, f in arg.model_fields.items()]
    return []


def parse(data: Mapping[str, Any], source: str = "config") -> Config:
    """Validate a configuration mapping (model level: keys, types and ranges)."""
    try:
        return Config.model_validate(dict(data))
    except ValidationError as exc:
        detail = validation_message(exc, Config)
        loc = _first_error(exc)["loc"]
        raise ConfigError(f"{source}: {detail}", key=str(loc[0]) if loc else "",
                          detail=detail) from None


def validation_mistakes(data: Mapping[str, Any]) -> list[tuple[tuple, str]]:
    """Every field the model refuses, one (location, message) each: of the errors pydantic
    gives for one field (one per branch of a union), the most specific."""
    try:
        Config.model_validate(dict(data))
    except ValidationError as exc:
        errors = exc.errors()
    else:
        return []
    errors.sort(key=lambda e: (e["type"] != "value_error", e["type"].endswith("_type")))
    out: dict[tuple, str] = {}
    for err in errors:
        loc = _plain_location(err["loc"])
        field = loc[:-1] if err["type"] == "extra_forbidden" else loc
        if not any(field[:len(k)] == k or k[:len(field)] == field for k in out):
            out[field if err["type"] != "extra_forbidden" else loc] = error_message(
                err, Config)
    return list(out.items())


def _plain_location(loc: tuple) -> tuple:
    """A pydantic location without its union-branch markers."""
    return tuple(item for item in loc if isinstance(item, int) or not str(item).startswith(
        ("function-", "int", "list[")))
