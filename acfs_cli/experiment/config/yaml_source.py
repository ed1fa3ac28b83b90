"""Reading a configuration's YAML: a mapping with every key once, aliases counted before they
are expanded, a syntax error as one line with its place, and the line of every key and list
item (:func:`yaml_lines`), so that each mistake of a configuration is reported at its line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from acfs_cli.experiment.config.model import ConfigError

#: YAML values after alias expansion: far above any real configuration (the main study has
#: about 40), far below what exhausts memory (a 400-byte "billion laughs" has 10^9).
MAX_YAML_VALUES = 100_000

#: libyaml's parser where PyYAML has it: fifty times faster on a large file.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):
    """A safe loader that rejects a key written twice in one mapping (PyYAML keeps the last)."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False):
    loader.flatten_mapping(node)
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping
)


def read_yaml(path: Path) -> dict:
    """The YAML mapping in ``path``; :class:`ConfigError` with the line of a syntax error.

    Aliases are counted before anything is built: a document that expands to more than
    :data:`MAX_YAML_VALUES` values (a "billion laughs") is refused at once.
    """
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"{path}: no such file")
    if not path.is_file():
        raise ConfigError(f"{path}: not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read ({exc})") from None
    loader = _UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None and _expanded_size(node) > MAX_YAML_VALUES:
            raise ConfigError(
                f"{path}: the YAML expands to more than {MAX_YAML_VALUES:,} values "
                "(aliases repeated inside aliases?)"
            )
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}: malformed YAML: {where}{problem}") from None
    except RecursionError:
        raise ConfigError(f"{path}: the YAML is nested too deeply") from None
    finally:
        loader.dispose()
    if data is None:
        raise ConfigError(f"{path}: the file is empty")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of keys at the top level")
    return data


def _expanded_size(root: yaml.Node) -> int:
    """Values in the document once every alias is expanded, computed on the node graph
    (each node once; a recursive alias counts as too many)."""
    too_many = MAX_YAML_VALUES + 1
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = 1
            continue
        children = [item for pair in node.value for item in pair] if isinstance(
            node, yaml.MappingNode) else list(node.value)
        if children_done:
            sizes[key] = min(too_many, 1 + sum(sizes[id(c)] for c in children))
            continue
        if key in sizes:
            continue  # an alias of a node already counted, or a node in progress (recursion)
        sizes[key] = too_many  # stays so if an alias leads back here before it is done
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]


def yaml_lines(path: Path) -> dict[tuple, int]:
    """The line (1-based) of each key and list item of a YAML file, by its location
    (``("grid", "method", 0)``); empty when the file cannot be read again."""
    try:
        loader = _UniqueKeyLoader(Path(path).read_text(encoding="utf-8"))
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    lines: dict[tuple, int] = {}
    stack: list[tuple[tuple, yaml.Node]] = [((), root)] if root is not None else []
    while stack:
        loc, node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key_node, value in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    child = (*loc, key_node.value)
                    lines.setdefault(child, key_node.start_mark.line + 1)
                    stack.append((child, value))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines.setdefault((*loc, i), item.start_mark.line + 1)
                stack.append(((*loc, i), item))
    return lines


#: Keys of the model that the YAML writes under another name.
_YAML_NAMES = {"lam": "lambda"}


def line_of(lines: dict[tuple, int], loc: tuple) -> int:
    """The line of ``loc``, or of its nearest enclosing key the file has (1: none)."""
    loc = tuple(_YAML_NAMES.get(k, k) if isinstance(k, str) else k for k in loc)
    for n in range(len(loc), 0, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return 1
