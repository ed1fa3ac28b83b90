"""SAA-PS: sample-average approximation on common random numbers with a projected pattern search.

A strong simple baseline, outside the paper, added so that the comparison of Section 5 is
honest: the paper's methods land 5-13 % above the large-sample optima of its benchmarks
(:mod:`acfs_cli.reference`). Everything is charged to the same oracle and budget as the
paper's methods (Section 4.3), and every scenario is drawn at the decision where it is used:
because W ~ P_x depends on x, a cached W cannot be re-costed at a new x, so each new decision
on the fixed sample is charged its ``n_ps`` draws (``oracle.draw_batch(X, n_ps, z=...)`` with
the fixed normals broadcast).

Stages (each one ``oracle.phase``):

1. ``screen``: a maximin space-filling design of ``n_screen`` decisions over X, each estimated
   on the same ``n_screen_draws`` antithetic normals (one oracle call);
2. ``cem``: the project's cross-entropy loop (:func:`acfs_cli.methods.cem.cross_entropy`)
   started from the best screened decisions, every iteration one ``estimate_batch`` call with
   common random numbers (``crn=True``);
3. ``pattern``: the shared projected pattern search (:mod:`acfs_cli.methods.pattern`) on one
   fixed sample of ``n_ps`` antithetic normals - a deterministic sample-average objective, so
   the search compares decisions on paired samples. It starts from the best ``n_starts`` of a
   few distinct candidates (CEM best and mean, best screened points) and uses whatever budget
   is left once the final pick's draws are set aside;
4. ``final``: the best ``n_final_candidates`` distinct points of the pattern search
   (its end points first) are re-estimated on a fresh common sample of ``n_final`` antithetic
   draws each, and the lowest estimate is returned.

Why these choices (measured, see ``benchmarks/bench_saa_ps.py``): the local search needs one
fixed shared sample of at least 2,000 draws - at 1,000, DGP1's heavy tail gives 7-12 %
outliers, because the sample-average optimum then follows a handful of extreme scenarios;
the search must respect the bounds and the sum constraint by projection (both benchmarks'
optima lie on faces of X); and the final pick on fresh draws removes the optimism of a
minimum taken over the search sample.

Budgets smaller than the plan (screen + CEM + final + ``min_ps_evals`` pattern-search
evaluations) scale every stage's draws per decision by one common factor (rounded down to an
even count, at least 2), so the method stays within any budget and keeps its shape.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field, model_validator

from acfs_cli.methods.base import Method, MethodResult, Settings, Task
from acfs_cli.methods.cem import cross_entropy
from acfs_cli.methods.pattern import EvalCache, pattern_search
from acfs_cli.methods.sampling import estimate_batch
from acfs_cli.oracle import Oracle, antithetic_normals


class SAAPSSettings(Settings):
    """SAA-PS settings; the defaults were chosen by measurement at the budget of 260,000."""

    # -- stage 1: screen -------------------------------------------------------------------------
    n_screen: int = Field(150, ge=2, description="space-filling decisions screened")
    n_screen_draws: int = Field(
        100, ge=2, description="shared antithetic draws per screened decision"
    )
    # -- stage 2: CEM ----------------------------------------------------------------------------
    cem_iter: int = Field(5, ge=0, description="CEM iterations (0 skips the stage)")
    cem_pop: int = Field(30, ge=4, description="CEM population (the first one: best screened)")
    n_cem_draws: int = Field(200, ge=2, description="common draws per CEM candidate")
    cem_elite_frac: float = Field(0.2, gt=0, le=1, description="CEM elite fraction")
    cem_smoothing: float = Field(0.7, gt=0, le=1, description="CEM smoothing of mean and SD")
    # -- stage 3: pattern search on one fixed sample ---------------------------------------------
    n_ps: int = Field(2000, ge=2, description="antithetic normals of the fixed search sample")
    n_samples: int = Field(
        2, ge=1, description="independent fixed samples, each with its own pattern search"
    )
    warm_start: bool = Field(
        False, description="searches on later samples start from the previous sample's end"
    )
    n_starts: int = Field(
        1, ge=1, description="pattern searches per sample, from the best start candidates"
    )
    n_start_candidates: int = Field(
        4, ge=1, description="distinct start candidates scored on the fixed sample"
    )
    start_dist: float = Field(
        0.05, ge=0, description="minimum distance between start candidates"
    )
    ps_step0: float = Field(0.05, gt=0, description="initial pattern-search step")
    ps_step_max: float = Field(0.2, gt=0, description="largest pattern-search step")
    ps_step_min: float = Field(0.01, gt=0, description="pattern search stops below this step")
    ps_batch: int = Field(4, ge=1, description="poll points per oracle call (opportunistic)")
    min_ps_evals: int = Field(
        30, ge=1, description="pattern-search evaluations kept when the budget is small"
    )
    # -- stage 4: final pick ---------------------------------------------------------------------
    n_final: int = Field(15000, ge=2, description="fresh common draws per final candidate")
    n_final_candidates: int = Field(3, ge=1, description="candidates of the final pick")
    final_dist: float = Field(
        0.01, ge=0, description="minimum distance between final candidates"
    )

    @model_validator(mode="after")
    def _steps(self):
        if not (self.ps_step_min <= self.ps_step0 <= self.ps_step_max):
            raise ValueError("need ps_step_min <= ps_step0 <= ps_step_max")
        return self


def _even(n: float) -> int:
    """``n`` rounded down to an even count of at least 2 (antithetic pairs)."""
    return max(2, int(n) // 2 * 2)


def _plan(s: SAAPSSettings, budget: int) -> dict[str, int]:
    """Draws per decision of each stage, scaled down together when the budget is short."""
    n = {"screen": s.n_screen_draws, "cem": s.n_cem_draws, "ps": s.n_ps, "final": s.n_final}
    starts = s.n_start_candidates * (1 if s.warm_start else s.n_samples)
    planned = (
        s.n_screen * n["screen"]
        + s.cem_iter * min(s.cem_pop, s.n_screen) * n["cem"]
        + (starts + s.n_samples * s.min_ps_evals) * n["ps"]
        + s.n_final_candidates * n["final"]
    )
    if planned > budget:
        factor = budget / planned
        n = {k: _even(v * factor) for k, v in n.items()}
    return n


def _distinct(X: np.ndarray, k: int, min_dist: float, chosen: list | None = None) -> list[int]:
    """Indices of up to ``k`` rows of X (in order) at least ``min_dist`` from each other."""
    chosen = list(chosen or [])
    for i in range(len(X)):
        if len(chosen) >= k:
            break
        if all(np.linalg.norm(X[i] - X[j]) >= max(min_dist, 1e-12) for j in chosen):
            chosen.append(i)
    return chosen


def _search(task: Task, oracle: Oracle, s: SAAPSSettings, rng: np.random.Generator) -> MethodResult:
    n = _plan(s, oracle.budget)
    reserve = s.n_final_candidates * n["final"]
    info: dict = {"draws_per_decision": dict(n)}

    # 1. screen
    with oracle.phase("screen"):
        X_screen = task.space_filling(s.n_screen, rng)
        v_screen = estimate_batch(
            task, oracle, X_screen, n["screen"], rng, crn=True, antithetic=True
        )[0]
    order = np.argsort(v_screen)
    oracle.record_best(X_screen[order[0]], v_screen[order[0]], replace=True)

    # 2. CEM from the best screened decisions
    candidates = [X_screen[order[0]]]
    if s.cem_iter > 0:
        pop = min(s.cem_pop, s.n_screen)

        def evaluate(X: np.ndarray) -> np.ndarray:
            return estimate_batch(task, oracle, X, n["cem"], rng, crn=True, antithetic=True)[0]

        with oracle.phase("cem"):
            cem = cross_entropy(
                evaluate, X_screen[order[:pop]], task.project, rng, n_iter=s.cem_iter,
                elite_frac=s.cem_elite_frac, smoothing=s.cem_smoothing,
                on_best=lambda x, v: oracle.record_best(x, v, replace=True),
            )
        candidates = [cem.best_x, cem.mean, *X_screen[order]]
        info.update(cem_best=cem.best_x.tolist(), cem_mean=cem.mean.tolist())
    else:
        candidates = list(X_screen[order])
    candidates = np.array(candidates)
    candidates = candidates[_distinct(candidates, s.n_start_candidates, s.start_dist)]

    # 3. pattern searches, each on one fixed sample; every new decision is charged n_ps draws
    ends: list[np.ndarray] = []
    pools: list[np.ndarray] = []
    best_value = np.inf
    with oracle.phase("pattern"):
        for j in range(s.n_samples):
            res_j = _search_sample(task, oracle, s, rng, n["ps"], reserve, j, candidates, ends)
            if res_j is None:
                break
            ends.extend(res_j["ends"])
            pools.append(res_j["pool"])
            best_value = res_j["value"]
            info.setdefault("ps", []).extend(res_j["runs"])

    # 4. final pick among the best distinct points on fresh common draws
    pool = _interleave(pools)
    pool = np.vstack([*ends, pool]) if ends else pool
    final = pool[_distinct(pool, s.n_final_candidates, s.final_dist)]
    if len(final) == 1 or oracle.remaining < len(final) * n["final"]:
        return MethodResult(x=final[0], value=float(best_value), info=info)
    with oracle.phase("final"):
        v_final = estimate_batch(task, oracle, final, n["final"], rng, crn=True, antithetic=True)[0]
    i = int(np.argmin(v_final))
    oracle.record_best(final[i], v_final[i], replace=True)
    info.update(final_values=v_final.tolist(), final_choice=i)
    return MethodResult(x=final[i], value=float(v_final[i]), info=info)


def _interleave(pools: list[np.ndarray]) -> np.ndarray:
    """Rows of several best-first lists taken in turn (values of different samples differ)."""
    pools = [p for p in pools if len(p)]
    if not pools:
        return np.empty((0, 0))
    rows = [p[i] for i in range(max(len(p) for p in pools)) for p in pools if i < len(p)]
    return np.array(rows)


def _search_sample(task, oracle, s, rng, n_ps, reserve, j, candidates, ends):
    """Pattern search(es) on the ``j``-th fixed sample; None when no budget is left."""
    samples_left = s.n_samples - j
    evals_left = (oracle.remaining - reserve) // n_ps
    share = evals_left // samples_left
    if j > 0 and s.warm_start and ends:
        starts_pool = np.array(ends[-1:])
    else:
        starts_pool = candidates
    if share < len(starts_pool) + 1:
        return None
    z_fixed = antithetic_normals(n_ps, task.dim_w, rng)

    def sample_average(X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        W = oracle.draw_batch(X, n_ps, z=np.broadcast_to(z_fixed, (len(X), *z_fixed.shape)))
        return task.objective(W, X)

    cache = EvalCache()
    best = {"value": np.inf}

    def on_best(x: np.ndarray, value: float) -> None:
        # Values on this sample are compared with each other only; the first value on a new
        # sample replaces the incumbent of the previous stage.
        if value < best["value"]:
            best["value"] = value
            oracle.record_best(x, value, replace=True)

    v_start = sample_average(starts_pool)
    for x, v in zip(starts_pool, v_start, strict=True):
        cache.put(x, v)
    starts = np.argsort(v_start)[: s.n_starts]
    on_best(starts_pool[starts[0]], v_start[starts[0]])
    budget_evals = share - len(starts_pool)
    out_ends, runs = [], []
    for i, k in enumerate(starts):
        room = (budget_evals - sum(r["evals"] for r in runs)) // (len(starts) - i)
        if room < 1:
            break
        res = pattern_search(
            sample_average, starts_pool[k], task.project, step0=s.ps_step0,
            step_min=s.ps_step_min, step_max=s.ps_step_max, max_evals=room,
            batch_size=s.ps_batch, f0=float(v_start[k]), cache=cache, on_best=on_best,
        )
        out_ends.append(res.x)
        runs.append({"sample": j, "evals": res.n_evals, "polls": res.n_polls,
                     "stopped_by": res.stopped_by, "value": res.value, "step": res.step})
    return {"ends": out_ends, "pool": cache.points()[0], "value": best["value"], "runs": runs}


SAA_PS = Method(
    name="saa-ps",
    settings_model=SAAPSSettings,
    search=_search,
    summary="space-filling screen and short CEM on common random numbers, projected pattern "
    "search on one fixed sample of 2,000 antithetic normals, final pick on 15,000 fresh draws",
)
