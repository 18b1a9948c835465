"""Reading untrusted JSON and TOML with bounded nesting.

``json`` and ``tomllib`` parse nested arrays recursively: text such as
``[[[[...]]]]`` a few thousand levels deep raises :class:`RecursionError`, and
data a few hundred levels deep parses but breaks later recursive code
(``copy.deepcopy``, ``repr``, writing it back).  DeSyR's own files and
configs nest fewer than 12 levels, so anything deeper than
:data:`MAX_NESTING` is refused here, as one :class:`NestingError`
(a ``ValueError``, so readers that treat unparsable files as absent keep
doing so).

A config's numbers are read as typed (:func:`typed_float`): a decimal whose digits a double cannot
hold exactly as written (``0.2999999999999999999999``, ``3.14159265358979311``) is refused as one
:class:`DigitsError` line, since the double would silently stand for another number in a proof.
"""
from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["MAX_NESTING", "DataError", "DigitsError", "NestingError", "check_nesting", "config_json_loads",
           "json_loads", "toml_loads", "typed_float"]

MAX_NESTING = 64   # levels of arrays and tables; configs and result.json use under 12


class DataError(ValueError):
    """Text that parses but is refused as data; the message is one line for users."""


class NestingError(DataError):
    """Data nested more deeply than :data:`MAX_NESTING`; the message is one line for users."""


class DigitsError(DataError):
    """A config number whose typed digits are not the double it reads as."""


def typed_float(text: str) -> float:
    """The float a config's number ``text`` spells, refused (:class:`DigitsError`) unless the double
    is exactly what was typed: its shortest print must spell the same decimal (``0.30`` and ``3e-1``
    are 0.3; ``0.30000000000000001`` is not).  ``inf`` and ``nan`` stay as TOML reads them."""
    value = float(text)
    digits = text.replace("_", "")
    if digits.lstrip("+-") in ("inf", "nan"):
        return value
    if not math.isfinite(value):
        raise DigitsError(f"the number {digits:.60} is too large for a float (at most {sys.float_info.max:.4g})")
    try:
        typed = Fraction(digits)
    except ValueError:          # thousands of digits: more than Python reads as one integer
        typed = None
    if typed != Fraction(repr(value)):
        raise DigitsError(f"the number {digits:.60} has more digits than a float holds (a float reads it as "
                          f"{value!r}, another number): write fewer digits (a float's shortest print, such as "
                          f"{value!r}, is read as that decimal), or the exact number as text (\"3/10\") where "
                          "the config takes an expression")
    return value


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


def config_json_loads(text: str) -> Any:
    """:func:`json_loads` for a config given as JSON: its numbers are read as typed (:func:`typed_float`)."""
    try:
        data = json.loads(text, parse_float=typed_float)
    except RecursionError:
        raise _too_deep() from None
    return check_nesting(data)


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads`` for a config: deep nesting is refused with :class:`NestingError`, and numbers are
    read as typed (:func:`typed_float`); ``TOMLDecodeError`` as before."""
    try:
        data = tomllib.loads(text, parse_float=typed_float)
    except RecursionError:
        raise _too_deep() from None
    checked: dict[str, Any] = check_nesting(data)
    return checked
