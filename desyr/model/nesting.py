"""Reading untrusted JSON and TOML with bounded nesting.

``json`` and ``tomllib`` parse nested arrays recursively: text such as
``[[[[...]]]]`` a few thousand levels deep raises :class:`RecursionError`, and
data a few hundred levels deep parses but breaks later recursive code
(``copy.deepcopy``, ``repr``, writing it back).  DeSyR's own files and
configs nest fewer than 12 levels, so anything deeper than
:data:`MAX_NESTING` is refused here, as one :class:`NestingError`
(a ``ValueError``, so readers that treat unparsable files as absent keep
doing so).
"""
from __future__ import annotations

import json
import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["MAX_NESTING", "NestingError", "check_nesting", "json_loads", "toml_loads"]

MAX_NESTING = 64   # levels of arrays and tables; configs and result.json use under 12


class NestingError(ValueError):
    """Data nested more deeply than :data:`MAX_NESTING`; the message is one line for users."""


def _too_deep() -> NestingError:
    return NestingError(f"nested more than {MAX_NESTING} levels deep")


def check_nesting(data: Any, limit: int = MAX_NESTING) -> Any:
    """``data`` unchanged if its lists and dicts nest at most ``limit`` levels, else :class:`NestingError`.
    Iterative, so it cannot itself run out of stack."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            raise _too_deep()
        stack.extend((child, depth + 1) for child in children)
    return data


def json_loads(text: str) -> Any:
    """``json.loads`` that refuses deep nesting with :class:`NestingError` (other errors as json raises them)."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise _too_deep() from None
    return check_nesting(data)


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads`` that refuses deep nesting with :class:`NestingError` (``TOMLDecodeError`` as before)."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise _too_deep() from None
    checked: dict[str, Any] = check_nesting(data)
    return checked
