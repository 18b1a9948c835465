"""The names a series answer is written in (the series contract, sections 2 and 3): the index symbol and
the named eigenvalue functions, taken from :mod:`desyr.plugin` so that the solver's sums, the parser's and
the proof's compare equal."""
from __future__ import annotations

import sympy as sp

from desyr.plugin import besseljpzero, besseljzero, dinizero, robinroot, robinsinhroot, series_index

__all__ = ["besseljpzero", "besseljzero", "dinizero", "robinroot", "robinsinhroot", "series_index", "computing_index"]


def computing_index(name: str, lower: int) -> sp.Symbol:
    """The symbol the integrals are done in: an integer known to be at least ``lower`` (``positive`` for
    ``lower >= 1``), so that SymPy writes ``sin(pi*n)`` as 0 and ``cos(pi*n)`` as ``(-1)**n`` and needs no
    case ``n = 0``.  The answer is written in :func:`series_index` instead."""
    if lower >= 1:
        return sp.Symbol(name, integer=True, positive=True)
    return sp.Symbol(name, integer=True, nonnegative=True)


NAMED = (besseljzero, besseljpzero, robinroot, dinizero, robinsinhroot)


_VALUES: dict[sp.Expr, sp.Float] = {}


def numeric_roots(expr: sp.Expr, digits: int = 30) -> sp.Expr:
    """``expr`` with each named root of numeric arguments replaced by its value (``evalf`` of an expression
    with free symbols leaves a function's arguments alone), each value computed once per process."""
    calls = [c for c in expr.atoms(*NAMED) if c.is_number]
    for call in calls:
        if call not in _VALUES:
            _VALUES[call] = call.evalf(digits)
    return expr.xreplace({c: _VALUES[c] for c in calls}) if calls else expr
