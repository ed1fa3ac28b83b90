"""``auto``: the method ``minimize`` runs when none is named - astro's trust region in epochs on
independent samples, and the best of their answers on fresh common draws.

A user with an expensive simulator bets on one run, so the default is built for its worst
replication, not its median (REPRODUCTION.md, "The default"). One search can end badly in
three ways, and each has its remedy here:

* **On an unlucky sample.** A trust region on one growing common sample solves that
  sample's problem; a heavy tail (DGP1's cost has infinite variance) now and then puts the
  sample's optimum far from the true one. So the budget is spent in *epochs*, each an
  :mod:`astro <acfs_cli.methods.astro>` search on its own independent sample, started where
  the previous one ended, on at least as many rows and in a fresh region of astro's first
  radius: the last region narrowed on the last sample's noise, which the new sample does not
  share (retrospective approximation, Pasupathy 2010, with a trust region solving each
  sample's problem). The first epoch takes ``first_share`` of the budget, each later one
  ``growth`` times more, the last what is left.
* **In a stall.** A search that converged on its sample, or stopped moving, leaves the rest
  of the budget to the next epoch, which starts on a larger sample with a fresh region.
* **By a noisy last move.** Within an epoch a move is decided on the whole sample, never on
  a prefix (``tail_fraction`` 1: moves at the end of an allowance decided on a quarter of
  the rows undid good epochs), and the final answer is not the last centre but the best of
  the epochs' answers - their average weighted by rows (solution averaging across
  independent samples), the last, the point one step beyond the last along the line from
  the one before it where COBYQA leads astro's epochs (version 13: epochs still descending a
  valley when the draws ran out point along it; :func:`_ahead`) and the earlier ones -
  compared on ``final_share`` of the budget and what the epochs left, fresh common draws,
  the average kept unless another beats it by a standard error of the paired difference
  (:func:`acfs_cli.kernels.refine.pick`;
  at two standard errors the pick kept a worse average more often than it was misled, and a
  plain argmin was as often misled as helped). Where the epochs agree (fewer than two
  distinct answers) the reserve runs one more epoch instead.

The plan follows astro's own numbers, not a threshold fitted to a study: epochs where the
first one holds ``min_models`` models and their candidates on ``n0`` rows (2 d + 2 points a
derivative-free model, 2 with the simulator's gradient), otherwise one search on the whole
budget (a split budget there only halves the few models a search can afford), and where it
converges on its sample with draws left that pay for four models on its rows, another from
its end on a new sample of at least those rows. So doubling
the budget never switches the method; the same search gets more epochs and larger samples.
The one exception is a search without the simulator's gradient: there a budget too small for
astro's epochs would buy one search of a few models of 2 d + 1 new points each, and auto
runs instead COBYQA in epochs on growing sample averages
(:mod:`acfs_cli.methods.auto_declared`, the search it runs under declarations), which spends
one evaluation a step once its first model stands, wherever its first epoch affords
``auto_declared.STEPS`` (d + 1) evaluations on ``n0`` rows (below, astro's one search): from
``MANY`` dimensions since version 6, in any number since version 9. Without declarations
its epochs start in fresh regions, its first takes at most half of their draws and its last
steps more on fewer rows, and where a first sample of ``n0`` rows would leave no second
epoch its first sample has half as many (version 10;
:func:`acfs_cli.methods.auto_declared.second_epoch`; DESIGN.md, "The default"; since
version 15 a second epoch holds COBYQA's first model and a step, 2 d + 2 evaluations), the final
check weighs the average of the last ends weighted by their rows beside them (version 11;
:func:`acfs_cli.methods.auto_declared.averaged`), and from ``MANY`` dimensions its rows are
stratified pairs (version 15; :func:`_stratifies`).
Where astro's epochs are affordable in ``MANY`` dimensions or more, COBYQA leads them:
``LEAD`` of the budget for COBYQA from x0 on one small sample
(:func:`acfs_cli.methods.auto_declared.lead`), and astro's epochs from its end; there every
common sample is a set of antithetic pairs that form a Latin hypercube, so that a small
sample holds its share of every tail (:func:`_stratifies`, version 8).
From ``MANY`` dimensions, without declarations and without the simulator's gradient, every
search weighs its own samples' CVaR at a level whose tail holds three rows, min(alpha, 1 - 3
/ n) on n rows (``auto_declared.SEARCH_TAIL_ROWS``, version 12; :func:`_tail_rows`): on 20
rows at alpha 0.95 the sample CVaR is one row, and a search on it minimises that scenario;
every answer is still compared and reported at alpha.

Settings: auto's own (the shares and the growth of the epochs) and astro's, passed to every
epoch (unknown keys are errors). The result's notes say the plan, and say when the answer is
limited by the budget rather than by the noise: the last search still descended in its
second half, or the last epoch's answer beat the one before it on the final comparison's
fresh draws by more than two standard errors. ``info`` has the plan, each epoch (draws,
rows, radius, why it ended) and the final comparison.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from acfs_cli.core.oracle import BudgetExhausted, Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.refine import distinct, even, median_of_means, paired_gain, pick
from acfs_cli.methods import auto_declared, whole
from acfs_cli.methods.astro import MOVING, AstroSettings, note_if_moving, start_point
from acfs_cli.methods.astro import search as astro_search
from acfs_cli.methods.base import Method, MethodResult

#: Ends averaged into the first candidate of the final comparison: the last three epochs'.
AVERAGED = 3
#: Candidates of the final comparison (the average, the last end, the point one step beyond
#: it and the earlier ends, distinct).
CANDIDATES = 5
#: Standard errors of the paired difference by which another answer must beat the average.
GUARD = 1.0
#: Fewest rows per candidate that make the final comparison worth its draws.
FINAL_ROWS = 100
#: Dimensions from which COBYQA leads astro's epochs (and their samples are stratified). Below
#: astro's epochs COBYQA's epochs on sample averages run in any dimension without a gradient
#: (version 9; from this many in versions 6-8): measured in 2-3 dimensions on SimOpt's
#: problems at 1,000 draws, 5 and 7 on the shop and the depot at 2,000, 11-16 and 50 before
#: (REPRODUCTION.md, "Version 9").
MANY = 10
#: Share of the budget for COBYQA's lead before astro's epochs from ``MANY`` dimensions
#: without a gradient: half a first epoch, so astro's epochs after it plan as before.
LEAD = 0.15
#: Fresh rows of the lead's check against the start, over the lead's rows.
LEAD_CHECK = 4
#: astro's first sample with the simulator's gradient from ``MANY`` dimensions where a first
#: epoch holds ``min_models`` models on this many rows and not on ``n0`` (version 14; the
#: user's ``n0`` is kept): a model there is its centre and its candidate, and epochs on 10
#: rows, whose norm test adds rows where the gradients' noise needs them, replace one search
#: on 20. Measured on SimOpt's two 13-dimensional networks at 1,000 replications (SAN-1
#: 13.0 / 18.7 -> 1.0 / 1.3 %; REPRODUCTION.md, "Version 14"). At 10,000 replications, where
#: 20 rows already hold epochs, 10 raised SAN-1's worst at lambda 0.7, and on CNTNEWS-1 (1
#: dimension) at 100 the worst rose: so the rule is where the rows decide between one search
#: and epochs, in ``MANY`` dimensions - restrictions chosen after those results.
GRADIENT_ROWS = 10


class AutoSettings(AstroSettings):
    """``auto``: astro's settings for every epoch, and how the budget is shared."""

    first_share: float = Field(0.3, gt=0, lt=1, description="share of the budget for the "
                               "first epoch (each later one growth times more, the last "
                               "what is left)")
    growth: float = Field(2.0, ge=1, description="draws of an epoch over the previous one's")
    final_share: float = Field(0.1, ge=0, lt=1, description="share of the budget kept for the "
                               "final comparison of the epochs' answers")
    tail_fraction: float = Field(1.0, ge=0, le=1, description="astro's, in every epoch: "
                                 "moves are decided on the whole sample (1), the draws it "
                                 "cannot use go to the next epoch or the final comparison")

    def minimum_budget(self, dim: int) -> int:
        """One draw: below astro's minimum the answer is x0, estimated on what the budget
        holds, and the notes say so (the default never refuses a budget)."""
        return 1

    def epochs_affordable(self, budget: int, dim: int, gradient: bool) -> bool:
        """Whether the first epoch holds ``min_models`` models and their candidates on
        ``n0`` rows (else one search takes the whole budget)."""
        per_model = 2 if gradient else 2 * dim + 2
        return self.first_share * budget >= self.min_models * per_model * self.n0


def _stratifies(task: Task, s: AutoSettings) -> bool:
    """Whether auto's common samples (astro's epochs', the lead's, its check's and the final
    comparison's) are antithetic pairs that form a Latin hypercube
    (:func:`~acfs_cli.core.sample.stratified_pairs`): where COBYQA leads astro's epochs,
    ``MANY`` dimensions or more and no simulator gradient. A sample of n rows then holds its
    share of every tail of every normal, where independent pairs of 20 rows hold no
    one-in-twenty shock in 35 % of samples, and a search on such a sample cuts what only the
    shock needs and walks away from the optimum (the ambulance service cut its mutual aid to
    0-3, the optimum 33). Measured in REPRODUCTION.md, "Version 8": in 10-16 dimensions the
    worst seed fell in most problems at 20,000 and 150,000 draws; on DGP1 and DGP2 (6
    dimensions) it was mixed, DGP2's median at 13,000-26,000 draws rose from 0.3 to 0.9 %.
    Not COBYQA's epochs on sample averages of a few rows (below astro's epochs): there the
    one tail row every sample holds decides the search (274 % where plain pairs gave 89 %,
    the delivery platform at 2,000 draws). Their final check's rows are stratified (version
    15): they only rank the epochs' answers, and on plain pairs the answer that cut what a
    rare shock needs looks cheapest wherever the check's few rows hold no shock (measured on
    48 problems of 10-17 decisions at 2,000 and 5,000 draws: REPRODUCTION.md, "Version
    15")."""
    return _cobyqa_leads(task, s)


def _gradient(task: Task, s: AutoSettings) -> bool:
    """Whether the searches use the simulator's gradient."""
    return s.use_gradient and callable(getattr(task, "gradient", None))


def _first_rows(task: Task, oracle: Oracle, s: AutoSettings) -> AutoSettings:
    """auto's settings with astro's first sample of ``GRADIENT_ROWS`` rows where the searches
    use the simulator's gradient in ``MANY`` dimensions or more, the user left ``n0`` at its
    default, and the budget holds epochs on those rows but not on ``n0``; else as given."""
    if "n0" in s.model_fields_set or task.dim_x < MANY or not _gradient(task, s):
        return s
    fewer = s.model_copy(update={"n0": GRADIENT_ROWS})
    budget, d = oracle.budget, task.dim_x
    if s.epochs_affordable(budget, d, True) or not fewer.epochs_affordable(budget, d, True):
        return s
    return fewer


def _cobyqa_leads(task: Task, s: AutoSettings) -> bool:
    """Whether COBYQA leads astro's epochs: ``MANY`` dimensions or more and no simulator
    gradient, where astro's first models cost 2 d + 2 points each."""
    return task.dim_x >= MANY and not _gradient(task, s)


def _tail_rows(task: Task, s: AstroSettings) -> int:
    """Rows each search's sample CVaR weighs at least (:func:`acfs_cli.core.risk.search_level`):
    ``auto_declared.SEARCH_TAIL_ROWS`` from ``MANY`` dimensions without the simulator's
    gradient, none otherwise. Measured (REPRODUCTION.md, "Version 12"): in 10-17 dimensions
    without a gradient the worst seeds fell on the whole at every budget (the geometric mean
    of their ratios 0.93-0.96 on 66 cells, 0.76-0.85 on 10 new ones); in 2-6 dimensions the
    committed studies' worst replications rose (Erlang-A, DGP1 and DGP2 as black boxes), and
    so did SimOpt's two 13-dimensional networks at SimOpt's budget, whose astro epochs use the
    simulator's gradient."""
    if task.dim_x < MANY or _gradient(task, s):
        return 0
    return auto_declared.SEARCH_TAIL_ROWS


def _astro(settings: AutoSettings, **update) -> AstroSettings:
    """astro's settings of an epoch: auto's, with ``update``."""
    own = set(AutoSettings.model_fields) - set(AstroSettings.model_fields)
    return AstroSettings(**{**settings.model_dump(exclude=own), **update})


def _epoch(task: Task, oracle: Oracle, settings: AstroSettings, start, stratified: bool
           ) -> tuple:
    """One astro search: its answer and info (None where the budget stopped it)."""
    try:
        result = astro_search(task, oracle, settings, start=start, stratified=stratified,
                              tail_rows=_tail_rows(task, settings))
    except BudgetExhausted:
        return oracle.incumbent[0], None
    return result.x, result.info


def _search(task: Task, oracle: Oracle, s: AutoSettings, rng: np.random.Generator
            ) -> MethodResult:
    if whole.fine(task, MANY):
        return whole.search(task, oracle, lambda t, o: _search(t, o, s, rng))
    if task.integer or task.constraints:
        return auto_declared.search(task, oracle, s, rng)
    budget, d = oracle.budget, task.dim_x
    s = _first_rows(task, oracle, s)
    need = AstroSettings.minimum_budget(s, d)
    if budget < need:
        return auto_declared.start_only(
            task, oracle, start_point(task), f"a step (a search needs {need:,} on a "
            f"{task.dim_x}-dimensional problem)")
    gradient = _gradient(task, s)
    smallest = 16 * (2 * d + 2)  # four models on four rows: less is no epoch
    if (not s.epochs_affordable(budget, d, gradient) and not gradient
            and (1 - s.final_share) * budget >= auto_declared.STEPS * (d + 1) * s.n0):
        # one astro search would buy a few models of 2 d + 1 new points each; COBYQA spends
        # one evaluation a step once its first model stands, in epochs on growing samples
        # (in a few dimensions too: one astro search there narrows its region on ratio tests
        # its few rows cannot resolve, the users' shop 44 % off at 2,000 draws)
        return auto_declared.search(task, oracle, s, rng, moving=_note_if_epochs_moving,
                                    tail_rows=_tail_rows(task, s),
                                    stratified=_stratifies(task, s))
    if not s.epochs_affordable(budget, d, gradient):
        # One search on the whole budget; where it converges on its sample with draws left,
        # the next starts from its end on a larger sample, so no draw goes unused.
        ends, infos = _next_epoch(task, oracle, s, [], [], None)
        while _continues(oracle, s, d, gradient, infos[-1]):
            ends, infos = _next_epoch(task, oracle, s, ends, infos, None)
        plan = "one search" if len(ends) == 1 else f"one search and {len(ends) - 1} more"
        more = "" if len(ends) == 1 else (f" (and {len(ends) - 1} more from its end on larger "
                                          "samples with the draws it left)")
        oracle.note(f"auto ran one astro search{more}: {budget:,} draws hold fewer than "
                    f"{s.min_models} models on {s.n0} rows in a first epoch")
        note_if_moving(oracle, infos[-1])
        return MethodResult(x=ends[-1], value=oracle.incumbent[1],
                            info={"plan": plan, "chosen": "astro", "epochs": infos})
    ends, infos, share = [], [], s.first_share
    with oracle.reserve(int(s.final_share * budget)):
        if _cobyqa_leads(task, s):
            # astro's first models from x0 cost 2 d + 2 points on n0 rows and more each, so
            # its first epoch buys a few steps; COBYQA's lead spends one evaluation a step on
            # a small sample, and astro's epochs start where it ended
            share = LEAD
            x, record = auto_declared.lead(task, oracle, s, int(LEAD * budget),
                                            _stratifies(task, s), _tail_rows(task, s))
            ends, infos = _checked(task, oracle, x, record, _stratifies(task, s))
        while oracle.available >= smallest:
            planned = share * budget * s.growth ** len(ends)
            last = oracle.available - planned < 0.5 * s.growth * planned
            ends, infos = _next_epoch(task, oracle, s, ends, infos, None if last else planned)
            if last:
                break
    info = {"plan": f"{_ran(infos)} and a final comparison", "chosen": "astro",
            "epochs": infos}
    beyond = _cobyqa_leads(task, s) and len(ends) > 1
    candidates = _candidates(task, ends, infos, beyond=beyond)
    rows = even(oracle.available // max(len(candidates), 1))
    if len(candidates) < 2 or rows < FINAL_ROWS:
        if oracle.available >= smallest and infos and infos[-1].get("rows"):
            # the epochs agree: the reserve runs one more instead of comparing them
            ends, infos = _next_epoch(task, oracle, s, ends, infos, None)
        oracle.note(f"auto ran {_ran(infos)} on independent samples")
        note_if_moving(oracle, infos[-1])
        info.update(plan=_ran(infos), epochs=infos)
        return MethodResult(x=ends[-1], value=oracle.incumbent[1], info=info)
    with oracle.phase("final"):
        # one batch: the plain estimate on every row. Median of means over batches (saa-ps's
        # pick) leaves a few tail rows per batch, and their CVaR estimates are biased by each
        # candidate's own tail: measured on DGP1, DGP2 and the shop (20 replications each
        # at 13,000-65,000 draws), the plain estimate picked better in 5 of the 7 runs
        # where the two differed.
        values, costs = median_of_means(task, oracle, candidates, rows, 1, with_costs=True,
                                        stratified=_stratifies(task, s))
    i = pick(task, values, costs, guard=GUARD)
    oracle.record_best(candidates[i], values[i], replace=True)
    ahead = _ahead(task, ends) if beyond else None
    if ahead is not None and np.array_equal(candidates[i], ahead):
        oracle.note("the final comparison kept the point one step beyond the last epoch's "
                    "answer along the line from the one before it: the epochs were still "
                    "descending when the draws ran out, and more draws would likely improve "
                    "the answer")
    oracle.note(f"auto ran {_ran(infos)} on independent samples and kept the best of "
                f"{len(candidates)} answers on {rows:,} fresh common rows each")
    note_if_moving(oracle, infos[-1])
    _note_if_epochs_moving(task, oracle, candidates, ends, costs)
    info.update(final_values=values.tolist(), final_choice=i,
                final_candidates=candidates.tolist())
    return MethodResult(x=candidates[i], value=float(values[i]), info=info)


def _note_if_epochs_moving(task: Task, oracle: Oracle, candidates: np.ndarray, ends: list,
                           costs: np.ndarray) -> None:
    """Say so where the last epoch's answer beats the one before it on the final comparison's
    fresh rows by more than ``MOVING`` standard errors of the paired difference: the epochs
    were still descending when the draws ran out, so more draws would likely help (each epoch
    ends on its own sample, so within an epoch the search may have stopped while the run as a
    whole still moved)."""
    def at(x) -> int | None:
        hits = [k for k, c in enumerate(candidates) if np.array_equal(c, x)]
        return hits[0] if hits else None

    last, before = at(ends[-1]), at(ends[-2])
    if last is None or before is None or last == before:
        return
    gain, se = paired_gain(task, costs, before, last)
    if gain > MOVING * se:
        oracle.note(f"still moving when the draws ran out (the last epoch's answer beat the "
                    f"one before it by {gain / se:.1f} standard errors of the paired difference "
                    "on fresh draws): the answer is limited by the budget rather than by the "
                    "noise, and more draws would likely improve it")


def _checked(task: Task, oracle: Oracle, x: np.ndarray, record: dict, stratified: bool
             ) -> tuple[list, list]:
    """The lead's end against the start on fresh common rows (``LEAD_CHECK`` times the lead's,
    at least ``FINAL_ROWS``): kept where it beats the start by ``GUARD`` standard errors of
    the paired difference, else dropped and astro's epochs start from the start. A small
    sample can hold none of a heavy tail's extreme rows, and COBYQA then follows a direction
    that only those rows make ruinous (a swap position of 469,000 where the optimum holds 6,
    on the grid as a black box): fresh rows must show the lead's end better than the start."""
    start = start_point(task)
    rows = even(max(FINAL_ROWS, LEAD_CHECK * record["rows"]))
    if np.array_equal(x, start) or oracle.available < 2 * rows:
        return [x], [record]
    with oracle.phase("lead check"):
        values, costs = median_of_means(task, oracle, np.array([start, x]), rows, 1,
                                        with_costs=True, stratified=stratified)
    record = {**record, "check_rows": rows, "check_values": values.tolist()}
    if pick(task, values, costs, guard=GUARD) == 1:
        return [x], [record]
    oracle.note(f"COBYQA's lead did not beat x0 on {rows:,} fresh common rows; astro's "
                "epochs start from x0")
    return [], []


def _ran(infos: list) -> str:
    """What the epochs were: "astro in 3 epochs", or with COBYQA's lead before them."""
    led = bool(infos) and infos[0].get("solver") == "COBYQA"
    n = len(infos) - led
    astro = f"astro in {n} epoch{'s' if n != 1 else ''}"
    return f"COBYQA's lead on {infos[0]['rows']:,} rows and {astro}" if led else astro


def _continues(oracle: Oracle, s: AutoSettings, d: int, gradient: bool, last: dict) -> bool:
    """Whether what a search left pays for another on at least the rows it ended with (four
    models on them, astro's first sample): on fewer rows the next search would solve a
    cruder sample's problem from a better start (at 5,000 draws on impact-portfolio a
    second search on 10 rows, after 72, undid the first)."""
    rows = last.get("rows")
    if not rows or not last["draws"]:
        return False
    per_model = s.points_per_model(oracle.available, d, gradient)
    return oracle.available >= 4 * per_model * rows


def _next_epoch(task: Task, oracle: Oracle, s: AutoSettings, ends: list, infos: list,
                allowance: float | None) -> tuple[list, list]:
    """One more epoch from the last end (x0 first), on at least the rows the last one ended
    with, in a region of astro's first radius; within ``allowance`` draws, or all that is
    available."""
    update = {}
    if infos and infos[-1].get("rows") and infos[-1].get("solver") != "COBYQA":
        # a fresh region on the new sample: the last one narrowed on its own sample's noise
        # (kept, it held the depot's advertising at a third of its optimum through every epoch
        # of a 20,000-draw run)
        update = {"n0": max(s.n0, int(infos[-1]["rows"]))}
    settings = _astro(s, **update)
    start = ends[-1] if ends else None
    used = oracle.used
    with oracle.phase(f"epoch {len(ends) + 1}"):
        if allowance is None:
            x, info = _epoch(task, oracle, settings, start, _stratifies(task, s))
        else:
            with oracle.allowance(int(allowance)):
                x, info = _epoch(task, oracle, settings, start, _stratifies(task, s))
    record = {"draws": oracle.used - used}
    if info is not None:
        record.update({k: info[k] for k in ("rows", "radius", "iterations", "accepted",
                                            "stop_reason", "model", "moving")})
    return [*ends, x], [*infos, record]


def _candidates(task: Task, ends: list, infos: list, beyond: bool = False) -> np.ndarray:
    """The answers the final comparison weighs, first the one it keeps unless beaten: the
    average of the last ends weighted by their rows, the last end, with ``beyond`` the point
    one step beyond it (:func:`_ahead`), the earlier ends (latest first); distinct, at most
    ``CANDIDATES`` with the step beyond and one fewer without it."""
    pool = list(ends[::-1])
    ahead = _ahead(task, ends) if beyond and len(ends) > 1 else None
    if len(ends) > 1:
        pool.insert(0, auto_declared.averaged(
            task, ends, [max(i.get("rows", 1), 1) for i in infos], last=AVERAGED))
        if ahead is not None:
            pool.insert(2, ahead)
    X = np.array(pool)
    return X[distinct(X, CANDIDATES if beyond else CANDIDATES - 1, 1e-6, scale=task.steps())]


def _ahead(task: Task, ends: list) -> np.ndarray | None:
    """One step beyond the last epoch's answer along the line from the one before it,
    projected onto X (None where that is not in X): where the epochs were still descending a
    valley when the draws ran out, their last move points along it, and the final comparison
    weighs the point that move would reach next (version 13). Only where COBYQA leads astro's
    epochs (``MANY`` dimensions or more, no simulator gradient), where their 2 d + 1-point
    models buy each epoch a few iterations: measured on the committed studies in 2-6
    dimensions it raised worst replications (DGP2 at 13,000 and 26,000 draws, the tandem
    queue at 26,000; REPRODUCTION.md, "Version 13"), a restriction chosen after that result."""
    ahead = task.project(2.0 * np.asarray(ends[-1], dtype=float)
                         - np.asarray(ends[-2], dtype=float))
    return ahead if bool(task.is_feasible(ahead)) else None


AUTO = Method("auto", AutoSettings, _search, version="15",
              declared_version="5, under declarations 9", display="Auto",
              summary="the method minimize runs when none is named: astro's trust region in "
              "epochs on independent samples (from 10 dimensions led by COBYQA on a small "
              "sample; COBYQA's epochs on sample averages where the budget holds few models, "
              "one astro search there with a gradient) and the best of their answers on "
              "fresh common draws",
              sample_only="as astro", integer=True, constrained=True)
