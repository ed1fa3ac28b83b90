"""``acfs solve PROBLEM``: one problem, no configuration - ``minimize`` from the command line,
and its answer printed."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from acfs_cli.cli.common import EXIT_FAILED_CELLS, EXIT_INTERRUPTED, console, fail


def solve(
    problem: Annotated[
        str,
        typer.Argument(help="A problem's name (dgp1, simopt:CNTNEWS-1), yours by import path "
                       "(shop:Shop, importable from this folder) or a file (shop.py:Shop, "
                       "models/shop.py:Shop), as minimize and a configuration take it.",
                       show_default=False, metavar="PROBLEM"),
    ],
    budget: Annotated[int, typer.Option("--budget", "-b", help="Draws the search may take "
                                        "from the simulator.")] = 260_000,
    lam: Annotated[float, typer.Option("--lam", "--lambda", help="Weight of the CVaR in J = "
                                       "E[C] + lam CVaR.")] = 0.7,
    alpha: Annotated[float, typer.Option("--alpha", help="Level of the CVaR.")] = 0.95,
    method: Annotated[
        str | None, typer.Option("--method", "-m", help="A method's name or yours by import "
                                 "path (default: auto, astro in epochs).", show_default=False)
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Base seed of every random stream.")] = 0,
    x0: Annotated[
        str | None, typer.Option("--x0", help="Where the search starts, in place of the "
                                 "problem's own: numbers separated by commas (1.5,0,2).",
                                 show_default=False)
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="A setting of the method, "
                                       "NAME=VALUE (repeat for more): n_a=600.",
                                       show_default=False)
    ] = None,
    problem_param: Annotated[
        list[str] | None, typer.Option("--problem-param", help="A parameter of the problem's "
                                       "constructor, NAME=VALUE (repeat for more).",
                                       show_default=False)
    ] = None,
    n_eval: Annotated[int, typer.Option("--n-eval", help="Fresh draws behind the reported J, "
                                        "outside the budget.")] = 20_000,
    n_jobs: Annotated[
        int | None, typer.Option("--n-jobs", "-j", help="Local worker processes that simulate "
                                 "the draws (-1: one per core; no more than the cores unless "
                                 "the simulator waits). The answer does not change.",
                                 show_default=False)
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Simulate the draws on the Dask cluster "
                                 "of this scheduler (tcp://HOST:8786); --n-jobs then caps the "
                                 "workers a request is spread over.", show_default=False)
    ] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Wall-clock seconds for the search: past "
                                   "them it answers with its best decision so far (and says "
                                   "so); the final estimate is made as always.",
                                   show_default=False)
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Minimise J on one problem and print the answer: x*, J with its 95 % interval, J at the
    start x0, the draws used, the method that ran and its notes.

    The same as `minimize(PROBLEM, lam, alpha, budget, method, seed, x0=..., n_jobs=...,
    scheduler=..., timeout=..., **params)` in Python; a grid of problems, methods and
    replications is `acfs run CONFIG`.

    [bold]Examples[/bold]

      acfs solve examples/shelf_space.py:ShelfSpace -b 20000 --lam 0.7

      acfs solve dgp1 --budget 26000 --method astro --seed 3

      acfs solve examples/shelf_space.py:ShelfSpace -m astro -p kappa=2

      acfs solve examples/shelf_space.py:ShelfSpace --x0 0.5,0.5 -j 2

      acfs solve dgp2 --budget 260000 --timeout 60
    """
    from acfs_cli.parallel import check_jobs, close_workers
    from acfs_cli.problems import get_problem  # the grammar of every door

    settings = _assignments(param, "--param")
    params = _assignments(problem_param, "--problem-param")
    start = _decision(x0)
    show = not quiet and sys.stderr.isatty()
    client = None
    try:
        check_jobs(n_jobs, "--n-jobs")
        target = get_problem(problem, **params)
        if scheduler is not None:
            from acfs_cli.parallel.cluster import connect

            client = connect(scheduler, "--scheduler")
        from acfs_cli.api import minimize

        sol = minimize(target, lam=lam, alpha=alpha, budget=budget, method=method, seed=seed,
                       x0=start, n_eval=n_eval, progress=show, n_jobs=n_jobs,
                       scheduler=client, timeout=timeout, **settings)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except (ValueError, TypeError) as exc:  # the input: a name, a value, a problem's shape
        raise fail(str(exc)) from None
    except Exception as exc:  # the simulator's or the method's fault, said in one line
        raise fail(f"{type(exc).__name__}: {exc}", EXIT_FAILED_CELLS) from None
    finally:  # the command ends here: no worker is kept for a next run
        close_workers()
        if client is not None:
            client.close()
    for line in answer_lines(sol, target.name, start if start is not None else target.x0):
        console().print(line, markup=False, highlight=False, soft_wrap=True)


def _assignments(items: list[str] | None, option: str) -> dict[str, Any]:
    """``NAME=VALUE`` pairs, each value read as YAML reads it (2, 0.5, true, [1, 2])."""
    import yaml

    out: dict[str, Any] = {}
    for item in items or []:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise fail(f"{option}: expected NAME=VALUE, got {item!r}")
        try:
            out[name.strip()] = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError:
            out[name.strip()] = text
    return out


def _decision(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(v) for v in text.replace(" ", ",").split(",") if v]
    except ValueError:
        raise fail(f"--x0: expected numbers separated by commas (1.5,0,2), got {text!r}") \
            from None


def answer_lines(sol, problem: str, x0=None) -> list[str]:
    """The answer of :func:`acfs_cli.api.minimize` as ``acfs solve`` prints it (``x0``: where
    the search started)."""
    import numpy as np

    def decision(x) -> str:
        return np.array2string(np.asarray(x, dtype=float), separator=", ", threshold=10**6,
                               max_line_width=10**6, formatter={"float_kind": "{:.6g}".format})

    chosen = sol.info.get("chosen")
    ran = f"{sol.method}, which ran {chosen}" if chosen else sol.method
    lines = [
        f"problem  {problem}",
        f"method   {ran}",
        f"x*       {decision(sol.x)}",
        f"J        {sol.J:.6g}, 95 % interval [{sol.J_lo:.6g}, {sol.J_hi:.6g}] on "
        f"{sol.n_eval:,} fresh draws (E[C] {sol.EC:.6g}, CVaR {sol.CVaR:.6g})",
    ]
    if np.isfinite(sol.J_x0):
        at = f" at x0 = {decision(x0)}" if x0 is not None else ""
        lines.append(f"J(x0)    {sol.J_x0:.6g} on the same draws{at}")
    lines.append(f"draws    {sol.draws_used:,} of {sol.budget:,} (stopped: {sol.stop_reason})")
    for i, note in enumerate(sol.notes):
        lines.append(("notes    " if i == 0 else "         ") + note)
    return lines
