"""Convergence of :func:`acfs_cli.api.minimize`'s solutions, for a notebook or a script.

Kept apart from :mod:`acfs_cli.api` so that importing the API does not import matplotlib.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _labelled(runs: Sequence[Any]) -> list[tuple[str, list[Any]]]:
    """Each run as (label, solutions): a solution, a list of them, or a (label, either)
    pair; an unlabelled run is labelled by its method. Runs of one label are merged.
    A solution is anything with a ``trajectory``, a ``method`` and a final ``J`` with its
    interval (as :class:`acfs_cli.api.Solution`), so this module imports nothing of the API
    that imports it."""
    groups: dict[str, list[Any]] = {}
    for run in runs:
        if isinstance(run, tuple) and len(run) == 2 and isinstance(run[0], str):
            label, body = run
        else:
            label, body = None, run
        solutions = [body] if _is_solution(body) else list(body)
        if not solutions or not all(_is_solution(s) for s in solutions):
            raise TypeError("plot_convergence takes Solutions, lists of them or (label, "
                            "Solution or list) pairs")
        groups.setdefault(label or solutions[0].method, []).extend(solutions)
    return list(groups.items())


def _is_solution(obj: Any) -> bool:
    return all(hasattr(obj, name) for name in ("trajectory", "method", "J", "J_lo", "J_hi"))


def steps(solution) -> tuple[np.ndarray, np.ndarray]:
    """The incumbent's value against the draws used, held to the end of the search."""
    draws = [d for d, _, _ in solution.trajectory]
    values = [v for _, _, v in solution.trajectory]
    if draws and solution.draws_used > draws[-1]:
        draws.append(solution.draws_used)
        values.append(values[-1])
    return np.asarray(draws, dtype=float), np.asarray(values, dtype=float)


#: Where ``logx`` is not given, the draws axis is logarithmic when the largest draws count
#: is more than this many times the smallest positive one.
LOG_SPAN = 10.0


def _spans_a_decade(draws: np.ndarray) -> bool:
    """Whether the largest draws count is more than :data:`LOG_SPAN` times the smallest
    positive one."""
    positive = draws[draws > 0]
    return len(positive) > 0 and bool(positive.max() > LOG_SPAN * positive.min())


def plot_convergence(*runs, ax=None, interval: bool = True, logx: bool | None = None,
                     J_star: float | None = None):
    """The method's own value of each incumbent against the draws used (a step line per
    solution), and each solution's final J - a fresh estimate - with its 95 % interval.

    Parameters
    ----------
    *runs
        :class:`~acfs_cli.api.Solution` objects, lists of them, or ``(label, solution or
        list)`` pairs. One colour per label; an unlabelled run is labelled by its method.
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure's axes by default).
    interval : bool
        Draw the final J's interval (``J_lo`` to ``J_hi``) as an error bar.
    logx : bool, optional
        A logarithmic draws axis (pandas' ``DataFrame.plot(logx=...)``; the same as
        ``ax.set_xscale("log")`` afterwards). By default it is logarithmic where the draws
        span more than a decade - a search's incumbents change most on its first few
        hundred draws - and linear otherwise. An incumbent recorded before the first draw
        is then held from the axis's left edge.
    J_star : float, optional
        The optimum's J, where it is known (a closed form, ``acfs reference``): a dashed
        horizontal line labelled J*.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    groups = _labelled(runs)
    if not groups:
        raise ValueError("plot_convergence needs at least one solution")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.0))
    colours = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    spans = []
    for k, (label, solutions) in enumerate(groups):
        colour = colours[k % len(colours)]
        for i, sol in enumerate(solutions):
            draws, values = steps(sol)
            spans.append(np.append(draws, sol.draws_used))
            ax.step(draws, values, where="post", color=colour, lw=1.2, alpha=0.8,
                    label=label if i == 0 else None)
            if interval and np.isfinite(sol.J):
                err = np.array([[sol.J - sol.J_lo], [sol.J_hi - sol.J]])
                ax.errorbar([sol.draws_used], [sol.J], yerr=err if np.all(np.isfinite(err))
                            else None, fmt="o", color=colour, ms=4, capsize=3)
    if J_star is not None:
        ax.axhline(float(J_star), color="0.3", ls="--", lw=1, label="J*")
    if logx is None:
        logx = _spans_a_decade(np.concatenate(spans))
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("draws used")
    ax.set_ylabel("J: incumbent (method's estimate), final (fresh, 95 %)")
    ax.legend(frameon=False)
    return ax
