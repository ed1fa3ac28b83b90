"""Loading a configuration file: its YAML read with the line of every key, validated by the
models, then checked against the registries; every mistake of the file is reported at once,
each as ``file:LINE: message``, so that all are fixed before the next run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from acfs_cli.core.plugins import add_import_path
from acfs_cli.experiment.config.checks import check_references, name_mistakes
from acfs_cli.experiment.config.model import (
    Config,
    ConfigError,
    ConfigErrors,
    bounded,
    parse,
    validation_mistakes,
)
from acfs_cli.experiment.config.yaml_source import line_of, read_yaml, yaml_lines

#: The command-line option that sets a top-level key (an error in its value is the option's).
OPTIONS = {"replications": "--replications", "n_jobs": "--n-jobs", "draw_jobs": "--draw-jobs",
           "output": "--output"}


def load(path: Path | str, overrides: Mapping[str, Any] | None = None) -> Config:
    """Read, validate and check one configuration file.

    ``overrides`` replace top-level keys before validation (the command line's
    ``--replications``, ``--n-jobs``, ``--output``), so they are checked the same way.
    """
    path = Path(path)
    data = read_yaml(path)
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    data.update(given)
    try:
        config = parse(data, source=str(path))
    except ConfigError as exc:
        if exc.key in given:  # the value came from the command line, not from the file
            detail = exc.detail.removeprefix(f"{exc.key}: ").removeprefix(exc.key)
            raise ConfigError(f"{OPTIONS.get(exc.key, exc.key)}: {detail.lstrip(': ')}",
                              key=exc.key) from None
        _all_mistakes(path, data, validation=True)
        raise
    # A problem or method file beside the configuration is importable by its module name.
    config._source_dir = str(path.resolve().parent)
    add_import_path(config.source_dir)
    try:
        check_references(config, source=str(path))
    except ConfigError:
        _all_mistakes(path, data, validation=False)
        raise
    return config


def _all_mistakes(path: Path, data: Mapping[str, Any], validation: bool) -> None:
    """Raise :class:`ConfigErrors` when the configuration holds more than one mistake: the
    model's (keys, types, ranges) where ``validation``, and the problem and method names,
    checked even when the rest is invalid. One mistake is left to the caller's error."""
    add_import_path(str(path.resolve().parent))
    lines = yaml_lines(path)
    invalid = validation_mistakes(data) if validation else []
    named = [m for m in name_mistakes(data, str(path.resolve().parent))
             if not any(_overlap(m[0], loc) for loc, _ in invalid)]  # said once
    unique = list(dict.fromkeys(invalid + named))
    if len(unique) > 1:
        located = sorted(((line_of(lines, loc), message) for loc, message in unique),
                         key=lambda pair: pair[0])
        raise ConfigErrors([bounded(f"{path}:{line}: {message}")
                            for line, message in located]) from None


def _overlap(a: tuple, b: tuple) -> bool:
    """Whether one location lies inside the other (``dgp`` being the old name of
    ``problem``)."""
    a, b = (tuple("problem" if k == "dgp" else k for k in loc) for loc in (a, b))
    n = min(len(a), len(b))
    return a[:n] == b[:n]
