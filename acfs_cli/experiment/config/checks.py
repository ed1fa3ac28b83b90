"""Checking a configuration against the registries: the problems it names are built, the
methods found, each method's settings validated (values exactly as written, integers that fit
the results' int64) and every budget held against its method's minimum. The registries (and
a user's modules, by import path) are imported only here, so reading a configuration's model
imports no numerical code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from acfs_cli.experiment.config.model import (
    INT64_MAX,
    Config,
    ConfigError,
    excerpt,
    validation_message,
)


def check_references(config: Config, source: str = "config") -> None:
    """Check the names a configuration refers to: problems, methods and their parameters.

    Imports the method registry (and user problems given by import path).
    """
    # The registries import every problem and method (scipy, scikit-learn): loaded only when a
    # configuration is checked against them, so `acfs --help` and `acfs status` stay quick.
    from acfs_cli.problems import build_problem, find_problem, module_name

    dims: dict[str, int] = {}
    declared: dict[str, tuple] = {}  # integrality, stochastic constraints and the box
    for label, name, options in config.problems:
        try:  # a file is found from the configuration's folder, as the grid's cells find it
            built = build_problem(find_problem(name, config.source_dir), module_name(name),
                                  **options)
            dims[label] = built.dim_x
            declared[label] = (built.integrality, built.constraints, built.space.box())
        except ValueError as exc:
            raise ConfigError(f"{source}: grid.problem: {exc}") from None
        except Exception as exc:  # a user problem whose constructor fails
            raise ConfigError(
                f"{source}: grid.problem: {name!r} cannot be built: "
                f"{type(exc).__name__}: {exc}"
            ) from None

    get_method = _registry()
    where = "sensitivity.method" if config.kind == "sensitivity" else "grid.method"
    for name in config.method_names:
        try:
            method = get_method(name)
        except ValueError as exc:
            raise ConfigError(f"{source}: {where}: {exc}") from None
        for label, (flags, constraints, box) in declared.items():
            refused = method.refusal(label, flags, constraints, box)
            if refused and config.refused == "refuse":
                raise ConfigError(f"{source}: {where}: {refused} (refused: skip leaves such "
                                  "cells out)")
    for name, overrides in config.methods.items():
        try:
            method = get_method(name)
        except ValueError as exc:
            raise ConfigError(f"{source}: methods: {exc}") from None
        check_settings(method, overrides, f"{source}: methods.{name}")
    points = [(name, config.overrides(name)) for name in config.method_names]
    if config.sensitivity is not None:
        method = get_method(config.sensitivity.method)
        base = config.overrides(config.sensitivity.method)
        for param, values in config.sensitivity.params.items():
            for value in values:
                check_settings(
                    method, {**base, param: value}, f"{source}: sensitivity.params.{param}"
                )
                points.append((config.sensitivity.method, {**base, param: value}))
    # Each method sizes its phases from the budget; below its minimum it would not be the
    # method its name says, so the grid is refused rather than run with a fallback - or,
    # where the configuration says so, those cells are left out (a testbed's small budgets).
    if config.below_minimum == "refuse":
        for name, label, dim, budget, need in below_minimum(config, dims, points):
            raise ConfigError(
                f"{source}: budget {budget:,} is below {name}'s minimum of {need:,} draws on "
                f"the {dim}-dimensional problem {label} (below_minimum: skip leaves such cells "
                "out)")


def below_minimum(config: Config, dims: Mapping[str, int],
                  points: list[tuple[str, dict[str, Any]]] | None = None
                  ) -> list[tuple[str, str, int, int, int]]:
    """(method, problem, its dimension, budget, the method's minimum) of every cell of the
    grid whose budget is below its method's minimum."""
    get_method = _registry()
    if points is None:
        points = [(name, config.overrides(name)) for name in config.method_names]
        if config.sensitivity is not None:
            base = config.overrides(config.sensitivity.method)
            points += [(config.sensitivity.method, {**base, param: value})
                       for param, values in config.sensitivity.params.items()
                       for value in values]
    out = []
    for name, overrides in points:
        method = get_method(name)
        for label, dim in dims.items():
            need = method.minimum_budget(dim, overrides)
            out += [(name, label, dim, budget, need)
                    for budget in config.problem_budgets[label] if budget < need]
    return out


def check_settings(method, overrides: Mapping[str, Any], where: str) -> None:
    """The method's own validation, then two checks it does not make: values taken exactly as
    written (``true`` is not 1, ``"5"`` is not 5) and integers that fit the results' int64."""
    try:
        method.settings(dict(overrides))
        method.settings_model.model_validate({**method.fixed, **overrides}, strict=True)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {validation_message(exc, method.settings_model)}") from None
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    for name, value in overrides.items():
        if isinstance(value, int) and not isinstance(value, bool) and not (
                -INT64_MAX - 1 <= value <= INT64_MAX):
            raise ConfigError(f"{where}: {name}: {excerpt(value)} does not fit in 64 bits")


def _registry():
    """The registry's ``get_method``, or a :class:`ConfigError` when it cannot be imported."""
    try:
        from acfs_cli.methods.registry import get_method
    except ImportError as exc:
        raise ConfigError(f"the method registry cannot be imported: {exc}") from None
    return get_method


def name_mistakes(data: Mapping[str, Any], folder: str | None = None
                  ) -> list[tuple[tuple, str]]:
    """The problem and method names of a configuration mapping that name nothing, read from
    the mapping as written (so also when other keys are invalid); files are found from
    ``folder``, the configuration's."""
    from acfs_cli.problems import build_problem, find_problem, module_name

    out = []
    grid = data.get("grid") if isinstance(data.get("grid"), dict) else {}
    key = "problem" if "problem" in grid else "dgp"
    problems = grid.get(key, [])
    for i, entry in enumerate(problems if isinstance(problems, list) else [problems]):
        name = entry.get("problem") if isinstance(entry, dict) else entry
        params = entry.get("params", {}) if isinstance(entry, dict) else {}
        if not isinstance(name, str) or not isinstance(params, dict):
            continue  # the model says what is wrong with it
        try:
            build_problem(find_problem(name, folder), module_name(name), **params)
        except Exception as exc:  # unknown, not importable, or its constructor fails
            out.append((("grid", key, i), f"grid.problem: {exc}"))
    get_method = _registry()
    methods = grid.get("method", [])
    for i, name in enumerate(methods if isinstance(methods, list) else [methods]):
        out += _method_mistake(get_method, name, ("grid", "method", i), "grid.method")
    settings = data.get("methods") if isinstance(data.get("methods"), dict) else {}
    for name, overrides in settings.items():
        wrong = _method_mistake(get_method, name, ("methods", name), "methods")
        if not wrong and isinstance(overrides, dict):
            try:
                check_settings(get_method(name), overrides, f"methods.{name}")
            except ConfigError as exc:
                wrong = [(("methods", name), str(exc))]
        out += wrong
    return out


def _method_mistake(get_method, name, loc: tuple, where: str) -> list[tuple[tuple, str]]:
    if not isinstance(name, str):
        return []
    try:
        get_method(name)
    except (ValueError, ImportError) as exc:
        return [(loc, f"{where}: {exc}")]
    return []
