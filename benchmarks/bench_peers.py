"""The default beside general-purpose optimisers, at the same draw budget, on problems it was
not tuned on (BENCHMARKS.md, "The default beside general-purpose optimisers").

Every method gets ``budget`` simulator draws. ``auto`` is ``minimize(problem, lam, alpha,
budget=B, method="auto", seed=s)`` of ``acfs_cli.api``. The peers minimise the sample average
of J = E[C] + lam CVaR_alpha(C) on one fixed common sample of ``rows`` scenarios (fixed normals
for a problem with ``transform``; for a black box, its generator started from the same seed at
every decision), with ``rows = round(sqrt(budget / 2))`` unless ``--rows`` says otherwise (32,
100 and 274 rows at 2,000, 20,000 and 150,000 draws), so ``budget // rows`` evaluations (62,
200, 547): ``ngopt`` and ``cma`` (nevergrad), ``tpe`` (optuna), ``skopt`` (scikit-optimize's
``forest_minimize``; ``skopt-gp``, its ``gp_minimize``, runs only when named). They search a
box: a side open above is closed at 3 x0 (acfs does without); each starts at x0 (its first
evaluation) and answers with its recommendation (nevergrad) or its best evaluated point
(optuna, scikit-optimize), which costs no more draws.

Every answer x is scored by its gap to the optimum, 100 (J(x) - J(x*)) / |J*| in %, J(x) and
J(x*) estimated on one large fresh sample of ``--eval-rows`` rows, the same for every method
(paired), with x* and J* from ``benchmarks/heldout/optima.json`` (``find_optima.py``: found without
acfs for every held-out problem of ``PROBLEMS``, listed in ``benchmarks/heldout/README.md``, and
for the ``depot``; the package's reference for the ``shop``; changes to the default are tried
on the problems of ``JUDGED`` and judged on the others, the README there saying which version
has run which).
Results (x, draws, CPU, J on the scoring sample) are cached per (problem, method, budget,
seed) in ``benchmarks/peers/results.json``, the default's with its code version: a rerun
resumes and computes again the default's answers of an older version, ``--table`` only prints
the tables (gaps recomputed from the cached J and the optimum).

    nice -n 15 .venv/bin/python benchmarks/bench_peers.py --budgets 2000 20000 --seeds 8
    nice -n 15 .venv/bin/python benchmarks/bench_peers.py --budgets 150000 \\
        --problems hub clinic --methods auto ngopt
    .venv/bin/python benchmarks/bench_peers.py --table        # the markdown tables

``hub-box`` and ``clinic-box`` are the held-out problems offered as black boxes (``sample``
only, its normals drawn from the generator given; :class:`BlackBox`), scored against their
problems' optima:

    nice -n 5 .venv/bin/python benchmarks/bench_peers.py --problems hub-box clinic-box \
        --methods auto ngopt tpe --budgets 2000 20000 150000 --seeds 8

Needs the ``bench`` extra (``pip install -e .[bench]``: nevergrad, optuna) for the peers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "benchmarks" / "heldout"
USERS = ROOT / "benchmarks" / "users"
RESULTS = ROOT / "benchmarks" / "peers" / "results.json"
TUNING = ROOT / "benchmarks" / "tuning"
sys.path[:0] = [str(ROOT), str(HELDOUT), str(USERS), str(TUNING)]

from saa import SampleAverage, box  # noqa: E402

#: name -> (module, class); the risk setting and the optimum come from optima.json
PROBLEMS = {"hub": ("hub", "Hub"), "clinic": ("clinic", "Clinic"), "fleet": ("fleet", "Fleet"),
            "shop": ("shop", "Shop"), "depot": ("depot", "Depot"), "grid": ("grid", "Grid"),
            "warehouse": ("warehouse", "Warehouse"), "ward": ("ward", "Ward"),
            "fleetlease": ("fleetlease", "FleetLease"),
            "callcentre": ("callcentre", "CallCentre"), "refinery": ("refinery", "Refinery"),
            "bloodbank": ("bloodbank", "BloodBank"), "cloud": ("cloud", "Cloud"),
            "port": ("port", "Port"), "delivery": ("delivery", "Delivery"),
            "ems": ("ems", "Ems"), "water": ("water", "Water"), "fab": ("fab", "Fab"),
            "bikeshare": ("bikeshare", "BikeShare"), "ski": ("ski", "Ski"),
            "insurer": ("insurer", "Insurer"), "dairy": ("dairy", "Dairy"),
            "airline": ("airline", "Airline"), "harvest": ("harvest", "Harvest"),
            "transit": ("transit", "Transit"), "fashion": ("fashion", "Fashion"),
            "mine": ("openpit", "Mine"), "park": ("themepark", "ThemePark"),
            "power": ("power", "Power"), "hotel": ("hotel", "Hotel"),
            "ridehail": ("ridehail", "RideHail"),
            "toymaker": ("toymaker", "ToyMaker"),
            "fluvaccine": ("fluvaccine", "FluVaccine"),
            "lender": ("lender", "Lender"),
            "carrental": ("carrental", "CarRental"),
            "festival": ("festival", "Festival"),
            "streaming": ("streaming", "Streaming"),
            "bakery": ("bakery", "Bakery"),
            "ferry": ("ferry", "Ferry"),
            "parcel": ("parcel", "Parcel"),
            "windfarm": ("windfarm", "WindFarm"),
            "mealkit": ("mealkit", "MealKit"),
            "evcharge": ("evcharge", "EvCharge"),
            "testlab": ("testlab", "TestLab"),
            "checkpoint": ("checkpoint", "Checkpoint"),
            "fishery": ("fishery", "Fishery"),
            "wildfire": ("wildfire", "Wildfire"),
            "recycling": ("recycling", "Recycling"),
            "telecom": ("telecom", "Telecom"),
            "snow": ("snow", "Snow"),
            "university": ("university", "University"),
            "rail": ("rail", "Rail"),
            "homecare": ("homecare", "HomeCare"),
            "aircargo": ("aircargo", "AirCargo"),
            "spares": ("spares", "Spares"),
            "deicing": ("deicing", "Deicing")}
#: The held-out problems offered as black boxes (``sample`` only): "<name>-box"; every problem
#: but the tuning problem and the users' shop and depot.
BOXED = tuple(name for name in PROBLEMS if name not in ("fleet", "shop", "depot"))
PROBLEMS.update({f"{name}-box": PROBLEMS[name] for name in BOXED})
#: The problems the default is judged on (``fleet`` is where changes are tried first).
JUDGED = ("hub", "clinic", "grid", "warehouse", "ward", "fleetlease", "shop", "depot")
METHODS = ("auto", "ngopt", "cma", "tpe", "skopt")
BUDGETS = (2_000, 20_000, 150_000)
#: The seed of the scoring sample (the same for every method and budget).
EVAL_SEED = 9_001


def load_problem(name: str):
    import importlib

    module, cls = PROBLEMS[name]
    problem = getattr(importlib.import_module(module), cls)()
    return BlackBox(problem) if name.endswith("-box") else problem


def optimum_of(name: str) -> str:
    """The entry of optima.json of ``name`` (a black box has its problem's optimum)."""
    return name.removesuffix("-box")


class BlackBox:
    """A problem with ``transform`` offered as a sample-only simulator, as a user's simulator
    that draws its own random numbers would be: ``sample(x, n, rng)`` draws the normals from
    the generator it is given, then transforms them (the same law, no supplied normals, no
    antithetic pairs)."""

    vectorized = True

    def __init__(self, problem):
        self.problem = problem
        self.name = f"{problem.name}-box"
        self.dim_x, self.dim_w = problem.dim_x, problem.dim_w
        self.bounds, self.x0 = problem.bounds, problem.x0

    def sample(self, x, n, rng):
        return self.problem.transform(x, rng.standard_normal((n, self.dim_w)))

    def cost(self, W, x):
        return self.problem.cost(W, x)


def optima() -> dict:
    return json.loads((HELDOUT / "optima.json").read_text())


def tag(name: str) -> int:
    return zlib.crc32(name.encode())


def default_rows(budget: int) -> int:
    return max(10, round(np.sqrt(budget / 2)))


# ---- the methods: each returns (x, draws) ------------------------------------------------

def run_auto(problem, lam, alpha, budget, seed, rows, **settings):
    from acfs_cli.api import minimize

    sol = minimize(problem, lam=lam, alpha=alpha, budget=budget, method="auto", seed=seed,
                   n_eval=4_000, **settings)
    return np.asarray(sol.x, float), int(sol.draws_used)


def is_auto(method: str) -> bool:
    """Whether ``method`` is the default (``auto``, or ``auto key=value ...``)."""
    return method.split()[0] == "auto"


def runner(method: str):
    """The runner of ``method``: a peer's name, ``auto``, or ``auto key=value ...`` (the
    default with settings, to try a change on the tuning problem)."""
    name, *items = method.split()
    if name != "auto" or not items:
        return RUNNERS[method]
    settings = {k: json.loads(v) for k, v in (item.split("=", 1) for item in items)}
    return lambda *args: run_auto(*args, **settings)


def _nevergrad(kind):
    def run(problem, lam, alpha, budget, seed, rows):
        import nevergrad as ng

        f = SampleAverage(problem, lam, alpha, rows, [seed, tag(problem.name)])
        evals = budget // rows
        low, high = box(problem)
        # bounds given to the constructor: its steps then span the box (sigma a sixth of each
        # side), not one unit of every coordinate
        param = ng.p.Array(init=np.clip(problem.x0, low, high), lower=low, upper=high)
        param.random_state = np.random.RandomState(seed)
        opt = ng.optimizers.registry[kind](parametrization=param, budget=evals, num_workers=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy's COBYLA on an end radius nevergrad sets
            for _ in range(evals):
                cand = opt.ask()
                opt.tell(cand, f(cand.value))
        return np.asarray(opt.recommend().value, float), f.calls * rows
    return run


def auto_version() -> str:
    """The default's code version: a cached answer of another version is computed again."""
    from acfs_cli.methods.auto import AUTO

    return AUTO.version


def run_tpe(problem, lam, alpha, budget, seed, rows):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    f = SampleAverage(problem, lam, alpha, rows, [seed, tag(problem.name)])
    low, high = box(problem)
    names = [f"x{i}" for i in range(problem.dim_x)]
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
    study.enqueue_trial(dict(zip(names, np.clip(problem.x0, low, high).tolist(), strict=True)))

    def objective(trial):
        return f(np.array([trial.suggest_float(n, lo, hi)
                           for n, lo, hi in zip(names, low, high, strict=True)]))

    study.optimize(objective, n_trials=budget // rows)
    return np.array([study.best_params[n] for n in names]), f.calls * rows


def _skopt(kind):
    def run(problem, lam, alpha, budget, seed, rows):
        import skopt

        f = SampleAverage(problem, lam, alpha, rows, [seed, tag(problem.name)])
        low, high = box(problem)
        evals = budget // rows
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = getattr(skopt, kind)(
                lambda x: f(np.asarray(x, float)),
                list(zip(low.tolist(), high.tolist(), strict=True)), n_calls=evals,
                x0=np.clip(problem.x0, low, high).tolist(), n_initial_points=min(10, evals),
                random_state=seed)
        return np.asarray(res.x, float), f.calls * rows
    return run


RUNNERS = {"auto": run_auto, "ngopt": _nevergrad("NGOpt"), "cma": _nevergrad("CMA"),
           "tpe": run_tpe, "skopt": _skopt("forest_minimize"), "skopt-gp": _skopt("gp_minimize")}


# ---- the cache and the score ---------------------------------------------------------------

def key(problem: str, method: str, budget: int, seed: int) -> str:
    return f"{problem}|{method}|{budget}|{seed}"


def load() -> dict:
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {}


def save(results: dict) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    tmp = RESULTS.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=0, sort_keys=True) + "\n")
    os.replace(tmp, RESULTS)


class Scorer:
    """J on the common scoring sample, and the gap of a J to the optimum's J on it."""

    def __init__(self, eval_rows: int):
        self.eval_rows = eval_rows
        self.opt = optima()
        self._star = {}

    def J(self, name, problem, x) -> float:
        o = self.opt[optimum_of(name)]
        f = SampleAverage(problem, o["lam"], o["alpha"], self.eval_rows, [EVAL_SEED, tag(name)])
        return f(np.asarray(x, float))

    def gap(self, name, J) -> float:
        """100 (J - J(x*)) / |J*|, J(x*) on the same scoring sample (computed once)."""
        if name not in self._star:
            self._star[name] = self.J(name, load_problem(name),
                                      self.opt[optimum_of(name)]["x_star"])
        return 100.0 * (J - self._star[name]) / abs(self.opt[optimum_of(name)]["J_star"])


def run(args) -> None:
    results = load()
    scorer = Scorer(args.eval_rows)
    for budget in args.budgets:
        rows = args.rows or default_rows(budget)
        for method in args.methods:
            for name in args.problems:
                problem = load_problem(name)
                o = scorer.opt[optimum_of(name)]
                lam, alpha = o["lam"], o["alpha"]
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    k = key(name, method, budget, seed)
                    rec = results.get(k)
                    want = None if is_auto(method) else rows
                    version = auto_version() if is_auto(method) else None
                    if rec is None or rec["rows"] != want or rec.get("version") != version:
                        t0, w0 = time.process_time(), time.perf_counter()
                        try:
                            x, draws = runner(method)(problem, lam, alpha, budget, seed,
                                                      rows)
                        except ModuleNotFoundError as exc:
                            raise SystemExit(f"bench_peers: {method} needs the bench extra "
                                             f"(pip install -e '.[bench]'): {exc}") from None
                        rec = {"x": x.tolist(), "draws": draws,
                               "cpu_s": round(time.process_time() - t0, 2),
                               "wall_s": round(time.perf_counter() - w0, 2), "rows": want,
                               "version": version}
                    elif rec.get("eval_rows") == args.eval_rows:
                        continue
                    if rec["draws"] > budget:
                        raise SystemExit(f"{k}: {rec['draws']} draws over the budget {budget}")
                    rec["J"] = scorer.J(name, problem, rec["x"])
                    rec["gap"] = scorer.gap(name, rec["J"])
                    rec["eval_rows"] = args.eval_rows
                    results[k] = rec
                    save(results)
                    print(f"{k}: gap {rec['gap']:.2f} %, {rec['draws']} draws, "
                          f"{rec['cpu_s']} s CPU", flush=True)


def table(results: dict, problems, methods, budgets, eval_rows: int, seeds=None) -> str:
    """Median / worst gap (and the seeds) per problem and budget, then the median CPU; over
    the cached ``seeds`` only, where given (a cell run on more seeds keeps its table)."""
    scorer = Scorer(eval_rows)
    out = ["| problem | draws | " + " | ".join(methods) + " |",
           "| --- | ---: | " + " | ".join("---:" for _ in methods) + " |"]
    cpu = {}
    for name in problems:
        for budget in budgets:
            cells, any_ = [], False
            for method in methods:
                version = auto_version() if is_auto(method) else None
                recs = [r for k, r in results.items()
                        if k.startswith(f"{name}|{method}|{budget}|")
                        and (seeds is None or int(k.rsplit("|", 1)[1]) in seeds)
                        and r.get("eval_rows") == eval_rows and r.get("version") == version]
                if not recs:
                    cells.append("")
                    continue
                any_ = True
                gaps = np.array([scorer.gap(name, r["J"]) for r in recs])
                cells.append(f"{np.median(gaps):.1f} / {gaps.max():.1f} ({len(gaps)})")
                cpu.setdefault((method, budget), []).extend(r["cpu_s"] for r in recs)
            if any_:
                out.append(f"| {name} | {budget:,} | " + " | ".join(cells) + " |")
    out += ["", "Median CPU seconds of one run (all problems):", "",
            "| draws | " + " | ".join(methods) + " |",
            "| ---: | " + " | ".join("---:" for _ in methods) + " |"]
    for budget in budgets:
        cells = [f"{np.median(cpu[(m, budget)]):.1f}" if (m, budget) in cpu else ""
                 for m in methods]
        if any(cells):
            out.append(f"| {budget:,} | " + " | ".join(cells) + " |")
    return "\n".join(out)


#: The peers the goals compare the default with (scikit-optimize's ``skopt`` where it ran).
PEERS = ("ngopt", "cma", "tpe", "skopt")


def goals(results: dict, problems, eval_rows: int, seeds) -> str:
    """The issue's goals per problem, from the cache: at 2,000 draws the default's worst seed
    below every peer's; at 20,000 its median and worst no worse than the best peer's (each
    the lowest of any peer); at 150,000 at most 1 % median and 2 % worst; and its worst seed
    never higher at a larger budget. A peer counts where it ran every seed; "-" where the
    default or every peer has no runs."""
    scorer = Scorer(eval_rows)

    def gaps(name, method, budget):
        version = auto_version() if is_auto(method) else None
        recs = [results.get(key(name, method, budget, s)) for s in seeds]
        if any(r is None or r.get("eval_rows") != eval_rows or r.get("version") != version
               for r in recs):
            return None
        return np.array([scorer.gap(name, r["J"]) for r in recs])

    out = ["| problem | 2,000: auto / best peer worst | 20,000: auto / best peer | "
           "150,000: auto | worst never rises |",
           "| --- | --- | --- | --- | --- |"]
    tally = {k: [0, 0] for k in ("2,000", "20,000", "150,000", "worst never rises")}

    def mark(what, ok):
        tally[what][0 if ok else 1] += 1
        return "met" if ok else "**missed**"

    for name in problems:
        a = {b: gaps(name, "auto", b) for b in BUDGETS}
        peers = {b: [g for m in PEERS if (g := gaps(name, m, b)) is not None] for b in BUDGETS}
        row = [name]
        lo = a[2_000]
        if lo is None or not peers[2_000]:
            row.append("-")
        else:
            best = min(g.max() for g in peers[2_000])
            row.append(f"{lo.max():.1f} / {best:.1f} {mark('2,000', lo.max() < best)}")
        mid = a[20_000]
        if mid is None or not peers[20_000]:
            row.append("-")
        else:
            bm = min(np.median(g) for g in peers[20_000])
            bw = min(g.max() for g in peers[20_000])
            ok = np.median(mid) <= bm and mid.max() <= bw
            row.append(f"{np.median(mid):.1f} / {mid.max():.1f}; {bm:.1f} / {bw:.1f} "
                       f"{mark('20,000', ok)}")
        hi = a[150_000]
        row.append("-" if hi is None else f"{np.median(hi):.1f} / {hi.max():.1f} "
                   f"{mark('150,000', np.median(hi) <= 1 and hi.max() <= 2)}")
        worst = [a[b].max() for b in BUDGETS if a[b] is not None]
        row.append("-" if len(worst) < 2 else mark("worst never rises",
                                                   all(np.diff(worst) <= 0)))
        out.append("| " + " | ".join(row) + " |")
    out += ["", "| goal | met | missed |", "| --- | ---: | ---: |"]
    out += [f"| {k} | {v[0]} | {v[1]} |" for k, v in tally.items()]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="acfs's default beside nevergrad, optuna and scikit-optimize on a sample "
                    "average, at the same draw budget; gap to the optimum in %, median / worst "
                    "over seeds (cached in benchmarks/peers/results.json).")
    ap.add_argument("--problems", nargs="+", default=list(JUDGED), choices=list(PROBLEMS),
                    help="problems (default the four the default is judged on; fleet is the "
                    "tuning problem)")
    ap.add_argument("--methods", nargs="+", default=list(METHODS),
                    help="methods (default all but skopt-gp, scikit-optimize's gp_minimize); "
                    "'auto key=value ...' runs the default with settings")
    ap.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS[:2]),
                    help="draw budgets (default 2000 20000)")
    ap.add_argument("--seeds", type=int, default=8, help="seeds per cell (default 8)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--rows", type=int, default=0,
                    help="rows of the peers' common sample (default round(sqrt(budget / 2)))")
    ap.add_argument("--eval-rows", type=int, default=200_000,
                    help="rows of the common scoring sample (default 200000)")
    ap.add_argument("--table", action="store_true", help="only print the tables of the cache")
    ap.add_argument("--goals", action="store_true", help="only print, from the cache, each "
                    "problem's goals at 2,000, 20,000 and 150,000 draws, met or missed")
    args = ap.parse_args(argv)
    for method in args.methods:
        if method not in RUNNERS and not is_auto(method):
            ap.error(f"unknown method {method!r}: one of {', '.join(RUNNERS)} or 'auto k=v'")
    if any(b < 100 for b in args.budgets) or args.seeds < 1 or args.rows < 0:
        ap.error("budgets must be at least 100 draws, seeds at least 1, rows not negative")
    if args.goals:
        print(goals(load(), args.problems, args.eval_rows,
                    range(args.first_seed, args.first_seed + args.seeds)))
        return 0
    if not args.table:
        run(args)
    print(table(load(), args.problems, args.methods, sorted(args.budgets), args.eval_rows,
                range(args.first_seed, args.first_seed + args.seeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
