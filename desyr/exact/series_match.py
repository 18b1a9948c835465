"""The post hoc match of a series against a reference (``docs/exact.md``).

Two series over the same ranges match when their merged term simplifies to 0 (the same series,
written alike).  Otherwise (the same function written with another index or form: ``(2*k - 1)``
against ``(1 - (-1)**n)``), at random points where each series' proved tail bound at that point is
below ``10**-(DIGITS - 5)`` within :data:`MOST_TERMS` terms, the partial sums at ``DIGITS`` digits must
agree to ``10**-(DIGITS - 10)`` of their size.  No such point, or a double or nested sum that the
bounds do not cover: no match is claimed.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

import sympy as sp

from desyr.symbolic.series import merge_sums, outer_sums, sum_bound
from desyr.symbolic.simplify import SIMPLIFY_SECONDS, bounded_simplify, simplifiable
from desyr.symbolic.time_limit import OutOfTime, time_limit

POINTS = 4
DIGITS = 30
MOST_TERMS = 200
SIMPLIFY_MAX_NODES = 200


def series_match(expr: sp.Expr, ref: sp.Expr, symbols: Sequence[sp.Symbol],
                 spans: Sequence[tuple[float, float]], seed: int) -> bool:
    difference = merge_sums(sp.expand(expr - ref))
    if difference == 0 or all(_term_is_zero(s) for s in outer_sums(difference)) and _rest(difference) == 0:
        return True
    rng = random.Random(seed)
    agreed = 0
    for _ in range(3 * POINTS):
        point = {s: sp.Rational(lo) + (sp.Rational(hi) - sp.Rational(lo)) * sp.Rational(rng.randint(1, 999), 1000)
                 for s, (lo, hi) in zip(symbols, spans)}
        values = [_value(e, point) for e in (expr, ref)]
        if values[0] is None or values[1] is None:
            continue
        size = max(abs(values[0]), abs(values[1]), sp.Integer(1))
        if abs(values[0] - values[1]) > sp.Float(10) ** (10 - DIGITS) * size:
            return False
        agreed += 1
        if agreed == POINTS:
            return True
    return False


def _term_is_zero(total: sp.Sum) -> bool:
    term = total.function
    return bool(term == 0 or sp.expand(term) == 0 or _exponentials_cancel(term)
                or bounded_simplify(term, SIMPLIFY_MAX_NODES) == 0)


def _exponentials_cancel(term: sp.Expr) -> bool:
    """Whether ``term``, its hyperbolic functions written as exponentials, is 0 over one denominator: the
    same Laplace series written with ``cosh`` of a shifted argument and with a sum of ``sinh`` (a fifth of
    the time ``simplify`` takes to see it)."""
    if not term.has(sp.sinh, sp.cosh, sp.tanh, sp.coth) or not simplifiable(term, SIMPLIFY_MAX_NODES):
        return False
    try:
        with time_limit(SIMPLIFY_SECONDS):
            return bool(sp.expand(sp.together(sp.expand(term.rewrite(sp.exp)))) == 0)
    except OutOfTime:
        return False


def _rest(expr: sp.Expr) -> sp.Expr:
    return sp.expand(expr.xreplace({s: sp.Integer(0) for s in outer_sums(expr)}))


def _value(expr: sp.Expr, point: dict[sp.Symbol, sp.Expr]) -> sp.Expr | None:
    """``expr`` at ``point`` to ``DIGITS`` digits, each sum cut where its bound at the point is negligible."""
    box = {s: (float(v), float(v)) for s, v in point.items()}
    replace: dict[sp.Basic, sp.Expr] = {}
    for total in outer_sums(expr):
        if len(total.limits) != 1:
            return None
        bound = sum_bound(total, box)
        terms = None if bound is None else bound.terms_for(10.0 ** (5 - DIGITS), MOST_TERMS)
        if terms is None:
            return None
        (index, lower, _), = total.limits
        at = total.function.xreplace(point)
        replace[total] = sp.Add(*[sp.N(at.xreplace({index: sp.Integer(n)}), DIGITS)
                                  for n in range(int(lower), int(lower) + terms)])
    try:
        value = sp.N(expr.xreplace(replace).xreplace(point), DIGITS)
    except (TypeError, ValueError, ArithmeticError):
        return None
    return value if value.is_number and value.is_finite else None
