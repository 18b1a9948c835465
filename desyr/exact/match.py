"""Post hoc symbolic match of a solution against a reference (never used for selection).

A field matches when ``expr - reference`` is zero. Deciding that is undecidable
in general, so the test is two-sided and documented in ``docs/exact.md``:

1. cheap algebra: ``expand`` of the difference, then ``sympy.simplify`` for
   short differences only (it can run for minutes on long trees), exact zero wins;
2. otherwise a zero test: the difference evaluated at ``POINTS`` random rational
   points with ``DIGITS`` significant digits (mpmath, through ``evalf``) must
   vanish to within ``10**-(DIGITS - 10)`` times the size of the two sides, so an
   expression that only matches to round-off is *not* a symbolic match.

Floats on either side are first read as the decimals they print as (exact rationals).  Series are
compared term by term, else at points where their proved tail bounds are far below the digits used
(:mod:`desyr.exact.series_match`).
"""
from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from fractions import Fraction

import sympy as sp

from desyr.symbolic.series import has_series
from desyr.symbolic.simplify import bounded_simplify

SIMPLIFY_MAX_NODES = 80
POINTS = 6
DIGITS = 50


def symbolic_match(exprs: Mapping[str, sp.Expr], reference: Mapping[str, sp.Expr] | None,
                   symbols: Sequence[sp.Symbol], bounds: Sequence[tuple[float, float]] | None = None,
                   seed: int = 0) -> bool | None:
    """True if every reference field is matched exactly, False if any is not, None without reference.

    ``bounds`` (one (lo, hi) per symbol) places the random points in the domain; the
    default is [0, 1] per variable.
    """
    if not reference:
        return None
    names = {s.name: s for s in symbols}
    for field, ref in reference.items():
        if field not in exprs:
            return False
        if not _field_match(exprs[field], _rename(ref, names), list(symbols), bounds, seed):
            return False
    return True


def _rename(expr: sp.Expr, names: Mapping[str, sp.Symbol]) -> sp.Expr:
    """Symbols with the same name but other assumptions are the same variable here."""
    return expr.xreplace({s: names[s.name] for s in expr.free_symbols if s.name in names})


def _decimal(expr: sp.Expr) -> sp.Expr:
    """Floats read as the decimal they print as (0.88 -> 22/25, 3.141592653589793 stays
    that rational, not pi): a reference written with decimals means those decimals."""
    expr = sp.sympify(expr)
    return expr.xreplace({f: _simplest_rational(float(f)) for f in expr.atoms(sp.Float)})


def _simplest_rational(value: float) -> sp.Rational:
    """The decimal a float prints as, or a simpler rational within round-off: ``5e-5/24`` is folded
    to 2.0833333333333333e-06 when a reference is read, and means 1/480000."""
    near = Fraction(value).limit_denominator(10**12)
    if abs(float(near) - value) <= 4 * math.ulp(value):
        return sp.Rational(near.numerator, near.denominator)
    return sp.Rational(repr(value))


def _field_match(expr: sp.Expr, ref: sp.Expr, symbols: Sequence[sp.Symbol],
                 bounds: Sequence[tuple[float, float]] | None, seed: int) -> bool:
    expr, ref = _decimal(expr), _decimal(ref)
    if has_series(expr) or has_series(ref):
        from desyr.exact.series_match import series_match
        spans = list(bounds) if bounds is not None else [(0.0, 1.0)] * len(symbols)
        return series_match(expr, ref, symbols, spans, seed)
    diff = expr - ref
    if diff == 0 or sp.expand(diff) == 0:
        return True
    if bounded_simplify(diff, SIMPLIFY_MAX_NODES) == 0:     # None (not tried, failed, too slow) falls through
        return True
    return _zero_at_random_points(diff, expr, ref, symbols, bounds, seed)


def _zero_at_random_points(diff: sp.Expr, expr: sp.Expr, ref: sp.Expr, symbols: Sequence[sp.Symbol],
                           bounds: Sequence[tuple[float, float]] | None, seed: int) -> bool:
    rng = random.Random(seed)
    spans = list(bounds) if bounds is not None else [(0.0, 1.0)] * len(symbols)
    tol = sp.Float(10) ** (-(DIGITS - 10))
    evaluated = 0
    for _ in range(POINTS):
        point = {s: sp.Rational(lo) + (sp.Rational(hi) - sp.Rational(lo)) * sp.Rational(rng.randint(1, 999), 1000)
                 for s, (lo, hi) in zip(symbols, spans)}
        try:
            d = sp.N(diff.xreplace(point), DIGITS)
            size = max(abs(sp.N(expr.xreplace(point), DIGITS)), abs(sp.N(ref.xreplace(point), DIGITS)), 1)
        except Exception:  # an unevaluable point says nothing either way; try the next one
            continue
        if not d.is_number or abs(d) > tol * size:
            return False
        evaluated += 1
    return evaluated > 0     # no evaluable point proves nothing
