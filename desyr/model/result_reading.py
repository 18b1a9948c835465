"""Reading ``result.json`` back safely: every value as its declared type, every field name checked.

A stored result is untrusted data (``docs/security.md``): it may be edited, truncated or made up.
:func:`build_typed` turns its plain JSON form into the result's dataclasses and refuses any value
of the wrong type with one ``TypeError`` that says where (a wrong type would otherwise fail later,
in the middle of ``desyr exact`` or ``desyr export``, as a traceback); :func:`desyr.model.result.check_consistency`
makes every mapping keyed by field use the problem's fields, whose names are checked like a
config's (they are written into exported code).
"""
from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any

from desyr.errors import ConfigError
from desyr.model.nesting import json_loads

MAX_RESULT_BYTES = 64 * 1024 * 1024     # a result.json of a large coupled run is well under 10 MB

__all__ = ["build_typed", "convert_typed", "read_result_data"]


def build_typed(cls: type, data: Any, where: str) -> Any:
    """The dataclass ``cls`` from its plain form, following the declared field types; ``where`` is the
    path of ``data`` in the file, for messages (``candidates[3].nfev must be an int, got str '7'``)."""
    if not isinstance(data, dict):
        raise TypeError(f"{where or cls.__name__} must be a mapping, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data and f.metadata.get("stored", True):      # a result's views are never read from a file
            kwargs[f.name] = convert_typed(hints[f.name], data[f.name], f"{where}.{f.name}".lstrip("."))
    try:
        return cls(**kwargs)
    except TypeError as exc:    # a required key is missing: say where
        raise TypeError(f"{where or cls.__name__}: {exc}") from None


def convert_typed(hint: Any, value: Any, where: str) -> Any:
    """``value`` as the declared type ``hint``: a stored file may hold anything, and a wrong type
    would otherwise fail later, in the middle of a command, as a traceback."""
    if hint is Any:
        return value
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None and len(options) < len(typing.get_args(hint)):
            return None
        if len(options) == 1:
            return convert_typed(options[0], value, where)
        return value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return value if isinstance(value, hint) else build_typed(hint, value, where)
    if origin is list:
        (item,) = typing.get_args(hint) or (Any,)
        _expect(isinstance(value, list), "a list", value, where)
        return [convert_typed(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        key, item = typing.get_args(hint) or (Any, Any)
        _expect(isinstance(value, dict), "a mapping", value, where)
        return {convert_typed(key, k, where): convert_typed(item, v, f"{where}.{k}") for k, v in value.items()}
    if hint is float:
        # non-finite floats are stored as the strings "inf", "-inf", "nan" (see number())
        _expect(isinstance(value, (int, float, str)) and not isinstance(value, bool), "a number", value, where)
        try:
            return float(value)
        except OverflowError:           # an integer beyond 1.8e308
            raise ValueError(f"{where} is too large for a float") from None
    if hint in (str, int, bool):
        ok = isinstance(value, hint) and (hint is bool or not isinstance(value, bool))   # True is an int
        _expect(ok, f"{'an' if hint is int else 'a'} {hint.__name__}", value, where)
    return value


def _expect(ok: bool, what: str, value: Any, where: str) -> None:
    if not ok:
        raise TypeError(f"{where or 'result'} must be {what}, got {type(value).__name__} {value!r:.40}")


def read_result_data(path: str | Path) -> tuple[Path, Any]:
    """The JSON of ``result.json`` (or of the one in a folder), read with bounds: a regular file, at most
    MAX_RESULT_BYTES, nesting checked; every failure is one ConfigError line."""
    path = Path(path)
    if path.is_dir():
        path = path / "result.json"
    if path.exists() and not path.is_file():       # a FIFO would hang, /dev/zero would never end
        raise ConfigError(f"{path}: not a regular file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_RESULT_BYTES + 1)
        if len(raw) > MAX_RESULT_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_RESULT_BYTES} bytes")
        return path, json_loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no result at {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:     # ValueError: bad JSON, too deep, 5000-digit int
        raise ConfigError(f"{path}: unreadable result ({type(exc).__name__}: {short_message(exc)})") from None


def short_message(exc: Exception, limit: int = 300) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[:limit - 3] + "..."
