"""The experiment layer: configurations, the grid of cells, running a cell under its oracle,
dispatching cells to worker processes or a Dask cluster, the evaluation of a decision and
the reference optima (DESIGN.md section 5). It imports the core, the methods and the
problems, and writes through :mod:`acfs_cli.results`; nothing below it imports it."""
