"""The rules for field and variable names, shared by config reading and ``result.json`` reading."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from desyr.errors import ConfigError
from desyr.symbolic.expressions import CONSTANTS, FUNCTIONS, ExpressionError, Vocabulary
from desyr.symbolic.expressions import check_name as check_symbol_name

_RESERVED = set(FUNCTIONS) | set(CONSTANTS) | {"I", "oo", "zoo", "nan", "E", "S", "N", "O", "Q"}
MAX_NAME = 32    # characters of a field or variable name: Fortran exports prefix "desyr_" within its 63
_NAME = re.compile(rf"[A-Za-z][A-Za-z0-9]{{0,{MAX_NAME - 1}}}")


def check_names(fields: Any, variables: Any, source: str) -> None:
    """The config's rules for field and variable names, for names read from elsewhere (``result.json``):
    lists of ASCII identifiers without '_', none reserved, none twice, fields distinct from variables."""
    for what, names in (("variables", variables), ("fields", fields)):
        if not isinstance(names, list) or not names:
            raise ConfigError(f"{source}: {what} must be a non-empty list of names, got {names!r:.60}")
    for name in variables:
        check_name(name, "variable", source)
    field_names({"fields": fields}, variables, source)
    try:
        Vocabulary(variables, fields)      # reserved words (keywords, numpy, ...) and duplicates
    except ExpressionError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def check_name(name: Any, kind: str, source: str) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name in _RESERVED:
        raise ConfigError(f"{source}: invalid {kind} name {name!r:.40} (letters and digits, starting with a letter, "
                          f"at most {MAX_NAME} characters, not a function or constant name such as sin or pi)")
    try:        # keywords and the rest of the expression reader's reserved words, named as what they are
        check_symbol_name(name, f"{kind} name")
    except ExpressionError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def field_names(data: Mapping[str, Any], variables: list[str], source: str) -> list[str]:
    value = data.get("fields", ["u"])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: fields must be a list of names")
    for name in value:
        check_name(name, "field", source)
        if name in variables or "_" in name:
            raise ConfigError(f"{source}: field name {name!r} clashes with a variable")
    if len(set(value)) != len(value):
        raise ConfigError(f"{source}: fields {value!r:.80} name the same field twice")
    return value
