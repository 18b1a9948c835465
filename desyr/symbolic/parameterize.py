"""Constant parameterization of a frozen tree (paper §3.3, Definition "Constant parameterization").

A numerical constant (a sympy ``Float``) becomes a free parameter when it
- is not the exponent of a power,
- has |c| >= 1e-10 and | |c| - 1 | >= 1e-10,
- and is not a duplicate of an already selected constant: c' ties to c when
  |c' - c| < 1e-9 max(1, |c'|); tied occurrences share one parameter.
At most ``max_params`` (16) distinct constants are kept, the largest |c| first,
and parameters are ordered by decreasing |c|.

Exact numbers are structure, not constants: sympy Integers and Rationals
(``-1`` in ``-x``, the ``2`` of ``2*x`` written without a decimal point),
``pi`` and ``E`` are never refit.  Write ``2.0*x`` to make a factor free.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import sympy as sp

from desyr.symbolic.series import rebuilt

ZERO_TOL = 1e-10
ONE_TOL = 1e-10
TIE_TOL = 1e-9
#: the most free constants a candidate's tree may carry into a refit
MAX_PARAMS = 16


@dataclass
class Parameterization:
    """An expression with its eligible Float constants replaced by parameter symbols, and their values."""

    expression: sp.Expr                 # the tree with parameter symbols in place of constants
    symbols: list[sp.Symbol]            # a_1..a_p, ordered by decreasing |value|
    values: list[float]                 # the search constants, same order

    def substitute(self, values: Sequence[float] | None = None) -> sp.Expr:
        vals = self.values if values is None else values
        return self.expression.xreplace({s: sp.Float(float(v)) for s, v in zip(self.symbols, vals)})


def constant_nodes(expr: sp.Expr) -> Iterator[sp.Float]:
    """Float nodes in traversal order, skipping the exponents of powers."""
    if isinstance(expr, sp.Float):
        yield expr
        return
    if isinstance(expr, sp.Pow):
        yield from constant_nodes(expr.base)
        return
    for arg in expr.args:
        yield from constant_nodes(arg)


def is_eligible(value: float) -> bool:
    """Whether a constant becomes a refit parameter: not (numerically) 0 and not +-1, which are
    structure rather than constants."""
    return abs(value) >= ZERO_TOL and abs(abs(value) - 1.0) >= ONE_TOL


def eligible_constants(expr: sp.Expr) -> list[float]:
    """Distinct eligible constants in traversal order, before the cap."""
    distinct: list[float] = []
    for node in constant_nodes(expr):
        c = float(node)
        if is_eligible(c) and _tie(c, distinct) is None:
            distinct.append(c)
    return distinct


def _tie(c: float, chosen: list[float]) -> int | None:
    for i, prev in enumerate(chosen):
        if abs(c - prev) < TIE_TOL * max(1.0, abs(c)):
            return i
    return None


def parameterize(expr: sp.Expr, prefix: str = "a", max_params: int = MAX_PARAMS) -> Parameterization:
    """The expression's constants as parameters ``a1..ap`` (largest |value| first, at most ``max_params``)."""
    distinct = eligible_constants(expr)
    kept = sorted(distinct, key=lambda c: -abs(c))[:max_params]
    # Dummies: a variable, parameter or unknown a config names a1 must not become a fitted constant
    symbols = [sp.Dummy(f"{prefix}{i + 1}", real=True) for i in range(len(kept))]
    mapping: dict[sp.Float, sp.Symbol] = {}
    for node in constant_nodes(expr):
        idx = _tie(float(node), kept) if is_eligible(float(node)) else None
        if idx is not None:
            mapping[node] = symbols[idx]
    return Parameterization(_replace(expr, mapping), symbols, kept)


def _replace(expr: sp.Expr, mapping: dict[sp.Float, sp.Symbol]) -> sp.Expr:
    """Swap constants for symbols, leaving exponents alone, without re-evaluating the tree."""
    if isinstance(expr, sp.Float):
        return mapping.get(expr, expr)
    if not expr.args:
        return expr
    if isinstance(expr, sp.Pow):
        return sp.Pow(_replace(expr.base, mapping), expr.exp, evaluate=False)
    args = [_replace(a, mapping) for a in expr.args]
    return rebuilt(expr, args) if args != list(expr.args) else expr
