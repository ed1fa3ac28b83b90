"""Experiment configurations: the models of the YAML files in ``configs/`` (``model``), their
YAML read with the line of every key (``yaml_source``), the checks against the registries
(``checks``) and :func:`load`, which does all three and reports every mistake at its line
(``reading``)."""

from acfs_cli.experiment.config.checks import below_minimum, check_references
from acfs_cli.experiment.config.model import (
    MAX_BUDGET,
    MAX_CELLS,
    Config,
    ConfigError,
    ConfigErrors,
    bounded,
    excerpt,
    parse,
)
from acfs_cli.experiment.config.reading import load

__all__ = ["MAX_BUDGET", "MAX_CELLS", "Config", "ConfigError", "ConfigErrors", "below_minimum",
           "bounded", "check_references", "excerpt", "load", "parse"]
