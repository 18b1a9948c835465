"""Writing a config table as TOML text: the value types configs use, nothing more.

A resolved config (``extends``) is handed to the verifier as one self-contained TOML text, and a
problem built in Python writes its config the same way (``Problem.to_toml``), so the text must
read back as exactly the same data: strings, integers, floats (``inf`` and ``nan`` included),
booleans, arrays, tables and arrays of tables.  Anything else (a date, ``None``) is refused with
:class:`TomlWriteError` rather than written lossily.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


class TomlWriteError(ValueError):
    """A value that TOML (or this writer) cannot hold; the message names where it is."""


def dumps(data: Mapping[str, Any]) -> str:
    """``data`` as TOML text that ``tomllib.loads`` reads back as equal data."""
    lines: list[str] = []
    _table(data, (), lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _table(data: Mapping[str, Any], path: tuple[str, ...], lines: list[str]) -> None:
    """The plain keys of one table, then its sub-tables, then its arrays of tables."""
    for key, value in data.items():
        if not (isinstance(value, Mapping) or _is_table_array(value)):
            lines.append(f"{_key(key)} = {_value(value, (*path, key))}")
    for key, value in data.items():
        if isinstance(value, Mapping):
            lines.extend(["", f"[{_dotted((*path, key))}]"])
            _table(value, (*path, key), lines)
    for key, value in data.items():
        if _is_table_array(value):
            for item in value:
                lines.extend(["", f"[[{_dotted((*path, key))}]]"])
                _table(item, (*path, key), lines)


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(_key(k) for k in path)


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TomlWriteError(f"a key {key!r:.40} is not a string")
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value: Any, path: tuple[str, ...]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            raise TomlWriteError(f"{_where(path)}: a string with a lone surrogate cannot be written as UTF-8")
        return _string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)               # '1e-08', '0.5', '1e+16': all TOML floats
    if isinstance(value, list):
        return "[" + ", ".join(_value(v, (*path, str(i))) for i, v in enumerate(value)) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(v, (*path, k))}" for k, v in value.items()) + "}"
    raise TomlWriteError(f"{_where(path)}: a {type(value).__name__} value cannot be written as TOML")


def _where(path: tuple[str, ...]) -> str:
    return ".".join(path) or "the config"
