"""A user problem declared one decision at a time against the same problem vectorised.

The non-vectorised problem's ``transform``, ``cost`` and ``project`` take one decision; the
normalisation (acfs_cli.core.problem) then calls them decision by decision. The ratio of
CPU seconds per replication (non-vectorised / vectorised) measures that overhead, per method.

    .venv/bin/python benchmarks/bench_vectorized.py --budget 260000 --dim 12
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits


class Vectorised:
    """dim-D, X = [0, 1]^d with sum(x) <= d/3 by its own projection (vectorised); three
    normal components whose means move with x; a cheap numpy cost."""

    vectorized = True

    def __init__(self, dim: int = 12):
        self.dim_x, self.dim_w = dim, 3
        self.target = np.linspace(0.1, 0.9, dim)
        self.cap = dim / 3

    def _means(self, X):
        k = self.dim_x // 3
        return np.stack([X[..., :k].mean(-1), X[..., k:2 * k].mean(-1),
                         X[..., 2 * k:].mean(-1)], axis=-1)

    def transform_batch(self, X, Z):
        return self._means(X)[:, None, :] + Z

    def transform(self, x, z):
        return self._means(x)[None, :] + z

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)
        weights = np.stack([x[..., 0], x[..., 1], x[..., -1]], axis=-1)
        quad = ((x - self.target) ** 2).sum(axis=-1)
        return quad[..., None] + (W * weights[..., None, :]).sum(axis=-1)

    def project(self, x):
        """Box [0, 1] and sum(x) <= cap: clip, then shift by the sorted-breakpoint root."""
        x = np.asarray(x, dtype=float)
        out = np.clip(x, 0.0, 1.0)
        over = out.sum(axis=-1) > self.cap
        if np.any(over):
            v = x[over]
            lo, hi = np.full(len(v), v.min(-1) - 1.0), v.max(-1)
            for _ in range(60):  # bisection on the multiplier, vectorised over points
                mu = 0.5 * (lo + hi)
                s = np.clip(v - mu[:, None], 0.0, 1.0).sum(-1)
                lo, hi = np.where(s > self.cap, mu, lo), np.where(s > self.cap, hi, mu)
            out[over] = np.clip(v - hi[:, None], 0.0, 1.0)
        return out


class OneAtATime(Vectorised):
    """The same problem with every function taking one decision (no ``transform_batch``)."""

    vectorized = False
    transform_batch = None


class Constrained(Vectorised):
    """The same X given as ``bounds`` and ``A x <= b`` (the project's own projection)."""

    project = None

    def __init__(self, dim: int = 12):
        super().__init__(dim)
        self.bounds = [(0.0, 1.0)] * dim
        self.A, self.b = np.ones((1, dim)), np.array([self.cap])


class ConstrainedOneAtATime(Constrained):
    vectorized = False
    transform_batch = None


def main(argv=None) -> None:
    from acfs_cli.methods import METHODS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=260_000)
    ap.add_argument("--dim", type=int, default=12)
    ap.add_argument("--methods", nargs="+", default=sorted(
        m for m in METHODS if m not in ("acfs-noav", "acfs-nocem", "acfs-norerank",
                                        "acfs-noaug")))
    ap.add_argument("--reps", type=int, default=1)
    args = ap.parse_args(argv)
    pairs = {"bounds and A x <= b": (Constrained, ConstrainedOneAtATime),
             "its own project": (Vectorised, OneAtATime)}
    for title, (fast, slow) in pairs.items():
        print(f"X by {title}, dim {args.dim}, budget {args.budget:,}")
        _compare(args, fast, slow)


def _compare(args, fast, slow) -> None:
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.methods import METHODS

    print(f"{'method':10s} {'vectorised s':>13s} {'one at a time s':>16s} {'ratio':>6s}")
    for name in args.methods:
        times = {}
        for cls in (fast, slow):
            problem = cls(args.dim)
            task = Task.from_problem(problem, 0.7, 0.95)
            best = np.inf
            for rep in range(args.reps):
                oracle = Oracle(problem, args.budget, np.random.default_rng(rep))
                with threadpool_limits(1):
                    t = time.process_time()
                    METHODS[name](task, oracle, np.random.default_rng(rep + 100))
                    best = min(best, time.process_time() - t)
            times[cls] = best
        a, b = times[fast], times[slow]
        print(f"{name:10s} {a:13.2f} {b:16.2f} {b / a:6.2f}", flush=True)


if __name__ == "__main__":
    main()
