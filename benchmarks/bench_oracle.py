"""Oracle throughput: generating and costing scenarios of DGP1 and DGP2 on one core.

Run with ``.venv/bin/python benchmarks/bench_oracle.py`` (``--repeats`` to change the number
of timed repeats). BLAS and OpenMP are pinned to one thread; each figure is the median over
the repeats of the mean time of a block of calls, in this thread's CPU time and in wall time
(equal on a quiet machine; on a shared one the CPU time is the one-core figure).
Cases, for each benchmark:

* ``draw+cost n=450`` / ``n=2000``: one oracle request of n scenarios at one decision, then
  the cost of every scenario (ACFS Phase 3-4 rescoring, ``n_d = 450``);
* ``design 1200x1``: one batched request of 1,200 different decisions with one scenario each,
  then their costs (ACFS Phase 1's LHD);
* ``cost only``: re-costing 2,000 cached scenarios at one decision (free for methods);
* ``re-cost 13x450``: 13 decisions re-costed on one cached W (a central-difference gradient).

Targets (one core, exact t quantiles): n = 450 at one x in <= 1.5 ms (DGP1) and
<= 0.3 ms (DGP2); 1,200 designs with one scenario each in <= 8 ms (DGP1), <= 4 ms (DGP2).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

from acfs_cli.core.oracle import MAX_BUDGET, Oracle
from acfs_cli.problems import get_problem

X_REF = np.array([0.1828, 0.1158, 0.0761, 0.2812, 0.0229, 0.2648])
TARGET_MS = {
    ("dgp1", "draw+cost n=450"): 1.5,
    ("dgp2", "draw+cost n=450"): 0.3,
    ("dgp1", "design 1200x1"): 8.0,
    ("dgp2", "design 1200x1"): 4.0,
}


def timed(fn, repeats: int, block: int) -> tuple[float, float]:
    """Medians over ``repeats`` of the mean (CPU, wall) seconds per call over ``block`` calls.

    CPU time is this thread's own (``time.thread_time``): on a shared machine the wall clock
    also counts the time the scheduler gives to other processes, the CPU clock does not.
    """
    fn()  # warm caches and lazy imports
    cpu, wall = [], []
    for _ in range(repeats):
        c0, w0 = time.thread_time(), time.perf_counter()
        for _ in range(block):
            fn()
        cpu.append((time.thread_time() - c0) / block)
        wall.append((time.perf_counter() - w0) / block)
    return statistics.median(cpu), statistics.median(wall)


def cases(name: str, rng: np.random.Generator):
    """(label, function, scenarios per call, cost evaluations per call)."""
    problem = get_problem(name)
    oracle = Oracle(problem, MAX_BUDGET, rng)
    X = problem.design(rng.random((1200, 6)))
    W = problem.sample(X_REF, 2000, rng)
    W450 = W[:450]
    X13 = problem.project(X_REF + 1e-4 * np.vstack([np.zeros(6), np.eye(6), -np.eye(6)]))

    def draw_cost(n):
        return lambda: problem.cost(oracle.draw(X_REF, n), X_REF)

    return [
        ("draw+cost n=450", draw_cost(450), 450, 450),
        ("draw+cost n=2000", draw_cost(2000), 2000, 2000),
        ("design 1200x1", lambda: problem.cost(oracle.draw_batch(X, 1), X), 1200, 1200),
        ("cost only 2000", lambda: problem.cost(W, X_REF), 0, 2000),
        ("re-cost 13x450", lambda: problem.cost(W450, X13), 0, 13 * 450),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=41, help="timed repeats per case")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, 1 BLAS thread")
    print(
        f"median of {args.repeats} repeats; ms per call (generate + cost unless noted); "
        "targets judged on CPU time\n"
    )
    header = (
        f"{'dgp':5} {'case':18} {'cpu ms':>8} {'wall ms':>8} {'scen/s':>11} {'costs/s':>11} "
        f"{'target':>7} {'ok':>3}"
    )
    print(header)
    print("-" * len(header))
    failed = []
    with threadpool_limits(1):
        for name in ("dgp1", "dgp2"):
            rng = np.random.default_rng(args.seed)
            for label, fn, scen, costs in cases(name, rng):
                # Blocks of about 20 ms keep the timer's resolution irrelevant.
                once = timed(fn, 3, 1)[0]
                block = max(1, int(0.02 / max(once, 1e-6)))
                sec, wall = timed(fn, args.repeats, block)
                target = TARGET_MS.get((name, label))
                ok = "" if target is None else ("yes" if sec * 1e3 <= target else "NO")
                if ok == "NO":
                    failed.append((name, label))
                scen_s = f"{scen / sec:11,.0f}" if scen else f"{'-':>11}"
                print(
                    f"{name:5} {label:18} {sec * 1e3:8.3f} {wall * 1e3:8.3f} {scen_s} "
                    f"{costs / sec:11,.0f} {'' if target is None else f'{target:.1f}':>7} "
                    f"{ok:>3}"
                )
    if failed:
        print("\nmissed targets:", ", ".join(f"{n} {c}" for n, c in failed))


if __name__ == "__main__":
    main()
