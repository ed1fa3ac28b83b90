"""What a report says besides its tables: the failed cells, which reference optima it rates on
and which it could not, what it left out because it was made for other code than the cells',
and the command that computes each missing piece again (DESIGN.md section 6).
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console

from acfs_cli.report.baseline import OptimaSource, settings_without_optimum
from acfs_cli.report.freshness import Checked
from acfs_cli.report.layout import problem_name
from acfs_cli.report.tables import configuration_name
from acfs_cli.results.files import StoreError
from acfs_cli.results.manifest import read_manifest
from acfs_cli.results.read import FLOOR_FILE, REFERENCE_DIR, SETTING, CellCount, usable

#: Failed cells listed by name before the rest are only counted.
_FAILURES_SHOWN = 5


def say(console: Console, message: str) -> None:
    """One message, printed as it is (no markup), folded at the terminal's width."""
    console.print(message, markup=False, highlight=False, soft_wrap=True)


def say_failures(console: Console, counts: CellCount) -> None:
    failures = counts.failures
    for row in failures.head(_FAILURES_SHOWN).itertuples(index=False):
        message = row.error.strip().splitlines()[0] if row.error.strip() else "no error message"
        where = (f"{problem_name(row.problem)} lambda={row.lam:.2f} "
                 f"{configuration_name(row.method, row.method_display, row.kind)}")
        if row.varied:
            where += f" {row.varied}={row.varied_value:g}"
        say(console, f"failed: {where} rep {row.rep}: {message}")
    if len(failures) > _FAILURES_SHOWN:
        say(console, f"... and {len(failures) - _FAILURES_SHOWN} more failed cells")


def say_optima(console: Console, source: OptimaSource, results: pd.DataFrame,
                optima: pd.DataFrame | None) -> None:
    """Which reference optima the report rates on, or where it looked and what is lost."""
    lost = settings_without_optimum(results, optima)
    if source.path is None and not lost:
        return  # nothing needs them: exact optima, or no large-sample J
    say(console, source.describe())
    if lost:
        names = [f"{problem_name(d)} lambda={lam:.2f}" for d, lam, _ in lost]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        where = "" if source.path is None else f" in {source.path}"
        say(console, f"no reference optimum{where} for {shown}: no regret, progress or "
             "solvability tables there (`acfs reference CONFIG` computes them; --optima "
             "names the file)")


def say_stale(console: Console, checked: Checked, source: OptimaSource,
               found: pd.DataFrame | None, folder: Path) -> None:
    """Name the reference optima and floor rows made for other code than the cells' (left
    out), and those that do not say what made them, each with the command that computes
    them again."""
    where = source.path.parent if source.path is not None else Path("results") / REFERENCE_DIR
    floor_file = folder / FLOOR_FILE
    floor_again = shlex.join(["acfs", "reference", "--floor", str(folder), "-o", str(where)])
    if checked.stale_optima:
        stale = checked.stale_optima
        first = stale[0]
        say(console, f"warning: {source.path}: the reference optima of {_settings(stale)} "
             f"were computed by other code of the problem than the cells' ({first.made_with}"
             f" -> {first.cells_have}): left out (no regret or gap against them); "
             f"`{_optima_again(found, [s.setting for s in stale], folder, where)}` computes "
             "them again")
    if checked.stale_floor:
        stale = checked.stale_floor
        rows = sum(s.count for s in stale)
        say(console, f"warning: {floor_file}: {rows} replication(s) of {_settings(stale)} "
             "were estimated for another reference optimum or other code of the problem: "
             f"left out (no paired regret there); `{floor_again}` computes them again")
    if checked.unknown_optima:
        names = _settings([_Named(s) for s in checked.unknown_optima])
        say(console, f"note: {source.path}: the reference optima of {names} do not record "
             "the problem's code (an older version wrote them), so whether they fit the cells "
             f"is not known; `{_optima_again(found, checked.unknown_optima, folder, where)} "
             "--force` computes them again with the record")
    if checked.unknown_floor:
        say(console, f"note: {floor_file} does not record the reference optimum and the code "
             "it was computed for (an older version wrote it), so whether it fits the cells is "
             f"not known; `{floor_again}` computes it again with the record")


def say_without_precise(console: Console, results: pd.DataFrame,
                         optima: pd.DataFrame | None, folder: Path) -> None:
    """Reference optima rate a setting through the large-sample J of its cells: where the
    cells have none (and the problem no exact J), say why there is no regret or quality table
    there and what gives one."""
    if optima is None:
        return
    done = usable(results)
    values = done[SETTING].assign(**{c: pd.to_numeric(done[c], errors="coerce").notna()
                                     for c in ("J_true", "J_exact") if c in done.columns})
    rated = values.groupby(SETTING).any()
    known = set(optima[SETTING].itertuples(index=False, name=None))
    without = [s for s, r in rated.iterrows() if s in known and not r.any()]
    if not without:
        return
    config = _configuration(folder)
    say(console, f"no regret or quality table for {_settings([_Named(s) for s in without])}: "
         "their cells have no large-sample J to rate against the reference optimum; give "
         f"final_eval a precise_draws (200,000 in the paper's studies) in {config} and run "
         f"`acfs run {config}` again (every cell is computed anew with it)")


@dataclass(frozen=True)
class _Named:
    setting: tuple


def _settings(items) -> str:
    """``dgp1 lambda=0.70, dgp2 lambda=0.70 and 3 more``."""
    names = [f"{problem_name(s.setting[0])} lambda={s.setting[1]:.2f}" for s in items]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _optima_again(found: pd.DataFrame | None, settings: list[tuple], folder: Path,
                  where: Path) -> str:
    """The command that computes the reference optima of ``settings`` again: the best answers
    of the experiment's cells where that is how they were found, else the reference search
    of the experiment's configuration (named where it lies beside the results)."""
    rows = pd.DataFrame() if found is None else found[
        [tuple(s) in set(settings) for s in found[SETTING].itertuples(index=False, name=None)]]
    if len(rows) and "source" in rows.columns and (rows["source"] == "best found").any():
        command = ["acfs", "reference", "--best-found", str(folder), "-o", str(where)]
        draws = _best_draws(rows)
        return shlex.join(command + (["--best-draws", str(draws)] if draws else []))
    return shlex.join(["acfs", "reference", _configuration(folder), "-o", str(where)])


def _best_draws(rows: pd.DataFrame) -> int | None:
    """The common sample's size a best-found optimum was compared on, where it says."""
    for text in rows.get("settings", pd.Series(dtype=object)):
        if isinstance(text, str) and text:
            n = json.loads(text).get("n")
            if n:
                return int(n)
    return None


def _configuration(folder: Path) -> str:
    """The configuration of an experiment where its manifest says where it lies (its folder,
    and a file named after the experiment), else CONFIG."""
    try:
        manifest = read_manifest(folder)
    except StoreError:
        manifest = None
    if manifest is not None and manifest.source:
        path = os.path.normpath(folder / manifest.source / f"{manifest.experiment}.yaml")
        if Path(path).is_file():
            return path
    return "CONFIG"
