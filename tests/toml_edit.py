"""Writing and editing TOML configs by hand, for the fuzz tests: any nested value as an
inline table (valid TOML for every nesting), and key paths into a nested config."""
from __future__ import annotations

import datetime
import math
from typing import Any


def toml_key(key: str) -> str:
    return toml_string(key)


def toml_string(text: str) -> str:
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    return '"' + "".join(out) + '"'


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def to_toml(data: dict[str, Any]) -> str:
    """Every top-level key as ``key = <inline value>``: valid TOML for any nesting."""
    return "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in data.items())


def paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path of a nested config (list items by index)."""
    found = []
    if isinstance(data, dict):
        for k, v in data.items():
            found.append(prefix + (k,))
            found.extend(paths(v, prefix + (k,)))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found.append(prefix + (i,))
            found.extend(paths(v, prefix + (i,)))
    return found


def set_path(data: Any, path: tuple, value: Any, create: bool = False) -> None:
    node = data
    for key in path[:-1]:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        elif create and isinstance(node, dict):
            node[key] = {}
            node = node[key]
        else:
            return
    if isinstance(node, dict):
        node[path[-1]] = value
    elif isinstance(node, list) and isinstance(path[-1], int) and path[-1] < len(node):
        node[path[-1]] = value


def delete_path(data: Any, path: tuple) -> None:
    node = data
    for key in path[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return
    try:
        del node[path[-1]]
    except (KeyError, IndexError, TypeError):
        pass
