"""Proving the sign of an expression on the whole box, not at sample points.

A kink or a pole between two sample points is invisible to sampling (an outside review hid
``abs(q)`` with a sign change 1e-5 wide between grid points).  So the verifier encloses the
expression's range over boxes with interval arithmetic (``mpmath.iv``, outward rounding) and
splits the boxes that straddle 0 (branch and bound).  A sign is *proved* when every leaf box
encloses values of that sign; a change is *found* when two points of opposite sign are
evaluated; anything else within the budget is *unknown*, which callers treat as failure.
The bounds are exact numbers (the config's ``0.1`` is 1/10, not the float below it): the first box
encloses each bound outward (:func:`box_of`), so a proof covers the domain as written, never a
float's rounding of it; a Python float given as a bound means its own binary value.
Boxes are split at exact binary points (never at an interval midpoint, whose width float() refuses),
and any failure inside a proof (an exception of mpmath or SymPy on some box) makes that box
unenclosed or the answer *unknown*: a sign proof never raises.
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Mapping

import mpmath
import sympy as sp
from mpmath import iv

from desyr.symbolic.eigenvalues import EigenvalueFunction
from desyr.verify.regions import Region, contains, outside

Box = dict[sp.Symbol, "iv.mpf"]
#: exact ends per variable (SymPy numbers; a float is its own binary value)
Bounds = Mapping[sp.Symbol, tuple[sp.Expr | float, sp.Expr | float]]
BOXES = 1500            # leaf boxes examined per question
SECONDS = 2.0           # and wall time per question


class Undefined(Exception):
    """The expression is not defined (or not supported) on the whole box."""


def _monotone(f: Callable[[mpmath.mpf], mpmath.mpf], increasing: bool = True) -> Callable[[iv.mpf], iv.mpf]:
    def apply(x: iv.mpf) -> iv.mpf:
        lo, hi = f(x.a), f(x.b)
        lo, hi = (lo, hi) if increasing else (hi, lo)
        return iv.mpf([lo, hi]) + iv.mpf([-1, 1]) * 1e-15 * (abs(lo) + abs(hi) + 1e-300)
    return apply


def _asin(x: iv.mpf) -> iv.mpf:
    if x.a < -1 or x.b > 1:
        raise Undefined("asin outside [-1, 1]")
    return _monotone(lambda v: mpmath.asin(mpmath.mpf(v)))(x)


def _acos(x: iv.mpf) -> iv.mpf:
    if x.a < -1 or x.b > 1:
        raise Undefined("acos outside [-1, 1]")
    return _monotone(lambda v: mpmath.acos(mpmath.mpf(v)), increasing=False)(x)


def _cosh(x: iv.mpf) -> iv.mpf:
    top = max(mpmath.cosh(mpmath.mpf(x.a)), mpmath.cosh(mpmath.mpf(x.b)))
    low = 1 if x.a <= 0 <= x.b else min(mpmath.cosh(mpmath.mpf(x.a)), mpmath.cosh(mpmath.mpf(x.b)))
    return iv.mpf([low, top]) + iv.mpf([-1, 1]) * 1e-15 * top


def _log(x: iv.mpf) -> iv.mpf:
    if x.a <= 0:
        raise Undefined("log of a quantity that is not positive")
    return iv.log(x)


def _tan(x: iv.mpf) -> iv.mpf:
    c = iv.cos(x)
    if c.a <= 0 <= c.b:
        raise Undefined("tan at a pole")
    return iv.sin(x) / c


def _reciprocal(f: Callable[[iv.mpf], iv.mpf], name: str) -> Callable[[iv.mpf], iv.mpf]:
    """``1/f``: csch and coth have a pole at 0, sech none (cosh >= 1)."""
    def apply(x: iv.mpf) -> iv.mpf:
        value = f(x)
        if value.a <= 0 <= value.b:
            raise Undefined(f"{name} at its pole")
        return 1 / value
    return apply


def _at_point(f: Callable[[mpmath.mpf], mpmath.mpf], name: str) -> Callable[[iv.mpf], iv.mpf]:
    """A function without an interval rule, enclosed only at a point (mpmath's value, widened as
    :func:`_monotone` widens): a box of any width is not enclosed, so a sign or a bound that needs it
    stays *unknown* (docs/verify.md), never a guess."""
    def apply(x: iv.mpf) -> iv.mpf:
        if x.a != x.b:
            raise Undefined(f"no interval rule for {name} on a box")
        return _monotone(f)(x)
    return apply


def _bessel(expr: sp.Expr, x: iv.mpf) -> iv.mpf:
    """J, Y, I, K of an exact order: at a point, mpmath's value; on a box, |J_nu| <= 1 (nu >= 0 or an
    integer), I_nu increasing on x >= 0 (integer nu, or nu > 0) and K_nu decreasing on x > 0; else
    not enclosed (Y has no rule)."""
    order, name = expr.args[0], type(expr).__name__
    nu = mpmath.mpf(int(order.p)) / int(order.q)
    point = getattr(mpmath, name)
    if isinstance(expr, (sp.bessely, sp.besselk)) and x.a <= 0:
        raise Undefined(f"{name} at or beyond its branch point 0")
    if not order.is_integer and x.a <= 0:
        raise Undefined(f"{name} of a non-integer order at or beyond 0")
    if x.a == x.b:
        return _monotone(lambda v: point(nu, mpmath.mpf(v)))(x)
    if isinstance(expr, sp.besselj) and (order.is_integer or order >= 0):
        return iv.mpf([-1, 1])
    if isinstance(expr, sp.besseli) and (order.is_integer or order > 0) and x.a >= 0:
        return _monotone(lambda v: point(abs(nu) if order.is_integer else nu, mpmath.mpf(v)))(x)
    if isinstance(expr, sp.besselk):
        return _monotone(lambda v: point(nu, mpmath.mpf(v)), increasing=False)(x)
    raise Undefined(f"no interval rule for {name} of order {order} on a box")


FUNCTIONS: dict[type, Callable[[iv.mpf], iv.mpf]] = {
    sp.sin: iv.sin, sp.cos: iv.cos, sp.exp: iv.exp, sp.log: _log, sp.tan: _tan,
    sp.atan: _monotone(lambda v: mpmath.atan(mpmath.mpf(v))), sp.asin: _asin, sp.acos: _acos,
    sp.sinh: _monotone(lambda v: mpmath.sinh(mpmath.mpf(v))), sp.cosh: _cosh,
    sp.tanh: _monotone(lambda v: mpmath.tanh(mpmath.mpf(v))), sp.Abs: abs,
    sp.erf: _monotone(lambda v: mpmath.erf(mpmath.mpf(v))),
    sp.erfc: _monotone(lambda v: mpmath.erfc(mpmath.mpf(v)), increasing=False),
    sp.sech: _reciprocal(_cosh, "sech"),
    sp.csch: _reciprocal(_monotone(lambda v: mpmath.sinh(mpmath.mpf(v))), "csch"),
    sp.coth: _reciprocal(_monotone(lambda v: mpmath.tanh(mpmath.mpf(v))), "coth"),
    sp.airyai: _at_point(lambda v: mpmath.airyai(mpmath.mpf(v)), "airyai"),
    sp.airybi: _at_point(lambda v: mpmath.airybi(mpmath.mpf(v)), "airybi"),
}


def enclose(expr: sp.Expr, box: Box) -> iv.mpf:
    """An interval holding every value of ``expr`` on ``box``; Undefined where it is not defined there."""
    if expr.is_Symbol:
        return box[expr]
    if expr.is_Rational:
        return iv.mpf(int(expr.p)) / iv.mpf(int(expr.q))
    if expr.is_Float:
        # its exact binary value, outward at the working precision (float() would round to nearest)
        return enclose(sp.Rational(expr), box)
    if expr is sp.pi:
        return iv.pi
    if expr is sp.E:
        return iv.e
    if isinstance(expr, sp.Add):
        return sum((enclose(a, box) for a in expr.args[1:]), enclose(expr.args[0], box))
    if isinstance(expr, sp.Mul):
        out = enclose(expr.args[0], box)
        for a in expr.args[1:]:
            out = out * enclose(a, box)
        return out
    if isinstance(expr, sp.Pow):
        return _power(expr, box)
    if isinstance(expr, (sp.besselj, sp.bessely, sp.besseli, sp.besselk)):
        return _bessel(expr, enclose(expr.args[1], box))
    if isinstance(expr, EigenvalueFunction) and expr.is_number and expr.index.is_Integer:
        return _named_root(expr)
    f = FUNCTIONS.get(type(expr))
    if f is None:
        raise Undefined(f"no interval rule for {type(expr).__name__}")
    return f(enclose(expr.args[0], box))


def _named_root(expr: EigenvalueFunction) -> iv.mpf:
    """A named root at a given index (a growing mode's ``robinsinhroot(1, ...)`` outside its sum): positive by
    definition, its value polished at 200 bits inside the bracket its isolation proved, then widened far
    beyond that polish's error (the signs and poles decided with it need only a few digits)."""
    with mpmath.workprec(220):
        value = mpmath.mpf(expr.mpmath_value(int(expr.index), 200))
    if not value > 0:
        raise Undefined(f"{type(expr).__name__} at index {expr.index} has no positive value")
    width = abs(value) * mpmath.mpf(2) ** -100
    return iv.mpf([value - width, value + width])


def _power(expr: sp.Pow, box: Box) -> iv.mpf:
    base, exponent = expr.args
    b = enclose(base, box)
    if exponent.is_Integer:
        n = int(exponent)
        if n >= 0:
            return b ** n
        if b.a <= 0 <= b.b:
            raise Undefined("division by a quantity that reaches 0")
        return 1 / (b ** (-n))
    if b.a <= 0:
        raise Undefined("a non-integer power of a quantity that is not positive")
    return iv.exp(enclose(exponent, box) * iv.log(b))


def exact(value: sp.Expr | float) -> sp.Expr:
    """A bound as an exact SymPy number (a float: its own binary value, never a decimal guess)."""
    if isinstance(value, float):
        return sp.Rational(value)
    return sp.sympify(value)


def box_of(bounds: Bounds) -> Box:
    """The interval box enclosing the exact box ``bounds``: each end rounded outward."""
    out: Box = {}
    for s, (lo, hi) in bounds.items():
        a, b = enclose(exact(lo), {}), enclose(exact(hi), {})
        out[s] = iv.mpf([mpmath.mpf(a.a), mpmath.mpf(b.b)])
    return out


def sign_on(expr: sp.Expr, bounds: Bounds, strict: bool, region: Region | None = None) -> str:
    """"positive" / "negative" (proved on the whole box, or on the part of it in ``region``; ``strict``:
    never 0), "changes" (two points of opposite sign found in it), or "unknown"."""
    try:
        return _constant_sign(expr) or _sign_on(expr, bounds, strict, region)
    except Exception:  # noqa: BLE001 - a proof that fails shows no sign: "unknown", never a crash
        return "unknown"


def _constant_sign(expr: sp.Expr) -> str | None:
    """The sign of a number with no variable in it, from SymPy's evaluation with its error tracked (``strict``:
    it raises where it cannot tell the number from 0), or None: the intervals enclose no ``gamma(2/3)``, so
    ``airyai(0)*cos(y)`` had been refused as not finite (red team 44i)."""
    if expr.free_symbols:
        return None
    value = sp.N(expr, 30, strict=True)
    if not (value.is_real and value.is_Number) or value == 0:
        return None
    return "positive" if value > 0 else "negative"


def _sign_on(expr: sp.Expr, bounds: Bounds, strict: bool, region: Region | None) -> str:
    queue: deque[Box] = deque([box_of(bounds)])
    signs: set[str] = set()
    seen: set[int] = set()
    clock, examined = time.perf_counter(), 0
    while queue:
        if examined >= BOXES or time.perf_counter() - clock > SECONDS:
            return "unknown"
        box = queue.popleft()
        examined += 1
        if region is not None and outside(region, box, enclose):
            continue
        try:
            value = enclose(expr, box)
            if value.a > 0 or (not strict and value.a >= 0):
                signs.add("positive")
                continue
            if value.b < 0 or (not strict and value.b <= 0):
                signs.add("negative")
                continue
        except Exception:  # noqa: BLE001 - Undefined, or mpmath failing on this box: not enclosed here
            pass
        seen |= _point_sign(expr, box, region)
        if seen == {1, -1}:
            return "changes"
        halves = _halves(box)
        if not halves:
            return "unknown"      # a point (or a box too narrow to split) whose sign was not enclosed
        queue.extend(halves)
    if signs == {"positive"}:
        return "positive"
    if signs == {"negative"}:
        return "negative"
    return "changes"


def _point_sign(expr: sp.Expr, box: Box, region: Region | None = None) -> set[int]:
    centre = {s: iv.mpf(_middle(v)) for s, v in box.items()}
    if region is not None and not contains(region, centre, enclose):
        return set()          # a sign outside the domain says nothing
    try:
        value = enclose(expr, centre)
    except Exception:  # noqa: BLE001 - not evaluated here: no sign
        return set()
    return {1} if value.a > 0 else {-1} if value.b < 0 else set()


def _ends(v: iv.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The endpoints as exact binary numbers (``v.a`` is a point interval, which mpf takes exactly)."""
    return mpmath.mpf(v.a), mpmath.mpf(v.b)


def _middle(v: iv.mpf) -> mpmath.mpf:
    """A binary number between the endpoints (the rounded midpoint: any inner point splits a box)."""
    lo, hi = _ends(v)
    return lo + (hi - lo) / 2


def _halves(box: Box) -> list[Box]:
    """The box split across its widest side at an exact point; [] when no side can be split."""
    if not box:
        return []
    widest = max(box, key=lambda s: float(_ends(box[s])[1] - _ends(box[s])[0]))
    lo, hi = _ends(box[widest])
    mid = _middle(box[widest])
    if not lo < mid < hi:
        return []
    return [{**box, widest: iv.mpf([lo, mid])}, {**box, widest: iv.mpf([mid, hi])}]
