"""Other libraries' problems and methods inside acfs (optional extras).

``simopt`` - SimOpt's continuous problems as acfs problems (``simopt:<ABBR>``) and its solvers
as acfs methods (``simopt-astrodf``, ...): ``pip install 'acfs[simopt]'``.
"""

# The method registry names the integrations' methods, and the integrations build on the
# methods' base classes: loading the methods package first lets either side be imported
# first (an integration imported on its own would otherwise meet a half-built registry).
import acfs_cli.methods  # noqa: F401
