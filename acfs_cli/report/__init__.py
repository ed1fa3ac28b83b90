"""Results -> statistics -> tables and figures (paper Section 5, DESIGN.md section 6).

``report_experiments`` is the entry point of ``acfs report``. The pieces, in the order data
flows through them: :mod:`~acfs_cli.results.read` (read and validate a results table),
:mod:`~acfs_cli.report.tables` (tidy statistics frames), :mod:`~acfs_cli.report.views` (the
paper's table layouts), :mod:`~acfs_cli.report.render` (terminal and LaTeX) and
:mod:`~acfs_cli.report.figures` (PNG and PDF); :mod:`~acfs_cli.report.baseline` chooses the
method the others are compared with and finds the reference optima. Quality against the
optimum - progress curves at checkpoints, quality against the budget, the problem library's
gaps and ranking - has its one measure and tidy tables in :mod:`~acfs_cli.report.quality`,
its layouts in :mod:`~acfs_cli.report.quality_views` and its figures in
:mod:`~acfs_cli.report.quality_figures`.
"""

from acfs_cli.report.quality import with_quality
from acfs_cli.report.run import (
    build_tables,
    draw_figures,
    draw_quality_figures,
    quality_tables,
    report_experiment,
    report_experiments,
)
from acfs_cli.report.tables import (
    ORACLE,
    PRECISE,
    ablation_table,
    budget_table,
    method_statistics,
    sensitivity_defaults,
    sensitivity_table,
    true_gap_table,
    wilcoxon_table,
)
from acfs_cli.results.read import ResultsError, count_cells, read_reference_optima, read_results

__all__ = [
    "ORACLE",
    "PRECISE",
    "ResultsError",
    "ablation_table",
    "budget_table",
    "build_tables",
    "count_cells",
    "draw_figures",
    "draw_quality_figures",
    "method_statistics",
    "quality_tables",
    "read_reference_optima",
    "read_results",
    "report_experiment",
    "report_experiments",
    "sensitivity_defaults",
    "sensitivity_table",
    "true_gap_table",
    "wilcoxon_table",
    "with_quality",
]
