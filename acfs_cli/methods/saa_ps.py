"""SAA-PS: sample-average approximation on common random numbers with a projected pattern search.

A strong simple baseline, outside the paper, added so that the comparison of Section 5 is
honest: the paper's methods land 5-13 % above the large-sample optima of its benchmarks
(:mod:`acfs_cli.reference`). Everything is charged to the same oracle and budget as the
paper's methods (Section 4.3), and every scenario is drawn at the decision where it is used:
because W ~ P_x depends on x, a cached W cannot be re-costed at a new x, so each new decision
on a fixed sample is charged its ``n_ps`` draws (``oracle.draw_batch(X, n_ps, z=...)`` with
the fixed normals broadcast).

Stages (each one ``oracle.phase``):

1. ``screen``: a maximin space-filling design of ``n_screen`` decisions over X, each estimated
   on the same ``n_screen_draws`` antithetic normals (one oracle call);
2. ``cem``: the project's cross-entropy loop (:func:`acfs_cli.kernels.cem.cross_entropy`)
   started from the best screened decisions, every iteration one ``estimate_batch`` call with
   common random numbers (``crn=True``);
3. ``pattern``: the shared projected pattern search (:mod:`acfs_cli.kernels.pattern`) on a
   fixed sample of ``n_ps`` antithetic normals - a deterministic sample-average objective, so
   decisions are compared on paired samples. There are ``n_samples`` such samples, searched
   in turn with equal shares of what is left once the final pick's draws are set aside: the
   first search starts from the best of a few distinct candidates (CEM best and mean, best
   screened points), each later one from the previous end (``warm_start``). This is
   retrospective approximation (Pasupathy 2010, Oper. Res. 58(4)) with one sample size;
4. ``final``: the projected mean of the searches' ends (``final_average``), the ends
   (latest first) and the best other distinct points, up to ``n_final_candidates``, are
   re-estimated on a fresh common sample of ``n_final`` antithetic draws each, and the
   lowest estimate is returned.

Why several samples: DGP1's cost has infinite variance, so one fixed sample of 2,000 draws
now and then holds an extreme scenario that moves its sample-average minimiser far from the
true one (on such a sample J(x*) was 263k where the sample's own minimiser scored 237k).
A search on a second, independent sample, started at the first end, walks back; the final
pick on fresh draws then separates the ends. The ends scatter around the optimum along
DGP1's flat ridge x2 + x3 = 0.85, and a 12,000-draw paired pick cannot always resolve 1 %
differences there, so the mean of the ends (solution averaging across independent sample
averages, which cancels much of that scatter) is the first candidate. Measured worst paired
regret over 20 replications on DGP1 at lam = 0.7 (``benchmarks/bench_saa_ps.py``, seed 0):
one sample 9.6-11 %, two 5.1 %, three 1.7 %, four with a four-way final pick 0.9 %, and with
the mean of the ends among the four 0.7 % (the default); raising ``n_ps`` to 3,000 or 4,000
on one sample still left 4-6 % outliers. Other measured
choices: model-ordered polls with ``ps_batch = 1`` (batches of 4 gave 3.1 % on DGP2 at
lam = 0.9), ``ps_step_min = 0.02`` (finer steps spend the budget on complete failed polls,
and 0.02 is already finer than the scatter of the sample minimisers), and 5 CEM iterations
(3 gave 2.7-3.1 % with three samples).

Budgets smaller than the plan (screen + CEM + final + ``min_ps_evals`` pattern-search
evaluations per sample) scale every stage's draws per decision by one common factor (rounded
down to an even count, at least 2), so the method stays within any budget and keeps its shape.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field, model_validator

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.cem import cross_entropy
from acfs_cli.kernels.estimate import estimate_batch
from acfs_cli.kernels.pattern import EvalCache, pattern_search
from acfs_cli.methods.base import Method, MethodResult, Settings


class SAAPSSettings(Settings):
    """SAA-PS settings; defaults chosen by measurement at the budget of 260,000.

    Default plan (draws): screen 150 x 100 = 15,000; CEM 5 x 30 x 200 = 30,000; final pick
    4 x 12,000 = 48,000 (reserved up front); pattern search about 167,000 (about 83 new
    decisions of 2,000 draws over 4 samples). Alternatives measured on 20 replications per
    setting (paired regret, ``benchmarks/bench_saa_ps.py``) are listed in the module
    docstring.
    """

    # -- stage 1: screen -------------------------------------------------------------------------
    n_screen: int = Field(150, ge=2, description="space-filling decisions screened")
    n_screen_draws: int = Field(
        100, ge=2, description="shared antithetic draws per screened decision"
    )
    # -- stage 2: CEM ----------------------------------------------------------------------------
    cem_iter: int = Field(
        5, ge=0, description="CEM iterations (0 skips the stage; 3 gave 3 % outliers on DGP1)"
    )
    cem_pop: int = Field(30, ge=4, description="CEM population (the first one: best screened)")
    n_cem_draws: int = Field(200, ge=2, description="common draws per CEM candidate")
    cem_elite_frac: float = Field(0.2, gt=0, le=1, description="CEM elite fraction")
    cem_smoothing: float = Field(0.7, gt=0, le=1, description="CEM smoothing of mean and SD")
    # -- stage 3: pattern searches on fixed samples ----------------------------------------------
    n_ps: int = Field(
        2000, ge=2, description="antithetic normals of each fixed search sample (>= 2,000 on "
        "DGP1: at 1,000 its heavy tail gives 7-12 % outliers)"
    )
    n_samples: int = Field(
        4, ge=1, description="independent fixed samples searched in turn, the budget shared "
        "equally (worst paired regret on DGP1: 1 sample 9.6-11 %, 2: 5.1 %, 3: 1.7 %, 4: 0.9 %)"
    )
    warm_start: bool = Field(
        True, description="the search on each later sample starts from the previous end"
    )
    n_starts: int = Field(
        1, ge=1, description="searches on the first sample, from the best start candidates"
    )
    n_start_candidates: int = Field(
        4, ge=1, description="distinct start candidates (CEM best and mean, best screened) "
        "scored on the first sample"
    )
    start_dist: float = Field(
        0.05, ge=0, description="minimum distance between start candidates"
    )
    ps_step0: float = Field(0.05, gt=0, description="initial pattern-search step")
    ps_step_max: float = Field(0.2, gt=0, description="largest pattern-search step")
    ps_step_min: float = Field(
        0.02, gt=0, description="a search stops below this step (the final pick refines)"
    )
    ps_batch: int = Field(
        1, ge=1, description="poll points per oracle call: 1 stops a model-ordered poll at "
        "its first improving point (4 cost 2-3x the evaluations per successful poll)"
    )
    min_ps_evals: int = Field(
        30, ge=1, description="pattern-search evaluations per sample kept when the budget is "
        "small (sets the common scale-down factor)"
    )
    # -- stage 4: final pick ---------------------------------------------------------------------
    n_final: int = Field(12000, ge=2, description="fresh common draws per final candidate")
    n_final_candidates: int = Field(
        4, ge=1, description="candidates of the final pick: the searches' ends (latest first), "
        "then the best other distinct points"
    )
    final_average: bool = Field(
        True, description="the projected mean of the searches' ends is the first final "
        "candidate"
    )
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


def distinct(X: np.ndarray, k: int, min_dist: float, chosen: list | None = None) -> list[int]:
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
    info: dict = {"draws_per_decision": dict(n)}

    # 1. screen
    with oracle.phase("screen"):
        X_screen = task.space_filling(s.n_screen, rng)
        v_screen = estimate_batch(
            task, oracle, X_screen, n["screen"], crn=True, antithetic=True
        )[0]
    order = np.argsort(v_screen)
    oracle.record_best(X_screen[order[0]], v_screen[order[0]], replace=True)

    # 2. CEM from the best screened decisions
    if s.cem_iter > 0:
        pop = min(s.cem_pop, s.n_screen)

        def evaluate(X: np.ndarray) -> np.ndarray:
            return estimate_batch(task, oracle, X, n["cem"], crn=True, antithetic=True)[0]

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
    candidates = candidates[distinct(candidates, s.n_start_candidates, s.start_dist)]

    x, value = refine(task, oracle, s, rng, candidates, n["ps"], n["final"], info)
    return MethodResult(x=x, value=value, info=info)


def refine(
    task: Task,
    oracle: Oracle,
    s: SAAPSSettings,
    rng: np.random.Generator,
    candidates: np.ndarray,
    n_ps: int,
    n_final: int,
    info: dict,
    batches: int = 1,
) -> tuple[np.ndarray, float]:
    """Stages 3 and 4: pattern searches on ``s.n_samples`` fixed samples, then the final pick.

    ``candidates`` are distinct start points, best first. Every decision is charged to the
    oracle (``n_ps`` draws per new decision in a search, ``n_final`` per final candidate,
    whose draws are set aside before the searches start). Returns the picked decision and
    its final estimate, or the oracle's incumbent when there is nothing to pick from or no
    budget for the pick. Shared by SAA-PS and the pattern-search phase 4 of ACFS.

    ``batches`` > 1 picks by median of means (:func:`median_of_means`) instead of the plain
    estimate on all ``n_final`` draws.
    """
    reserve = s.n_final_candidates * n_final
    # 3. pattern searches, each on one fixed sample; every new decision is charged n_ps draws
    ends: list[np.ndarray] = []
    pools: list[np.ndarray] = []
    with oracle.phase("pattern"), oracle.reserve(reserve):
        for j in range(s.n_samples):
            res_j = _search_sample(task, oracle, s, rng, n_ps, j, candidates, ends)
            if res_j is None:
                break
            ends.extend(res_j["ends"])
            pools.append(res_j["pool"])
            info.setdefault("ps", []).extend(res_j["runs"])

    # 4. final pick among the best distinct points on fresh common draws
    # The latest ends first: each later search started from the previous end and refined it
    # on one more independent sample.
    pool = _interleave(pools)
    pool = np.vstack([*ends[::-1], pool]) if ends else candidates
    if s.final_average and len(ends) > 1:
        # The ends are minimisers of independent sample averages: their mean has a smaller
        # sampling error than any one of them (solution averaging); the pick guards against a
        # mean that falls off a non-convex ridge.
        pool = np.vstack([task.project(np.mean(ends, axis=0)), pool])
    final = pool[distinct(pool, s.n_final_candidates, s.final_dist)]
    if len(final) == 1 or not oracle.can_draw(len(final) * n_final):
        # Nothing to pick from, or a budget too small for the pick: the latest incumbent.
        x_inc, v_inc = oracle.incumbent
        return x_inc, v_inc
    with oracle.phase("final"):
        if batches > 1:
            v_final = median_of_means(task, oracle, final, n_final, batches)
        else:
            v_final = estimate_batch(task, oracle, final, n_final, crn=True,
                                     antithetic=True)[0]
    i = int(np.argmin(v_final))
    oracle.record_best(final[i], v_final[i], replace=True)
    info.update(final_values=v_final.tolist(), final_choice=i, final_candidates=final.tolist())
    return final[i], float(v_final[i])


def median_of_means(
    task: Task, oracle: Oracle, X: np.ndarray, n: int, batches: int
) -> np.ndarray:
    """J of each row of X on ``n`` common antithetic draws, as the median over ``batches``
    disjoint batches of the batch estimates (antithetic pairs kept in one batch).

    Under DGP1's infinite-variance cost one scenario of a large sample can dominate every
    candidate's estimate and decide the pick by how each candidate's allocation meets that
    one scenario (measured: a 10,000-draw pick chose a decision 17 % above the optimum over
    three 2-4 % ones). The median over batches ignores a batch that holds such a scenario
    (median of means, Lugosi & Mendelson 2019, Found. Comput. Math. 19(5)). The batch
    medians are biased low for a right-skewed cost, but alike for all candidates on common
    draws, so the ranking stands. Charges ``len(X) * n`` draws, one oracle call.
    """
    X = np.atleast_2d(X)
    sample = oracle.common_sample(n, antithetic=True)
    C = np.asarray(task.cost(oracle.draw_common(X, sample), X), dtype=float)
    if sample.antithetic:
        half = n // 2
        groups = [np.concatenate([g, g + half])
                  for g in np.array_split(np.arange(half), batches) if g.size]
    else:
        groups = [g for g in np.array_split(np.arange(n), batches) if g.size]
    values = np.stack([task.risk(C[:, g])[0] for g in groups])
    return np.median(values, axis=0)


def _interleave(pools: list[np.ndarray]) -> np.ndarray:
    """Rows of several best-first lists taken in turn (values of different samples differ)."""
    pools = [p for p in pools if len(p)]
    if not pools:
        return np.empty((0, 0))
    rows = [p[i] for i in range(max(len(p) for p in pools)) for p in pools if i < len(p)]
    return np.array(rows)


def _search_sample(task, oracle, s, rng, n_ps, j, candidates, ends):
    """Pattern search(es) on the ``j``-th fixed sample; None when no budget is left."""
    samples_left = s.n_samples - j
    evals_left = oracle.available // n_ps
    share = evals_left // samples_left
    if j > 0 and s.warm_start and ends:
        starts_pool = np.array(ends[-1:])
    else:
        starts_pool = candidates
    if share < len(starts_pool) + 1:
        return None
    fixed = oracle.common_sample(n_ps, antithetic=True)

    def sample_average(X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        W = oracle.draw_common(X, fixed)
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
            scale=task.steps(), coupled=task.exchange_coordinates(),
        )
        out_ends.append(res.x)
        runs.append({"sample": j, "evals": res.n_evals, "polls": res.n_polls,
                     "stopped_by": res.stopped_by, "value": res.value, "step": res.step})
    return {"ends": out_ends, "pool": cache.points()[0], "runs": runs}


SAA_PS = Method(
    name="saa-ps",
    settings_model=SAAPSSettings,
    search=_search,
    summary="space-filling screen and short CEM on common random numbers, projected pattern "
    "searches on four fixed samples of 2,000 antithetic normals in turn, final pick on "
    "12,000 fresh common draws",
)
