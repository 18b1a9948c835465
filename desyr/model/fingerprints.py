"""Fingerprints of what a component is handed, to tell whether it changed them.

A fingerprint flattens an object graph into ``{path: leaf}`` (``task.X``, ``problem.fields[0]``,
``candidate.search_expressions['u']``); an array's leaf is its shape, dtype and a digest of its bytes,
so no array is copied. :func:`changed_paths` compares two fingerprints. Attributes whose names start
with ``_`` are skipped: they are an object's own caches (a vocabulary's memo of jet symbols), not
what a component is given to read.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

import numpy as np
import sympy as sp

__all__ = ["fingerprint", "changed_paths"]

#: how deep a walk goes; below, an object is named by its type and identity
MAX_DEPTH = 12
_ATOMS = (str, bytes, int, bool, complex, type(None), sp.Basic, PurePath, enum.Enum)


def fingerprint(named: Mapping[str, Any]) -> dict[str, Any]:
    """``{path: leaf}`` of each named object and everything it holds."""
    out: dict[str, Any] = {}
    for name, obj in named.items():
        _walk(obj, name, out, set(), 0)
    return out


def changed_paths(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The paths added, removed or changed between two fingerprints, in order."""
    paths = list(before) + [p for p in after if p not in before]
    return [p for p in paths if p not in before or p not in after or not _same(before[p], after[p])]


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - a leaf that cannot be compared counts as changed
        return False


def _walk(obj: Any, path: str, out: dict[str, Any], seen: set[int], depth: int) -> None:
    if isinstance(obj, float):
        out[path] = repr(obj)                       # NaN equals itself as text
    elif isinstance(obj, _ATOMS):
        out[path] = obj
    elif isinstance(obj, np.ndarray):
        out[path] = ("array", obj.shape, obj.dtype.str, _digest(obj))
    elif isinstance(obj, np.generic):
        out[path] = ("scalar", obj.dtype.str, repr(obj.item()))
    elif id(obj) in seen or depth >= MAX_DEPTH or callable(obj):
        out[path] = ("object", type(obj).__qualname__, id(obj))   # functions, classes, cycles: identity
    else:
        seen.add(id(obj))
        _walk_children(obj, path, out, seen, depth + 1)


def _walk_children(obj: Any, path: str, out: dict[str, Any], seen: set[int], depth: int) -> None:
    if isinstance(obj, Mapping):
        out[path] = ("mapping", type(obj).__qualname__, len(obj))
        for key, value in obj.items():
            _walk(value, f"{path}[{key!r}]", out, seen, depth)
    elif isinstance(obj, (list, tuple)):
        out[path] = ("sequence", type(obj).__qualname__, len(obj))
        for i, value in enumerate(obj):
            _walk(value, f"{path}[{i}]", out, seen, depth)
    elif isinstance(obj, (set, frozenset)):
        out[path] = ("set", type(obj).__qualname__, frozenset(map(repr, obj)))
    else:
        out[path] = ("object", type(obj).__qualname__)
        for name, value in _attributes(obj):
            _walk(value, f"{path}.{name}", out, seen, depth)


def _attributes(obj: Any) -> list[tuple[str, Any]]:
    if dataclasses.is_dataclass(obj):
        names = [f.name for f in dataclasses.fields(obj)] + [n for n in getattr(obj, "__dict__", {}) if not hasattr(type(obj), n)]
    else:
        names = list(getattr(obj, "__dict__", {}))
    return [(n, getattr(obj, n)) for n in dict.fromkeys(names) if not n.startswith("_") and hasattr(obj, n)]


def _digest(array: np.ndarray) -> str:
    if array.dtype.hasobject:
        return repr(array.tolist())
    return hashlib.blake2b(np.ascontiguousarray(array).tobytes(), digest_size=16).hexdigest()
