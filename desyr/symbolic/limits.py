"""Degenerate limits: constants of a frozen tree that ran off to huge values while the tree stayed moderate.

``c0/(1 + c1*x)`` cannot be ``-1/x``; it reaches it only as c0, c1 -> infinity with c0/c1 -> -1, so a
refit for a problem solved by ``-1/x`` ends at ``-143254104.04/(1 + 143254103.66*x)``: exact to about
1e-8, but the ``1`` has become negligible, the verdict passes the tolerance by a small factor and no
constant has a closed form.  This is the companion of gauge fixing (:mod:`desyr.symbolic.gauge`): there
the function does not change along a curve of constants, here it changes less and less towards its end.

The tree is rewritten at that end.  Constants whose magnitude lies above a gap of :data:`GAP` over every
other constant and over 1 (the tree's exact numbers) are *diverging*.  With the smallest diverging
magnitude L, each is written ``a = b * eps**(-r)``, its rate r = round(log|a| / log L) >= 1 and b = a/L**r,
and the limit eps -> 0+ is taken: the tree must be a rational function of eps there (a diverging constant
inside exp, sin, ... has no such limit and is declined), each term of a top-level sum is cancelled to
N(eps)/D(eps) and its lowest-order coefficients kept (dividing numerator and denominator through by the
diverging constant), so terms whose coefficient goes to 0 are dropped.  A term that would diverge sends
the whole sum through the same step (the huge parts may cancel); an infinite limit is declined.

The limit tree must reproduce the tree's values to :data:`VALUE_TOLERANCE` on the points (the tree was
near its limit); the caller refits it with the physics and keeps it only under its acceptance check.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sympy as sp

from desyr.symbolic.numeric import evaluate
from desyr.symbolic.parameterize import parameterize

#: a constant is diverging when it exceeds every non-diverging constant and 1 by this factor
GAP = 1e5
#: the limit tree's values must match the tree's to this (RMS, relative to the values' RMS)
VALUE_TOLERANCE = 1e-3
#: larger trees are left alone: cancelling them is SymPy work without bound
MAX_NODES = 200
#: the highest rate taken (a = b * L**r): beyond it a constant is not a power of the others' scale
MAX_RATE = 4
#: a float at most this in magnitude is a constant that ran off to 0 (the verifier's exact tolerance,
#: MethodConstants.exact_tolerance): it is proposed as 0 wherever it sits in the tree
VANISHING = 1e-8
#: where the tree is refit and checked afterwards (Stage C), a float up to this is proposed as 0: a refit
#: stops about sqrt(eps) from an exact constant along a direction where the residual grows only
#: quadratically (the heat kernel ``exp((c - s/4)/(1 + t))/(b + t)`` is exact to first order on c = b - 1,
#: and the refit left c = -1.2e-8); with the constant at 0 the refit pins the others
REFIT_VANISHING = 1e-6


def diverging(values: Sequence[float]) -> list[int]:
    """Indices of the constants above the lowest gap of :data:`GAP` in the sorted magnitudes, 1 included
    (so a constant of 1e8 beside the tree's exact numbers diverges, one of 3e4 does not)."""
    mags = sorted({1.0, *(abs(float(v)) for v in values if math.isfinite(v))})
    for lo, hi in zip(mags, mags[1:]):
        if lo >= 1.0 and hi >= GAP * lo:
            return [i for i, v in enumerate(values) if abs(v) >= hi]
    return []


def limit_tree(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray) -> sp.Expr | None:
    """``expr`` at the limit its diverging constants point to, or None when none diverges, the limit is
    not finite or not rational in them, or it does not reproduce ``expr``'s values on ``X``."""
    par = parameterize(expr)
    huge = diverging(par.values)
    if not huge or sp.count_ops(expr) > MAX_NODES:
        return None
    eps = sp.Dummy("eps", positive=True)
    scale = min(abs(par.values[i]) for i in huge)
    subs: dict[sp.Symbol, sp.Expr] = {}
    for i, (s, v) in enumerate(zip(par.symbols, par.values)):
        if i in huge:
            rate = min(max(round(math.log(abs(v)) / math.log(scale)), 1), MAX_RATE)
            subs[s] = sp.Float(v / scale ** rate) * eps ** -rate
        else:
            subs[s] = sp.Float(v)
    limit = _limit(par.expression.xreplace(subs), eps)
    if limit is None or limit.has(eps) or limit == expr:
        return None
    return limit if _reproduces(expr, limit, symbols, X) else None


def vanishing_tree(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray,
                   tolerance: float = VANISHING) -> sp.Expr | None:
    """``expr`` with every float of magnitude at most ``tolerance`` set to 0 (an Allen-Cahn front's
    shift of 8.7e-12, below the parameterization's own floor, so no refit ever moves it), or None when
    there is none or the tree without them does not reproduce ``expr``'s values on ``X``."""
    tiny = {f: sp.Integer(0) for f in expr.atoms(sp.Float) if abs(float(f)) <= tolerance}
    if not tiny:
        return None
    zeroed = expr.xreplace(tiny)
    return zeroed if zeroed != expr and _reproduces(expr, zeroed, symbols, X) else None


def _limit(expr: sp.Expr, eps: sp.Symbol) -> sp.Expr | None:
    """The limit eps -> 0+ of a tree: each function of eps (``atan(b*y/(b*x - eps))``) is taken at its
    argument's finite limit first (:func:`_inside`), then the tree, rational in eps, term by term where
    every term's is finite."""
    expr = _inside(expr, eps)
    if expr is None:
        return None
    terms = sp.Add.make_args(expr)
    leads = [lead for lead in (_leading(t, eps) for t in terms) if lead is not None]
    if len(leads) == len(terms) and all(order >= 0 for order, _ in leads):
        return sp.Add(*[c for order, c in leads if order == 0])
    if len(terms) == 1:
        return None
    whole = _leading(expr, eps)
    return whole[1] if whole is not None and whole[0] == 0 else None


def _inside(expr: sp.Expr, eps: sp.Symbol) -> sp.Expr | None:
    """``expr`` with every function of eps, and every power of eps with an exponent that is not an
    integer, replaced by its value at the limit of its argument, or None where an argument has no
    finite limit (``tanh(b*x/eps)``) or a power's base goes to 0.  Continuity of the function is what
    makes this the limit; the caller's value check catches a tree where a diverging factor multiplies
    the function's vanishing correction."""
    if not expr.has(eps):
        return expr
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer:
        base = _inside(expr.base, eps)
        return None if base is None else sp.Pow(base, expr.exp)
    if isinstance(expr, (sp.Add, sp.Mul)):
        args = [_inside(a, eps) for a in expr.args]
        return None if any(a is None for a in args) else expr.func(*args)
    if isinstance(expr, sp.Pow):
        if expr.exp.has(eps):
            return None
        base = _limit(expr.base, eps)
        return None if base is None or base.has(eps) or base == 0 else sp.Pow(base, expr.exp)
    if isinstance(expr, sp.Function) and expr.args:
        args = [_limit(a, eps) for a in expr.args]
        if any(a is None or a.has(eps) for a in args):
            return None
        return expr.func(*args)
    return expr if expr == eps else None


def _leading(expr: sp.Expr, eps: sp.Symbol) -> tuple[int, sp.Expr] | None:
    """(k, c) with expr = c*eps**k + higher orders, or None where expr is not rational in eps."""
    if not expr.has(eps):
        return 0, expr
    num, den = sp.together(expr).as_numer_denom()
    try:
        pn, pd = sp.Poly(sp.expand(num), eps), sp.Poly(sp.expand(den), eps)
    except sp.PolynomialError:
        return None
    if pn.is_zero or pd.is_zero:
        return None
    (kn,), cn = _lowest(pn)
    (kd,), cd = _lowest(pd)
    return kn - kd, cn / cd


def _lowest(poly: sp.Poly) -> tuple[tuple[int], sp.Expr]:
    monomial, coeff = poly.terms()[-1]      # terms() is in decreasing degree
    return monomial, sp.factor_terms(coeff)


def _reproduces(expr: sp.Expr, limit: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray) -> bool:
    try:
        with np.errstate(all="ignore"):
            before, after = evaluate(expr, symbols, X), evaluate(limit, symbols, X)
    except Exception:   # a limit numpy cannot evaluate is no candidate
        return False
    if not (np.all(np.isfinite(before)) and np.all(np.isfinite(after))):
        return False
    scale = float(np.sqrt(np.mean(before ** 2)))
    return scale > 0 and float(np.sqrt(np.mean((after - before) ** 2))) <= VALUE_TOLERANCE * scale
