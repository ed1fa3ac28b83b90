"""What a user waits for before a first answer: ``import acfs_cli.api``, then one call of
``minimize`` on a small sample-only problem of their own, each in a fresh process.

Cases, each timed as a whole process (``python -c ...``: interpreter start, imports, work)
and repeated in turn so that a change of load on a shared machine falls on every case alike:

* ``import``: ``import acfs_cli.api``;
* ``call``: ``import acfs_cli.api`` and one ``minimize`` of a 2-D sample-only problem
  (unbounded decisions, x0 given) with the default method at 2,000 draws, 2,000 draws for
  the final estimate;
* ``call acfs``: the same with ``method="acfs"`` (its forest imports scikit-learn).

``--src DIR`` times the ``acfs_cli`` package under DIR instead of the installed one (put
first on ``PYTHONPATH``): a checkout of an older commit, to compare
(``git archive COMMIT acfs_cli | tar -x -C /tmp/old``). ``-X importtime`` of the same
import says where the time of one import goes.

    .venv/bin/python benchmarks/bench_import.py --repeats 9
    .venv/bin/python benchmarks/bench_import.py --repeats 9 --src /tmp/old
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PROBLEM = """
import numpy as np

class Shop:
    dim_x, dim_w = 2, 1
    bounds = [(-np.inf, np.inf), (0.0, np.inf)]
    x0 = [0.0, 2.0]

    def sample(self, x, n, rng):
        return (1.0 + 0.5 * x[0] ** 2) * rng.standard_normal((n, 1))

    def cost(self, W, x):
        return np.sum((x - np.array([1.0, 0.5])) ** 2) + W[:, 0]
"""

CASES = {
    "import": "import acfs_cli.api",
    "call": PROBLEM + "from acfs_cli.api import minimize\n"
                      "minimize(Shop(), budget=2000, n_eval=2000)",
    "call acfs": PROBLEM + "from acfs_cli.api import minimize\n"
                           "minimize(Shop(), budget=2000, n_eval=2000, method='acfs')",
}


#: Where the processes run: not a checkout, whose acfs_cli ``python -c`` would import first.
HERE = tempfile.gettempdir()


def timed(code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=HERE)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--src", default=None, help="folder holding the acfs_cli to time")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.src:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [args.src, env.get("PYTHONPATH")]))
    where = subprocess.run([sys.executable, "-c", "import acfs_cli; print(acfs_cli.__file__)"],
                           env=env, capture_output=True, text=True, check=True,
                           cwd=HERE).stdout.strip()
    times: dict[str, list[float]] = {case: [] for case in CASES}
    for _ in range(args.repeats):
        for case, code in CASES.items():
            times[case].append(timed(code, env))
    print(f"acfs_cli from {where}; {args.repeats} repeats; load average "
          f"{os.getloadavg()[0]:.1f}")
    print("| case | median s | min s | max s |\n| --- | ---: | ---: | ---: |")
    for case, values in times.items():
        print(f"| {case} | {statistics.median(values):.2f} | {min(values):.2f} | "
              f"{max(values):.2f} |")


if __name__ == "__main__":
    main()
