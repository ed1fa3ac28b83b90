"""``acfs reference``: large-sample reference optima J* of a configuration's settings."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from acfs_cli.cli.common import ConfigArg, console, fail, load_config, resolve_config
from acfs_cli.results.read import REFERENCE_FILE


def reference(
    config: ConfigArg = None,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Folder of reference.parquet.")
    ] = Path("results/reference"),
    force: Annotated[
        bool, typer.Option("--force", help="Compute again the reference optima already "
                           "computed (with --floor: every floor row).")
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Base seed of the search streams.")] = 0,
    floor: Annotated[
        Path | None, typer.Option(
            "--floor", help="An experiment folder: estimate each replication's reference "
            "minimiser on its own precise sample (the paired regret of the report), kept in "
            "<folder>/reference_floor.parquet; rows computed for another reference optimum or "
            "other code of the problem are computed again. Needs the reference optima first "
            "(those in --output).",
            show_default=False)
    ] = None,
    floor_draws: Annotated[
        int, typer.Option("--floor-draws", help="Draws of the precise sample where the cells "
                          "do not say (they usually do: their precise_draws).")
    ] = 200_000,
    best_found: Annotated[
        Path | None, typer.Option(
            "--best-found", help="An experiment folder: take each setting's reference optimum "
            "from its cells' best answers, re-estimated on one common sample (SimOpt's "
            "convention where the optimum is unknown and a search too costly).",
            show_default=False)
    ] = None,
    best_draws: Annotated[
        int, typer.Option("--best-draws", help="Draws of the common sample that compares "
                          "the best answers (--best-found).")
    ] = 20_000,
) -> None:
    """Large-sample reference optima J* for every (problem, lambda) of a configuration.

    Global search and pattern-search polish on common antithetic scenarios (no method budget).

    J*, EC and CVaR are then re-estimated on a fresh sample of 4,000,000 draws, with SE.

    `acfs report` uses them for the regret of every method. Finished rows are kept while the
    problem's code and the search's settings are the same (--force computes them again).

    A few minutes per setting; a problem that knows its optimum (the library) gives it exactly,
    at once. A problem offered as a black box (sample_only) shares its problem's row.

    [bold]Example[/bold]

      acfs reference configs/main.yaml
    """
    if best_found is not None:
        from acfs_cli.experiment.reference import best_found as from_results

        if not best_found.exists():
            raise fail(f"--best-found: {best_found}: no such experiment folder")
        try:
            with Searching(console(), f"{best_found.name}: best answers on a common sample") \
                    as show:
                table = from_results(best_found, output, n=best_draws, progress=show)
        except (OSError, ValueError) as exc:
            raise fail(f"--best-found: {exc}") from None
        console().print(f"{len(table)} reference optima in {output / 'reference.parquet'}")
        if floor is None:
            return
    if floor is not None:
        compute_floor(floor, output, floor_draws, force=force)
        return
    cfg, _ = load_config(resolve_config(config, "main.yaml"), {})
    problems = cfg.problems
    try:
        from acfs_cli.results.store import check_writable

        check_writable(output)
    except Exception as exc:  # one line, never a traceback
        raise fail(f"cannot write to {output}: {exc}") from None
    from acfs_cli.experiment.reference import compute_references

    out = console()
    settings = len(problems) * len(cfg.grid.lam)
    try:
        with Searching(out, f"reference optima of {settings} setting(s)") as show:
            table = compute_references(problems, cfg.grid.lam, cfg.alpha, seed=seed,
                                       out_dir=output, force=force, progress=show)
    except ValueError as exc:  # a problem the search cannot keep: the rows found are kept
        raise fail(str(exc)) from None
    out.print(f"{len(table)} reference optima in {output / 'reference.parquet'}")


class Searching:
    """A spinner while reference optima are sought, and a line per optimum found: J*, its
    standard error and how it was found (exactly, or by a search of so many draws and
    seconds). Called with each new row."""

    def __init__(self, out, what: str):
        self.out, self.what = out, what
        self.found = 0

    def __enter__(self) -> Searching:
        self.status = self.out.status(f"{self.what}: searching ...")
        self.status.__enter__()
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.status.__exit__(*exc)

    def __call__(self, row: dict) -> None:
        now = time.perf_counter()
        self.out.print(f"{row.get('label') or row['problem']} lam={row['lam']:g}: "
                       f"J* = {row['J_star']:,.6g} "
                       f"(SE {row['J_star_se']:,.3g}), EC {row['EC_star']:,.6g}, CVaR "
                       f"{row['CVaR_star']:,.6g}; {self.how(row, now - self.started)}",
                       markup=False, highlight=False, soft_wrap=True)
        self.found += 1
        self.started = now
        self.status.update(f"{self.what}: {self.found} found, searching ...")

    @staticmethod
    def how(row: dict, seconds: float) -> str:
        source = row.get("source", "search")
        if source == "exact":
            return "exact (the problem knows its optimum)"
        draws = row.get("draws", 0)
        return f"{source}, {int(draws):,} draws, {seconds:,.0f} s"


def compute_floor(folder: Path, optima: Path, n: int, force: bool = False) -> None:
    """The paired regret's floor of one experiment against the reference optima in the folder
    ``optima``, with a progress line; rows computed for another reference decision or other
    code of the problem are computed again, and every row with ``force``; exit 2 in one line
    when it cannot be computed."""
    from acfs_cli.experiment.floor import update_floor

    out = console()
    if not folder.exists():
        raise fail(f"--floor: {folder}: no such experiment folder")
    with out.status(f"{folder.name}: reference minimisers on the replications' precise "
                    "samples ...") as spinner:
        def progress(done: int, total: int) -> None:
            spinner.update(f"{folder.name}: reference minimisers on {done}/{total} "
                           "replications' precise samples")

        try:
            floor = update_floor(folder, optima / REFERENCE_FILE, n, progress=progress,
                                 force=force)
        except OSError as exc:
            raise fail(f"--floor: cannot write to {folder}: {exc}") from None
    if floor is None:
        raise fail(f"--floor: {folder} has no large-sample J (precise_draws) or no reference "
                   f"optima for its settings in {optima / REFERENCE_FILE} (run `acfs reference "
                   "CONFIG` or `acfs reference --best-found EXPERIMENT` with this --output "
                   "first)")
    computed = floor.attrs.get("computed", 0)
    out.print(f"{len(floor)} replications' reference minimisers in "
              f"{folder / 'reference_floor.parquet'} ({computed} computed now, "
              f"{len(floor) - computed} kept)")
