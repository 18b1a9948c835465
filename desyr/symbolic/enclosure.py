"""Enclosing an expression's values over intervals of its symbols (``mpmath.iv``, outward rounding),
for the majorants of a series' terms (:mod:`desyr.symbolic.majorant`).

The verifier has its own, branch-and-bound, sign prover (``desyr.verify.intervals``); this one is a
single pass with no splitting: a majorant needs an upper bound, not a tight one.  Anything it cannot
enclose (an unknown symbol or function, a pole in the interval) raises :class:`Unenclosed`.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import mpmath
import sympy as sp
from mpmath import iv

from desyr.symbolic.eigenvalues import EigenvalueFunction
from desyr.symbolic.interval_numbers import Unenclosed, ends, excludes_zero, interval_precision, number

Intervals = Mapping[sp.Symbol, "iv.mpf"]


def _power(base: iv.mpf, exponent: sp.Expr) -> iv.mpf:
    if exponent.is_Integer:
        k = int(exponent)
        if k < 0 and not excludes_zero(base):
            raise Unenclosed("a negative power of an interval holding 0")
        out = iv.mpf(1)
        for _ in range(abs(k)):
            out = out * base
        if k % 2 == 0 and k:
            out = iv.mpf([max(out.a, 0), out.b])
        return out if k >= 0 else 1 / out
    if base.a < 0 or (base.a == 0 and exponent.is_negative):
        raise Unenclosed("a real power of an interval not positive")
    if base.a > 0:
        return iv.exp(number(exponent) * iv.log(base))
    top = iv.exp(number(exponent) * iv.log(iv.mpf(base.b))).b if base.b > 0 else 0     # x**q increases from 0
    return iv.mpf([0, top])


def _log(x: iv.mpf) -> iv.mpf:
    if x.a <= 0:
        raise Unenclosed("log of an interval not positive")
    return iv.log(x)


def _sqrt(x: iv.mpf) -> iv.mpf:
    if x.a < 0:
        raise Unenclosed("sqrt of an interval not nonnegative")
    return iv.sqrt(x)


def _sinh(x: iv.mpf) -> iv.mpf:
    return (iv.exp(x) - iv.exp(-x)) / 2


def _cosh(x: iv.mpf) -> iv.mpf:
    values = (iv.exp(x) + iv.exp(-x)) / 2
    return iv.mpf([1 if x.a <= 0 <= x.b else max(values.a, 1), values.b])


def _tanh(x: iv.mpf) -> iv.mpf:
    return iv.mpf([-1, 1]) if x.a < 0 < x.b else iv.tanh(x) if hasattr(iv, "tanh") else iv.mpf([-1, 1])


_UNARY: dict[type, Callable[[iv.mpf], iv.mpf]] = {
    sp.sin: iv.sin, sp.cos: iv.cos, sp.exp: iv.exp, sp.log: _log, sp.sinh: _sinh, sp.cosh: _cosh,
    sp.tanh: _tanh, sp.Abs: abs,
}


def enclose(expr: sp.Expr, intervals: Intervals) -> iv.mpf:
    """An interval holding ``expr``'s values where each symbol lies in its interval."""
    if expr.is_Number or expr in (sp.pi, sp.E):
        return number(expr)
    if isinstance(expr, sp.Symbol):
        if expr not in intervals:
            raise Unenclosed(f"no interval for {expr}")
        return intervals[expr]
    if isinstance(expr, sp.Add):
        out = iv.mpf(0)
        for a in expr.args:
            out = out + enclose(a, intervals)
        return out
    if isinstance(expr, sp.Mul):
        out = iv.mpf(1)
        for a in expr.args:
            out = out * enclose(a, intervals)
        return out
    if isinstance(expr, sp.Pow):
        if expr.exp == sp.Rational(1, 2):
            return _sqrt(enclose(expr.base, intervals))
        if not expr.exp.is_number:
            return iv.exp(enclose(expr.exp * sp.log(expr.base), intervals))
        return _power(enclose(expr.base, intervals), expr.exp)
    if isinstance(expr, sp.besselj) and expr.args[0].is_Integer and expr.args[0] >= 0:
        return iv.mpf([-1, 1])                 # |J_nu(x)| <= 1 for an integer order nu >= 0 and real x
    if isinstance(expr, EigenvalueFunction) and expr.is_number:
        return number(expr.evalf(30))
    function = _UNARY.get(type(expr))
    if function is None or len(expr.args) != 1:
        raise Unenclosed(f"cannot enclose {type(expr).__name__}")
    return function(enclose(expr.args[0], intervals))


def supremum(expr: sp.Expr, intervals: Intervals) -> float:
    """An upper bound of ``expr`` (a float at or above the enclosure's top)."""
    with interval_precision():
        top = ends(enclose(expr, intervals))[1]
    return _up(top)


def magnitude(expr: sp.Expr, intervals: Intervals) -> float:
    """An upper bound of ``|expr|``."""
    with interval_precision():
        low, high = ends(enclose(expr, intervals))
    return _up(max(abs(low), abs(high)))


def least_magnitude(expr: sp.Expr, intervals: Intervals) -> float:
    """A lower bound of ``|expr|``: 0 where the enclosure holds 0."""
    with interval_precision():
        low, high = ends(enclose(expr, intervals))
    if low <= 0 <= high:
        return 0.0
    least = min(abs(low), abs(high))
    out = float(least)
    return out if out <= least else math.nextafter(out, 0.0)


def _up(value: mpmath.mpf) -> float:
    """``value`` rounded up to a double."""
    if not mpmath.isfinite(value):
        if value > 0:
            return float("inf")
        raise Unenclosed("an enclosure without a finite top")
    out = float(value)
    return out if out >= value else math.nextafter(out, math.inf)
