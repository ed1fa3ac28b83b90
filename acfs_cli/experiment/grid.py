"""From a configuration to the list of cells it defines, each with a stable id.

A *cell* is one replication of one method configuration on one setting (problem, lam, alpha): the
unit the runner executes and stores. Its id is the sha256 of the canonical description of
everything that determines its result (experiment, problem, lam, alpha, method, label and the
method's effective parameters, rep, seed, budget and the final evaluation), so it does not
depend on the order of the grid, ``n_jobs`` or the machine, and a changed parameter (a new
default included) makes a new cell instead of silently reusing an old one.

Random streams (DESIGN.md section 5) are named by (seed, problem, rep, method): lambda is left
out, so a method's replications are paired across lambda, and the grid points of a
sensitivity study share their method's streams, so they are paired with each other.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

from acfs_cli.common.naming import label_value
from acfs_cli.experiment.config import Config, ConfigError, below_minimum
from acfs_cli.experiment.search import Found

#: Hex digits of the sha256 kept in a cell id (80 bits: collisions are out of reach).
ID_LENGTH = 20


def numeric_value(value: Any) -> float:
    """The float stored in ``varied_value``: NaN for a non-numeric parameter."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value)


@dataclass(frozen=True)
class Cell:
    """One replication of one method configuration on one setting."""

    experiment: str
    kind: str
    problem: str  # the problem's name in results (its label)
    lam: float
    alpha: float
    method: str
    label: str
    varied: str  # the parameter a sensitivity grid point varies ("" otherwise)
    varied_value: float  # its value (NaN otherwise)
    overrides: tuple[tuple[str, Any], ...]  # what the configuration sets, sorted by name
    params: tuple[tuple[str, Any], ...]  # the method's effective settings (JSON values)
    rep: int
    seed: int
    budget: int
    final_draws: int
    bootstrap: int
    precise_draws: int | None
    problem_name: str = ""  # the registered name or import path ("": the label itself)
    problem_params: tuple[tuple[str, Any], ...] = ()  # constructor parameters and options
    checkpoints: tuple[float, ...] = ()  # fractions of the budget evaluated like x*
    search_path: str = ""  # the configuration's folder (not part of what defines a result)
    #: Fingerprints of the problem's and the method's code here (acfs_cli.core.fingerprint):
    #: not part of the id; a stored cell computed by other code is stale.
    problem_code: str = ""
    method_code: str = ""
    method_display: str = ""  # the method's display name (not part of the id)
    #: The varied parameter's value at the base point of a one-at-a-time study (NaN otherwise;
    #: not part of the id: the base point is the configuration's).
    varied_default: float = math.nan
    #: The cell's problem and method as the grid found them (shared by the cells that name
    #: them; a cell made by hand finds its own).
    found: Found | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        names = (self.built_as, sorted(self.problem_params), self.method, self.search_path,
                 self.problem_code, self.method_code)
        if self.found is None or self.found.names() != names:
            object.__setattr__(self, "found", Found(
                self.built_as, dict(self.problem_params), self.method, self.search_path,
                problem_code=self.problem_code, method_code=self.method_code))

    @property
    def built_as(self) -> str:
        """The registered name or import path the problem is built from."""
        return self.problem_name or self.problem

    def _canonical(self, *, with_label: bool) -> str:
        # The keys are those of the first version ("dgp" for the problem's label): every
        # committed cell id hashes this text.
        data = {
            "experiment": self.experiment,
            "kind": self.kind,
            "dgp": self.problem,
            "lam": self.lam,
            "alpha": self.alpha,
            "method": self.method,
            "params": dict(self.params),
            "rep": self.rep,
            "seed": self.seed,
            "budget": self.budget,
            "final_eval": {
                "draws": self.final_draws,
                "bootstrap": self.bootstrap,
                "precise_draws": self.precise_draws,
            },
        }
        # Absent when empty, so the cells of configurations without them keep their ids.
        if self.problem_params or (self.problem_name and self.problem_name != self.problem):
            data["problem"] = {"name": self.problem_name, "params": dict(self.problem_params)}
        if self.checkpoints:
            data["checkpoints"] = list(self.checkpoints)
        if with_label:
            data["label"] = self.label
            data["varied"] = self.varied
            data["varied_value"] = None if math.isnan(self.varied_value) else self.varied_value
        return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)

    @cached_property
    def id(self) -> str:
        """Stable id: sha256 of the canonical cell."""
        text = self._canonical(with_label=True)
        return hashlib.sha256(text.encode()).hexdigest()[:ID_LENGTH]

    @cached_property
    def work_key(self) -> str:
        """Cells with equal work keys compute the same thing (same method, parameters and
        streams) and differ only in their label: the default point of each parameter of a
        one-at-a-time study. The runner computes such cells once."""
        text = self._canonical(with_label=False)
        return hashlib.sha256(text.encode()).hexdigest()[:ID_LENGTH]

    def describe(self) -> str:
        return f"{self.problem} lam={label_value(self.lam)} {self.label} rep={self.rep}"


def _configurations(config: Config) -> list[dict[str, Any]]:
    """The method configurations of a grid: (method, label, varied, value, overrides)."""
    out = []
    if config.kind == "sensitivity":
        study = config.sensitivity
        base = config.overrides(study.method)
        for param, values in study.params.items():
            for value in values:
                out.append(
                    {
                        "method": study.method,
                        "label": f"{study.method} {param}={label_value(value)}",
                        "varied": param,
                        "varied_value": numeric_value(value),
                        "varied_default": param,  # read from the base settings below
                        "overrides": {**base, param: value},
                    }
                )
        return out
    for method in config.grid.method:
        out.append(
            {
                "method": method,
                "label": method,
                "varied": "",
                "varied_value": math.nan,
                "overrides": config.overrides(method),
            }
        )
    return out


def build_cells(config: Config) -> list[Cell]:
    """Every cell of ``config``, replication-major (an interrupted run holds whole
    replications of every configuration rather than all replications of a few)."""
    # the registries import every method and problem: loaded when cells are built, not with
    # the command line; each problem and method is found once here, and its cells carry it
    from acfs_cli.methods.registry import get_method
    from acfs_cli.problems import build_problem, find_problem

    configurations = _configurations(config)
    search_path = config.source_dir or ""
    methods = {conf["method"]: get_method(conf["method"], search_path)
               for conf in configurations}
    for conf in configurations:
        method = methods[conf["method"]]
        settings = method.settings(conf["overrides"])
        conf["params"] = tuple(sorted(settings.model_dump(mode="json").items()))
        conf["display"] = method.display_name
        if conf["varied"]:
            base = method.settings(config.overrides(conf["method"])).model_dump(mode="json")
            conf["varied_default"] = numeric_value(base.get(conf["varied"]))
    targets = {label: find_problem(name, search_path) for label, name, _ in config.problems}
    built = {label: build_problem(targets[label], name, **options)
             for label, name, options in config.problems}
    problem_code = {label: p.code for label, p in built.items()}
    method_code = {(label, m): method.code_for(built[label])
                   for label in built for m, method in methods.items()}
    found = {(label, m): Found(name, options, m, search_path, problem_code=problem_code[label],
                               method_code=method_code[label, m], target=targets[label],
                               found_method=method)
             for label, name, options in config.problems for m, method in methods.items()}
    left_out = {(label, budget, method)
                for method, label, _, budget, _ in below_minimum(
                    config, {label: p.dim_x for label, p in built.items()})
                } if config.below_minimum == "skip" else set()
    if config.refused == "skip":  # methods that cannot keep a problem's declarations
        left_out |= {(label, budget, m) for label, p in built.items()
                     for m, method in methods.items()
                     if method.refusal(label, p.integrality, p.constraints, p.space.box())
                     for budget in config.problem_budgets[label]}
    final = config.final_eval
    checkpoints = tuple(config.checkpoints or ())
    cells = []
    for rep in config.reps:
        for label, name, options in config.problems:
            for lam in config.grid.lam:
                for budget in config.problem_budgets[label]:
                    for conf in configurations:
                        if (label, budget, conf["method"]) in left_out:
                            continue
                        cells.append(Cell(
                            experiment=config.name,
                            kind=config.kind,
                            problem=label,
                            lam=float(lam),
                            alpha=float(config.alpha),
                            method=conf["method"],
                            label=conf["label"],
                            varied=conf["varied"],
                            varied_value=conf["varied_value"],
                            overrides=tuple(sorted(conf["overrides"].items())),
                            params=conf["params"],
                            rep=int(rep),
                            seed=int(config.seed),
                            budget=int(budget),
                            final_draws=int(final.draws),
                            bootstrap=int(final.bootstrap),
                            precise_draws=final.precise_draws,
                            # the problem's name whenever the label is not it
                            problem_name=name if (options or name != label) else "",
                            problem_params=tuple(sorted(options.items())),
                            checkpoints=checkpoints,
                            search_path=search_path,
                            problem_code=problem_code[label],
                            method_code=method_code[label, conf["method"]],
                            method_display=conf["display"],
                            varied_default=conf.get("varied_default", math.nan),
                            found=found[label, conf["method"]],
                        ))
    ids = [c.id for c in cells]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"{config.name}: the grid defines the same cell twice")
    if not cells:
        raise ConfigError(f"{config.name}: the grid is empty")
    return cells


def settings_key(cells: Iterable[Cell]) -> str:
    """sha256 of what the cells compute, replications left out: runs of one configuration
    with other replications (``--replications 50-99`` after ``0-49``) share it, and any other
    change (seed, budget, evaluation, a method parameter, the grid) gives another."""
    names = [f.name for f in fields(Cell) if f.name not in
             ("rep", "search_path", "problem_code", "method_code", "method_display",
              "varied_default", "found")]
    points = {json.dumps([getattr(cell, n) for n in names], separators=(",", ":"), default=str)
              for cell in cells}
    return hashlib.sha256("\n".join(sorted(points)).encode()).hexdigest()


def work_groups(cells: Iterable[Cell]) -> list[tuple[Cell, ...]]:
    """Cells grouped by work key, in the order of first appearance."""
    groups: dict[str, list[Cell]] = {}
    for cell in cells:
        groups.setdefault(cell.work_key, []).append(cell)
    return [tuple(g) for g in groups.values()]
