"""Is the printed formula the proved exact form, floats aside?

A proof is about the exact form; a reader reads the printed formula.  The two used to be tied
by their agreement on interior sample points, which a spike narrower than the points' spacing
passes (``sin(pi*x) + 1000*exp(-10**12*(x - 0.5)**2)`` beside ``sin(pi*x)``).  So the printed
formula P counts as the exact form E only when

1. each float f of P stands for an exact constant c near it (a number in E, its negative or
   reciprocal, such a number over the exact factors beside f in its product, or a short closed
   form of f), and SymPy reduces P(c) - E to exactly 0, or, where P(c) - E holds logarithms and is
   shown real on the domain, exp(P(c) - E) to exactly 1 (the real exponential is one-to-one, and
   SymPy cancels quotients of logarithms' arguments that it cannot combine as sums of logarithms); and
2. the floats' distance to those constants cannot move P far from E anywhere on the closed
   domain: by the mean-value theorem, |P(f) - P(c)| <= sum_i sup|dP/dc_i| * |f_i - c_i|, the
   sup enclosed by interval arithmetic over the domain's box (split where the enclosure is
   loose or undefined, boxes proved outside the shape dropped) and c_i over the hull of f_i
   and its constant.  A tiny float inside a steep term (``10**20*exp(-10**12*(1.00000000001*x
   - 1/2)**2)``) has a huge derivative there, and fails.

The bound must be within :data:`AGREEMENT` of the size of E.  Anything not shown (no constant,
no reduction, no enclosure within the budget) leaves the printed formula at most Verified.
"""
from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp
from mpmath import iv

from desyr.exact.identify import propose
from desyr.model.problem import Problem
from desyr.symbolic.numeric import evaluate
from desyr.verify.intervals import box_of, enclose
from desyr.verify.proof import is_zero, reduces
from desyr.verify.regions import domain_bounds, domain_region, outside

#: the printed formula may differ from the exact form by this much, relative to the exact form's size
AGREEMENT = 1e-9
#: a float stands for a constant only this close to it (relative); the bound then decides
MATCH = 1e-8
POOL = 400              # numbers of the exact form considered per expression
BOXES = 400             # boxes of the bound's branch and bound
SECONDS = 2.0
DIGITS = 30


def printed_difference(problem: Problem, printed: Mapping[str, sp.Expr], form: Mapping[str, sp.Expr],
                       X: np.ndarray) -> str | None:
    """None when every printed expression is its exact form floats aside; otherwise why not (one line)."""
    for name in [*problem.fields, *problem.unknown_names]:
        try:
            why = _differs(problem, printed[name], form[name], X)
        except Exception as exc:  # noqa: BLE001 - a failure to show it is "not shown", never a crash
            why = f"it could not be compared ({type(exc).__name__})"
        if why is not None:
            return f"the printed {name} is not shown to be the proved exact form: {why}"
    return None


def _differs(problem: Problem, p: sp.Expr, e: sp.Expr, X: np.ndarray) -> str | None:
    floats = sorted(p.atoms(sp.Float), key=sp.default_sort_key)
    points = [{s: float(v) for s, v in zip(problem.symbols, row)} for row in X[:3]]
    if not floats:
        return None if p == e or is_zero(p - e, points) else "they are not symbolically equal"
    pool = _numbers(e)
    beside = _cofactors(p)
    mapping: dict[sp.Float, sp.Expr] = {}
    for f in floats:
        c = _constant(f, pool, beside.get(f, ()))
        if c is None:
            return f"its constant {_short(f)} is no exact number near it"
        mapping[f] = c
    gap = p.xreplace(mapping) - e
    if not reduces(problem, gap, points):
        return "with its decimals as exact constants it does not reduce to the exact form"
    moved = {f: c for f, c in mapping.items() if not _equal(f, c)}
    if not moved:
        return None
    scale = _size(problem, e, X)
    if not np.isfinite(scale):
        return "the exact form's size is not finite"
    bound = _bound(problem, p, moved, AGREEMENT * scale)
    if bound is None:
        return f"the effect of its decimals could not be bounded within {AGREEMENT:g} of the exact form's size"
    return None


def _numbers(e: sp.Expr) -> list[tuple[sp.Expr, mpmath.mpf]]:
    """Every real number of ``e`` (each node free of variables, and each sum's or product's part
    free of them), with its negative and reciprocal, and its value."""
    found: dict[sp.Expr, None] = {}
    for node in itertools.islice(sp.preorder_traversal(e), POOL):
        if not isinstance(node, sp.Expr):
            continue
        if node.free_symbols and isinstance(node, (sp.Add, sp.Mul)):
            node = node.as_independent(*node.free_symbols, as_Add=isinstance(node, sp.Add))[0]
        if node.is_number and node != 0:
            found.update({node: None, -node: None, 1 / node: None})
    out = []
    for c in found:
        value = sp.N(c, DIGITS)
        if value.is_real and value.is_finite:
            out.append((c, mpmath.mpf(str(value))))
    return out


def _cofactors(p: sp.Expr) -> dict[sp.Float, list[sp.Expr]]:
    """For each float that shares a product with exact numbers (``1.316*3**(1/4)``), those numbers' product:
    the float may stand for a number of the exact form divided by it (``sqrt(3)/3**(1/4)``)."""
    out: dict[sp.Float, list[sp.Expr]] = {}
    for node in itertools.islice(sp.preorder_traversal(p), POOL):
        if not isinstance(node, sp.Mul):
            continue
        numbers = [a for a in node.args if a.is_number]
        floats = [a for a in numbers if a.is_Float]
        rest = [a for a in numbers if not a.is_Float]
        if len(floats) == 1 and rest and not any(a.has(sp.Float) for a in rest):
            out.setdefault(floats[0], []).append(sp.Mul(*rest))
    return out


def _constant(f: sp.Float, pool: list[tuple[sp.Expr, mpmath.mpf]], beside: Sequence[sp.Expr] = ()) -> sp.Expr | None:
    """The exact number ``f`` stands for, within :data:`MATCH`: the closest number of the exact form (or of
    it over the exact factors ``beside`` ``f``), else the simplest short closed form of ``f``, else its
    decimal as written (the bound judges the gap)."""
    value = mpmath.mpf(repr(float(f)))
    if value == 0:
        return sp.Integer(0)
    with mpmath.workdps(DIGITS):
        close = [(abs(v - value), i, c) for i, (c, v) in enumerate(pool) if abs(v - value) <= MATCH * abs(value)]
        if close:
            return min(close, key=lambda t: (t[0], t[1]))[2]
        for k in beside:
            kv = mpmath.mpf(str(sp.N(k, DIGITS)))
            if kv == 0 or not mpmath.isfinite(kv):
                continue
            close = [(abs(v / kv - value), i, c) for i, (c, v) in enumerate(pool)
                     if abs(v / kv - value) <= MATCH * abs(value)]
            if close:
                return min(close, key=lambda t: (t[0], t[1]))[2] / k
        for c in propose(float(f)):
            if abs(mpmath.mpf(str(sp.N(c, DIGITS))) - value) <= MATCH * abs(value):
                return c
    return sp.Rational(repr(float(f)))


def _equal(f: sp.Float, c: sp.Expr) -> bool:
    """Whether the float is exactly the constant (0.5 and 1/2): it then moves nothing."""
    return bool(c.is_Rational and sp.Rational(f) == c)


def _size(problem: Problem, e: sp.Expr, X: np.ndarray) -> float:
    if not e.free_symbols:
        return abs(float(sp.N(e, DIGITS)))
    values = evaluate(e, problem.symbols, X)
    return float(np.max(np.abs(values))) if values.size else float("nan")


def _bound(problem: Problem, p: sp.Expr, moved: Mapping[sp.Float, sp.Expr], limit: float) -> float | None:
    """An upper bound on |P(f) - P(c)| over the domain's box when it is at most ``limit``, else None."""
    dummies = {f: sp.Dummy("c") for f in moved}
    ps = p.xreplace(dummies)
    terms = []
    hulls: dict[sp.Symbol, object] = {}
    for f, c in moved.items():
        exact = enclose(c, {})
        lo, hi = min(_mpf(exact.a), mpmath.mpf(float(f))), max(_mpf(exact.b), mpmath.mpf(float(f)))
        hulls[dummies[f]] = iv.mpf([lo, hi])
        terms.append((sp.diff(ps, dummies[f]), hi - lo))
    box: dict[sp.Symbol, object] = dict(box_of(domain_bounds(problem)))   # the domain as written, outward
    region = domain_region(problem)
    clock = time.perf_counter()
    counter = itertools.count()
    first = _box_bound(terms, box, hulls)
    heap = [(-first, next(counter), box)]
    for _ in range(BOXES):
        worst, _, top = heap[0]
        if -worst <= limit:
            return float(-worst)
        if time.perf_counter() - clock > SECONDS or not top:
            return None
        heapq.heappop(heap)
        for half in _halves(top):
            if region is not None and outside(region, half, enclose):
                continue
            heapq.heappush(heap, (-_box_bound(terms, half, hulls), next(counter), half))
        if not heap:
            return 0.0
    return None


def _box_bound(terms: list[tuple[sp.Expr, mpmath.mpf]], box: dict[sp.Symbol, object],
               hulls: Mapping[sp.Symbol, object]) -> float:
    total = mpmath.mpf(0)
    for derivative, width in terms:
        try:
            value = enclose(derivative, {**box, **hulls})
        except Exception:  # noqa: BLE001 - undefined or not enclosed on this box: unbounded, split it
            return float("inf")
        total += max(abs(_mpf(value.a)), abs(_mpf(value.b))) * width
    # a margin for the rounding of this sum (the enclosures themselves round outward)
    return float(total * (1 + 1e-12)) if mpmath.isfinite(total) else float("inf")


def _mpf(end: object) -> mpmath.mpf:
    """An interval's end (a zero-width interval in mpmath.iv) as a number."""
    return mpmath.mpf(end)


def _halves(box: dict[sp.Symbol, object]) -> list[dict[sp.Symbol, object]]:
    widest = max(box, key=lambda s: float(box[s].b - box[s].a))  # type: ignore[attr-defined]
    v = box[widest]
    mid = (v.a + v.b) / 2  # type: ignore[attr-defined]
    return [{**box, widest: iv.mpf([v.a, mid])}, {**box, widest: iv.mpf([mid, v.b])}]  # type: ignore[attr-defined]


def _short(f: sp.Float) -> str:
    return repr(float(f))[:24]
