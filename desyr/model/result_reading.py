"""Reading ``result.json`` back safely: every value as its declared type, every field name checked.

A stored result is untrusted data (``docs/security.md``): it may be edited, truncated or made up.
:func:`build_typed` turns its plain JSON form into the result's dataclasses and refuses any value
of the wrong type with one ``TypeError`` that says where (a wrong type would otherwise fail later,
in the middle of ``desyr exact`` or ``desyr export``, as a traceback); :func:`check_consistency`
makes every mapping keyed by field use the problem's fields, whose names are checked like a
config's (they are written into exported code).
"""
from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desyr.errors import ConfigError
from desyr.model.nesting import json_loads

MAX_RESULT_BYTES = 64 * 1024 * 1024     # a result.json of a large coupled run is well under 10 MB

if TYPE_CHECKING:
    from desyr.model.result import Result

__all__ = ["build_typed", "check_consistency", "convert_typed"]


def check_consistency(result: Result, source: str) -> None:
    """Everything keyed by field, or naming one, names one of the problem's (checked) fields; the seed
    is one a run can have (``desyr exact`` draws its verification points from it)."""
    if not 0 <= result.seed < 2**32:
        raise ConfigError(f"{source}: seed must be an integer in [0, 2**32), got {str(result.seed):.40}")
    keyed: list[tuple[str, dict[str, Any] | None]] = [
        ("expression", result.expression), ("pre_refit_expression", result.pre_refit_expression)]
    if result.exact_form is not None:
        keyed += [("exact_form.expressions", result.exact_form.expressions), ("exact_form.latex", result.exact_form.latex)]
        keyed += [(f"exact_form.rewrites[{i}]", {r.field: None}) for i, r in enumerate(result.exact_form.rewrites)]
    for i, c in enumerate(result.candidates):
        keyed += [(f"candidates[{i}].{name}", getattr(c, name)) for name in ("topology", "pre_refit_expression", "expression")]
    keyed += [(f"attempts[{i}].expression", a.expression) for i, a in enumerate(result.attempts)]
    if result.search is not None:
        keyed.append(("search.pool_size_per_field", result.search.pool_size_per_field))
        keyed += [(f"search.runs[{i}]", {run.field: None}) for i, run in enumerate(result.search.runs)]
    fields = [*result.problem.fields, *result.problem.unknowns]
    for where, mapping in keyed:
        for name in mapping or {}:
            if name not in fields:
                raise ConfigError(f"{source}: {where} names field {name!r:.40}, which is not one of the "
                                  f"problem's fields ({', '.join(fields)})")


def build_typed(cls: type, data: Any, where: str) -> Any:
    """The dataclass ``cls`` from its plain form, following the declared field types; ``where`` is the
    path of ``data`` in the file, for messages (``candidates[3].nfev must be an int, got str '7'``)."""
    if not isinstance(data, dict):
        raise TypeError(f"{where or cls.__name__} must be a mapping, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
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
