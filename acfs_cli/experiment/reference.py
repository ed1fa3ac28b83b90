"""Large-sample reference optima: the yardstick for regret.

The paper's own 2,000-draw evaluation cannot separate close methods (near DGP1's optimum it
has a robust SD of 8-10 % of J), so every method is also measured against a near-true
optimum J* of each setting (problem, lam, alpha). This is *not* a method and has no budget: the
problem is used directly, with samples a thousand times larger than a method's.

:func:`reference_optimum` finds x* in four stages, all on common random numbers (the same
antithetic normals at every decision, so that candidates are compared on paired samples):

1. screen: a maximin space-filling design over X (``n_screen`` points, ``n_screen_draws``
   shared normals), so that no basin of X is missed (:func:`acfs_cli.kernels.refine.screen`);
2. CEM: the project's cross-entropy loop (:func:`acfs_cli.kernels.cem.cross_entropy`) from
   the best screened points, on ``n_cem_draws`` shared normals;
3. local search: the shared projected pattern search (:mod:`acfs_cli.kernels.pattern`) from
   ``starts`` distinct starting points (the CEM's best and mean, then the best screened
   points far from those), on one large fixed sample of ``n_search`` antithetic normals;
4. selection and estimate: the distinct end points are re-ranked on a fresh sample of
   ``n_select`` normals; the winner's J*, EC and CVaR are estimated on a *fresh* sample of
   ``n_eval`` (default 4,000,000) draws with :func:`acfs_cli.experiment.evaluate.evaluate_precise`,
   which also gives the standard error. A fresh sample matters: the search sample's value at
   its own minimiser is biased low (the minimum of noisy estimates).

Robustness (measured for both benchmarks at lam 0.5 / 0.7 / 0.9): the minimisers found from
seeds 0 and 1 differ in true J by at most 0.13 % on 4,000,000 common normals
(:func:`paired_difference`), and no saa-ps replication's x* beat the reference by more than
0.02 % on such a paired sample. A search costs about 60 s of CPU per setting on DGP1 and
10 s on DGP2.

:func:`compute_references` runs a grid of settings and keeps the table in
``results/reference/reference.parquet`` (columns :data:`acfs_cli.results.schema.REFERENCE_COLUMNS`),
written atomically and extended row by row, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from acfs_cli.common.naming import problem_label
from acfs_cli.common.seeding import stream
from acfs_cli.core.plugins import add_import_path
from acfs_cli.core.problem import as_problem
from acfs_cli.core.risk import check_risk_params, influence, spectral_risk
from acfs_cli.core.sample import CommonSample, antithetic_normals
from acfs_cli.core.task import Task
from acfs_cli.experiment.evaluate import evaluate_precise
from acfs_cli.kernels.pattern import PatternSettings, pattern_searches
from acfs_cli.kernels.refine import cem_from_screen, distinct, screen
from acfs_cli.problems import get_problem
from acfs_cli.results.manifest import read_manifest
from acfs_cli.results.parquet import write_parquet_atomic
from acfs_cli.results.read import (
    EXECUTION_OPTIONS,
    REFERENCE_FILE,
    SETTING,
    problems_of,
    read_results,
)
from acfs_cli.results.schema import (
    REFERENCE_COLUMNS,
    pandas_types,
    settings_json,
)


def crn_objective(
    problem, z, lam: float, alpha: float, max_rows: int = 2_000_000
) -> Callable[[np.ndarray], np.ndarray]:
    """J estimated on one common sample at a batch of decisions X (m, d_x).

    ``z`` is the sample: fixed normals (n, d_W) for a problem with ``transform``, or a
    :class:`~acfs_cli.core.sample.CommonSample` (any problem; re-seeded streams for a
    sample-only simulator). Deterministic in X (common random numbers). Decisions are
    processed in groups of at most ``max_rows`` scenario rows, so memory stays bounded for
    large samples.
    """
    problem = as_problem(problem)
    if isinstance(z, CommonSample):
        sample, n = z, z.n

        def scenarios(Xs):
            return problem.scenarios(Xs, sample)
    else:
        z = np.asarray(z, dtype=float)
        n = z.shape[0]

        def scenarios(Xs):
            return problem.transform_batch(Xs, np.broadcast_to(z, (Xs.shape[0], *z.shape)))
    per_call = max(1, max_rows // n)

    def f(X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(np.asarray(X, dtype=float))
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], per_call):
            Xs = X[start : start + per_call]
            out[start : start + Xs.shape[0]] = spectral_risk(problem.cost(scenarios(Xs), Xs),
                                                             lam, alpha)[0]
        return out

    return f


def common_sample(problem, n: int, rng: np.random.Generator, antithetic: bool = True):
    """A common sample for :func:`crn_objective`: antithetic normals from ``rng`` for a problem
    with ``transform``, a seeded stream (its seed drawn from ``rng``) for a sample-only one."""
    if problem.has_transform:
        return antithetic_normals(n, problem.dim_w, rng) if antithetic else rng.standard_normal(
            (n, problem.dim_w))
    return CommonSample.of(np.random.SeedSequence(rng.integers(2**63, size=4).tolist()), n)


@dataclass(frozen=True)
class ReferenceSettings:
    """The sizes of a reference search (see :func:`reference_optimum`).

    ``n_search``: antithetic normals of the fixed sample of the pattern searches. ``n_eval``:
    fresh draws of the final estimate of J*, EC, CVaR and the standard error of J*; four times
    the 1,000,000 of the protocol, because DGP1's cost has infinite variance and a single
    1,000,000-draw estimate near its optimum can sit several percent high when the sample
    holds one extreme scenario (observed: SE 1.7 % at lam = 0.9), while the extra draws cost
    seconds next to the search. ``n_select``: fresh common normals on which the searches'
    distinct end points are re-ranked. ``n_screen``, ``n_screen_draws``: the space-filling
    screen's designs and shared normals. ``cem_iter``, ``cem_pop``, ``n_cem_draws``: the CEM
    stage's iterations, population and shared normals per candidate. ``starts``,
    ``start_dist``: pattern-search starts and the minimum Euclidean distance between them.
    ``max_evals``: the evaluation cap per start; ``pattern``: the searches' steps and poll.
    """

    n_search: int = 40_000
    n_eval: int = 4_000_000
    n_select: int = 200_000
    n_screen: int = 1_500
    n_screen_draws: int = 1_000
    cem_iter: int = 8
    cem_pop: int = 60
    n_cem_draws: int = 4_000
    starts: int = 4
    start_dist: float = 0.1
    max_evals: int = 400
    pattern: PatternSettings = PatternSettings(step0=0.1, step_min=0.002, step_max=0.2)

    def __post_init__(self) -> None:
        if self.starts < 1:
            raise ValueError(f"a reference search needs at least one start, got {self.starts}")
        if self.max_evals < 1:
            raise ValueError(f"max_evals must be at least 1, got {self.max_evals}")


#: The version of the reference search - its stages and the kernels it composes - recorded
#: with every optimum it finds (``settings``): changed whenever the optima it finds change,
#: so that rows found before are found again.
SEARCH_VERSION = 1


def search_settings(settings: ReferenceSettings | None = None, seed: int = 0) -> str:
    """What makes a reference search, as a reference row's ``settings`` holds it (JSON): the
    search's version, its sizes and its base seed."""
    s = ReferenceSettings() if settings is None else settings
    return settings_json({"version": SEARCH_VERSION, "seed": int(seed), **asdict(s)})


def reference_optimum(
    problem,
    lam: float,
    alpha: float = 0.95,
    settings: ReferenceSettings | None = None,
    *,
    seed: int = 0,
) -> dict:
    """A near-true minimiser of J over X and J*, EC, CVaR re-estimated on a fresh sample.

    ``problem`` is the benchmark (or its registered name), used directly, outside any
    budget; ``settings`` are the sizes (:class:`ReferenceSettings`, its defaults when None);
    ``seed`` is the base seed, streams are named by (problem, lam, alpha, stage).

    Returns a dict with the keys of :data:`acfs_cli.results.schema.REFERENCE_COLUMNS`;
    ``draws`` counts every scenario generated (screen, CEM, searches, selection and the final
    estimate).
    """
    s = ReferenceSettings() if settings is None else settings
    problem = get_problem(problem) if isinstance(problem, str) else as_problem(problem)
    lam, alpha = check_risk_params(lam, alpha)
    name = problem.name
    dim_x = problem.dim_x
    if problem.has_exact:
        return exact_reference(problem, lam, alpha)
    if problem.constraints or problem.integrality.any():
        # its pattern search on one large sample would end off the mesh or outside the
        # constraints: an optimum no method may be measured against
        raise ValueError(f"problem {name!r} declares "
                         f"{'stochastic constraints' if problem.constraints else 'integers'}, "
                         "which the reference search does not keep: state its optimum "
                         "(exact_J and optimum) or take the best answer found (--best-found)")
    task = Task.from_problem(problem, lam, alpha)  # the shared projection and design
    project = task.project

    def rng_of(stage: str) -> np.random.Generator:
        return stream(seed, "reference", name, lam, alpha, stage)

    def on_common_sample(n: int, rng: np.random.Generator):
        return crn_objective(problem, common_sample(problem, n, rng), lam, alpha)

    draws = 0

    # 1. space-filling screen on shared normals
    rng = rng_of("screen")
    design = task.space_filling(s.n_screen, rng)
    screened = screen(design, on_common_sample(s.n_screen_draws, rng))
    draws += s.n_screen * s.n_screen_draws

    # 2. CEM from the best screened points
    rng = rng_of("cem")
    f_cem = on_common_sample(s.n_cem_draws, rng)
    cem = cem_from_screen(screened, f_cem, project, rng, population=s.cem_pop,
                          iterations=s.cem_iter)
    draws += s.cem_iter * s.cem_pop * s.n_cem_draws

    # 3. pattern searches on one large fixed sample, sharing a cache, from distinct starts:
    # the CEM's best and mean lead, then the screen, best first
    rng = rng_of("search")
    f_search = on_common_sample(s.n_search, rng)
    pool = np.vstack([cem.best_x, cem.mean, screened.X])
    ranked = pool[np.argsort(np.concatenate([[-np.inf, -np.inf], screened.values]))]
    x_starts = ranked[distinct(ranked, s.starts, s.start_dist)]
    searches = pattern_searches(f_search, x_starts, project, s.pattern, max_evals=s.max_evals,
                                coupled=task.exchange_coordinates())
    draws += sum(res.n_evals for res in searches) * s.n_search

    # 4. re-rank the distinct end points on fresh normals, then the fresh large-sample estimate
    ends = np.array([res.x for res in searches])
    ends = ends[np.argsort(np.array([res.value for res in searches]))]
    finalists = ends[distinct(ends, len(ends), 1e-6)]
    if len(finalists) > 1:
        f_select = on_common_sample(s.n_select, rng_of("select"))
        x_star = finalists[int(np.argmin(f_select(finalists)))]
        draws += len(finalists) * s.n_select
    else:
        x_star = finalists[0]
    est = evaluate_precise(problem, x_star, lam, alpha, n=s.n_eval, rng=rng_of("estimate"))
    draws += s.n_eval

    row = {
        "problem": name,
        "lam": lam,
        "alpha": alpha,
        "J_star": est["J_true"],
        "J_star_se": est["J_true_se"],
        "EC_star": est["EC_true"],
        "CVaR_star": est["CVaR_true"],
        "x": [float(v) for v in x_star],
        "dim_x": dim_x,
        "draws": int(draws),
        "code": problem.code,
        "source": "search",
        "settings": search_settings(s, seed),
    }
    return row


def exact_reference(problem, lam: float, alpha: float) -> dict:
    """The reference row of a problem that knows its optimum: J* exact (SE 0, no draws).

    J is linear in lam, so E[C] = J(x*; lam = 0) and CVaR = J(x*; lam = 1) - E[C] come from
    the same exact function.
    """
    x_star, J_star = problem.optimum(lam, alpha)
    ec = problem.exact_J(x_star, 0.0, alpha)
    cvar = problem.exact_J(x_star, 1.0, alpha) - ec
    return {"problem": problem.name, "lam": lam, "alpha": alpha, "J_star": J_star, "J_star_se": 0.0,
            "EC_star": ec, "CVaR_star": cvar,
            "x": [float(v) for v in x_star], "dim_x": problem.dim_x, "draws": 0,
            "code": problem.code, "source": "exact", "settings": settings_json({})}


def paired_difference(
    problem, x_a, x_b, lam: float, alpha: float, n: int, rng: np.random.Generator,
    chunk: int = 250_000,
) -> dict:
    """J(x_a) - J(x_b) on the same ``n`` fresh normals, with its standard error.

    The robustness check of a reference optimum: two searches (other seeds, other settings)
    should land on decisions whose values agree within this paired standard error, which is
    far smaller than the SE of either value alone because the sampling error is shared. The
    SE is that of the difference of the influence values of J.
    """
    problem = as_problem(problem)
    X = np.stack([np.asarray(x_a, dtype=float), np.asarray(x_b, dtype=float)])
    costs = np.empty((2, n))
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        sample = CommonSample.of(np.random.SeedSequence(rng.integers(2**63, size=4).tolist()),
                                 m)
        costs[:, start : start + m] = problem.cost(problem.scenarios(X, sample), X)
    J = spectral_risk(costs, lam, alpha)[0]
    psi = influence(costs, lam, alpha)
    se = float((psi[0] - psi[1]).std(ddof=1) / np.sqrt(n))
    return {"J_a": float(J[0]), "J_b": float(J[1]), "diff": float(J[0] - J[1]), "diff_se": se}


# -- the reference table ---------------------------------------------------------------------------


def read_references(path: Path | str = Path("results/reference") / REFERENCE_FILE) -> pd.DataFrame:
    """The reference table (empty with the right columns when the file does not exist); a
    table of an older version names the problem ``dgp`` and may lack ``code``, ``source`` or
    ``settings`` (read as "": unknown)."""
    path = Path(path)
    if not path.exists():
        return pd.DataFrame({c: pd.Series(dtype=t)
                             for c, t in pandas_types(REFERENCE_COLUMNS).items()})
    df = pd.read_parquet(path).rename(columns={"dgp": "problem"})
    if "code" not in df.columns:  # a table of a version that did not record the code
        df["code"] = ""
    if "source" not in df.columns:  # nor how the optimum was found
        df["source"] = np.where(df["draws"] == 0, "exact", "search")
    if "settings" not in df.columns:  # nor the search's version, sizes and seed
        df["settings"] = ""
    missing = sorted(set(REFERENCE_COLUMNS) - set(df.columns))
    if missing:
        raise ValueError(f"{path} lacks the reference columns {', '.join(missing)}")
    return df[list(REFERENCE_COLUMNS)].astype(pandas_types(REFERENCE_COLUMNS))


def decision(row) -> np.ndarray:
    """The decision of a reference row."""
    if row["x"] is None:
        raise ValueError("the reference row holds no decision")
    return np.asarray(row["x"], dtype=float)


def reference_row(df: pd.DataFrame, problem: str, lam: float, alpha: float
                  ) -> pd.Series | None:
    """The row of (problem, lam, alpha) in a reference table, or None."""
    hit = df[(df["problem"] == problem) & np.isclose(df["lam"], lam)
             & np.isclose(df["alpha"], alpha)]
    return None if hit.empty else hit.iloc[0]


def write_table_atomic(df: pd.DataFrame, path: Path) -> None:
    """``df`` to ``path`` as the results are written: atomically, with checksums, readable
    as the umask allows."""
    import pyarrow as pa

    path.parent.mkdir(parents=True, exist_ok=True)
    write_parquet_atomic(pa.Table.from_pandas(df, preserve_index=False), path)


def compute_references(
    problems: Iterable[str] = ("dgp1", "dgp2"),
    lams: Iterable[float] = (0.5, 0.7, 0.9),
    alpha: float = 0.95,
    seed: int = 0,
    out_dir: Path | str = Path("results/reference"),
    *,
    force: bool = False,
    progress: Callable[[dict], None] | None = None,
    **kw,
) -> pd.DataFrame:
    """Reference optima for every (problem, lam) at ``alpha``, kept in
    ``out_dir/reference.parquet``.

    ``problems`` are problem names, or (name in results, name or import path, options) as a
    configuration lists them (:attr:`~acfs_cli.experiment.config.Config.problems`); a problem
    that knows its optimum gives it exactly (no search).

    Rows already in the file are kept while they are current (:func:`is_current`: made by
    this code of the problem and, for a search, this search), and computed again otherwise
    or with ``force``; the file is rewritten atomically (temporary file, then ``os.replace``)
    after every new row, so an interrupted run keeps what it finished. ``kw`` goes to
    :func:`reference_optimum` (``settings``, a :class:`ReferenceSettings`); ``progress`` is
    called with each new row and the problem's ``label`` in the grid. Returns the whole table,
    sorted by (problem, lam, alpha).
    """
    path = Path(out_dir) / REFERENCE_FILE
    table = read_references(path)
    searched = search_settings(kw.get("settings"), seed)
    for entry in problems:
        label, name, options = (entry, entry, {}) if isinstance(entry, str) else entry
        # how a problem is simulated does not change its optimum: one row per problem
        options = {k: v for k, v in options.items() if k not in EXECUTION_OPTIONS}
        named = problem_label(name, options) if (name != label or options) else label
        problem = as_problem(get_problem(name, **options))
        wanted = settings_json({}) if problem.has_exact else searched
        for lam in lams:
            lam_f, alpha_f = check_risk_params(lam, alpha)
            known = reference_row(table, named, lam_f, alpha_f)
            if not force and known is not None and is_current(known, problem.code, wanted):
                continue
            row = reference_optimum(problem, lam_f, alpha_f, seed=seed, **kw)
            row["problem"] = named  # the name asked for, so that the next run finds the row
            same = (table["problem"] == named) & np.isclose(table["lam"], lam_f) & np.isclose(
                table["alpha"], alpha_f
            )
            new = pd.DataFrame([row])[list(REFERENCE_COLUMNS)].astype(
                pandas_types(REFERENCE_COLUMNS))
            table = pd.concat([table[~same], new], ignore_index=True) if len(table) else new
            table = table.sort_values(["problem", "lam", "alpha"], ignore_index=True)
            write_table_atomic(table, path)
            if progress is not None:
                progress({**row, "label": label})  # the row under the name the grid gives it
    return table


def is_current(row, code: str, settings: str) -> bool:
    """Whether a reference row stands for the problem whose code is ``code`` as a search with
    ``settings`` would find it: made by the same code of the problem and, unless it is the
    best answer of an experiment's cells (kept until ``--force`` or ``--best-found``
    replaces it), with the same settings. A row of an older version that does not record
    its settings is kept while its code matches: those versions searched with the defaults
    of their time, which is all they can tell."""
    if row["code"] != code:
        return False
    return row["source"] == "best found" or not row["settings"] or row["settings"] == settings


# -- the best answer found (SimOpt's convention where the optimum is unknown) -----------------
def best_found(
    folder: Path | str,
    out_dir: Path | str,
    n: int = 20_000,
    top: int = 5,
    seed: int = 0,
    progress: Callable[[dict], None] | None = None,
) -> pd.DataFrame:
    """Reference optima from an experiment's own answers, SimOpt's convention for problems
    whose optimum is unknown and too costly to search for: per setting, the ``top`` decisions
    with the lowest large-sample J (else the lowest J) among the finished cells (under
    stochastic constraints, among the answers their evaluation showed feasible), re-estimated
    on one common sample of ``n`` draws; the best of those shown feasible there is the
    reference minimiser, its estimate J*.
    Rows of these settings in ``out_dir/reference.parquet`` are replaced (the others kept);
    returns the whole table.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    if manifest is not None and manifest.source:  # problems named by import path live there
        add_import_path(str((folder / manifest.source).resolve()))
    results = read_results(folder)
    finished = results[(results["status"] == "ok") & results["x"].notna()]
    path = Path(out_dir) / REFERENCE_FILE
    table = read_references(path)
    builds = problems_of(results)
    for (label, lam, alpha), block in finished.groupby(SETTING, sort=True):
        if "feasible" in block:
            # under stochastic constraints the candidates are the answers their own
            # evaluation showed feasible: a cheaper answer that fails them is no optimum
            flag = block["feasible"].fillna("").astype(str)
            if (flag == "feasible").any():
                block = block[flag == "feasible"]
        score = block["J_true"].where(block["J_true"].notna(), block["J"])
        order = np.argsort(score.to_numpy(), kind="stable")
        candidates: list[np.ndarray] = []
        for i in order:
            x = np.asarray(block["x"].iloc[i], dtype=float)
            if not any(np.array_equal(x, c) for c in candidates):
                candidates.append(x)
            if len(candidates) == top:
                break
        name, options = builds[label]
        problem = as_problem(get_problem(name, **options))
        # one common sample: every candidate is simulated from a stream in the same state
        estimates = [evaluate_precise(problem, x, lam, alpha, n=n,
                                      rng=stream(seed, "best-found", label))
                     for x in candidates]
        # where constraints are declared, only an answer shown to meet them can be the best
        shown = [i for i, e in enumerate(estimates) if e.get("feasible", "feasible") == "feasible"]
        if not shown:
            raise ValueError(f"problem {label!r} at lambda {lam:g}: none of the "
                             f"{len(candidates)} best answers is shown feasible on {n:,} fresh "
                             "draws, so none is a best feasible answer")
        k = min(shown, key=lambda i: estimates[i]["J_true"])
        best = estimates[k]
        row = {"problem": label, "lam": float(lam), "alpha": float(alpha),
               "J_star": best["J_true"], "J_star_se": best["J_true_se"],
               "EC_star": best["EC_true"], "CVaR_star": best["CVaR_true"],
               "x": [float(v) for v in candidates[k]], "dim_x": problem.dim_x,
               "draws": int(n * len(candidates)), "code": problem.code,
               "source": "best found",
               "settings": settings_json({"n": int(n), "top": int(top), "seed": int(seed)})}
        same = (table["problem"] == label) & np.isclose(table["lam"], lam) & np.isclose(
            table["alpha"], alpha)
        new = pd.DataFrame([row])[list(REFERENCE_COLUMNS)].astype(pandas_types(REFERENCE_COLUMNS))
        table = pd.concat([table[~same], new], ignore_index=True) if len(table) else new
        table = table.sort_values(["problem", "lam", "alpha"], ignore_index=True)
        write_table_atomic(table, path)
        if progress is not None:
            progress(row)
    return table
