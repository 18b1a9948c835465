"""The operators a search may use (``[search] binary`` and ``unary``), and what each one means.

One table for every searcher: each operator's DeSyR name, its arity, and its meaning in SymPy and in
NumPy.  A searcher whose library spells an operator differently keeps only that spelling
(:func:`library_names`); it builds SymPy and evaluates columns from this table, so an operator means
the same thing whichever searcher proposed it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import sympy as sp

from desyr.symbolic import operator_names


@dataclass(frozen=True)
class Operator:
    """One operator of the common vocabulary."""

    name: str                          # as a config writes it: "+", "sin", "square"
    arity: int                         # 2: binary, 1: unary
    sympy: Callable[..., sp.Expr]      # arguments -> the SymPy expression it stands for
    numpy: Callable[..., Any]          # arrays -> its values (NumPy's own ufunc where there is one)


def _square(a: Any) -> Any:
    return a ** 2


def _cube(a: Any) -> Any:
    return a ** 3


def _sech(a: Any) -> Any:
    return 1 / np.cosh(a)


def _csch(a: Any) -> Any:
    return 1 / np.sinh(a)


def _coth(a: Any) -> Any:
    return 1 / np.tanh(a)


def _table(arity: int, rows: Iterable[tuple[str, Callable[..., sp.Expr], Callable[..., Any]]]
           ) -> Mapping[str, Operator]:
    return MappingProxyType({name: Operator(name, arity, s, n) for name, s, n in rows})


#: binary operators, in the order the docs list them
BINARY_OPERATORS: Mapping[str, Operator] = _table(2, [
    ("+", lambda a, b: a + b, np.add),
    ("-", lambda a, b: a - b, np.subtract),
    ("*", lambda a, b: a * b, np.multiply),
    ("/", lambda a, b: a / b, np.divide),
    ("^", sp.Pow, np.power),
])
#: unary operators, in the order the docs list them
UNARY_OPERATORS: Mapping[str, Operator] = _table(1, [
    ("sin", sp.sin, np.sin), ("cos", sp.cos, np.cos), ("tan", sp.tan, np.tan),
    ("exp", sp.exp, np.exp), ("log", sp.log, np.log), ("sqrt", sp.sqrt, np.sqrt),
    ("tanh", sp.tanh, np.tanh), ("sinh", sp.sinh, np.sinh), ("cosh", sp.cosh, np.cosh),
    ("asin", sp.asin, np.arcsin), ("acos", sp.acos, np.arccos), ("atan", sp.atan, np.arctan),
    ("abs", sp.Abs, np.abs), ("square", _square, _square), ("cube", _cube, _cube),
    ("sech", sp.sech, _sech), ("csch", sp.csch, _csch), ("coth", sp.coth, _coth),
])

if (tuple(BINARY_OPERATORS), tuple(UNARY_OPERATORS)) != (operator_names.BINARY, operator_names.UNARY):
    raise ImportError("desyr.symbolic.operators and operator_names name different operators")  # pragma: no cover


def operator(name: str) -> Operator:
    """The operator called ``name`` (binary or unary); ``KeyError`` naming it when there is none."""
    found = BINARY_OPERATORS.get(name) or UNARY_OPERATORS.get(name)
    if found is None:
        raise KeyError(f"{name!r} is not an operator of the common vocabulary")
    return found


def library_names(names: Iterable[str], spelling: Mapping[str, str] | None = None) -> dict[str, str]:
    """DeSyR name -> a library's name, for the operators in ``names`` (the ones the library has):
    ``spelling[name]`` where the library spells it differently, else the DeSyR name itself."""
    names, spelling = list(names), spelling or {}
    unknown = sorted(set(spelling) - set(names))
    if unknown:
        raise KeyError(f"spelling given for operator(s) not in the list: {', '.join(unknown)}")
    return {name: spelling.get(name, operator(name).name) for name in names}
