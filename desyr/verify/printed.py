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

The bound must be within :data:`AGREEMENT` of the size of E.  And the values are not all a residual
sees: a float 1e-12 from 1 times a spike 1e-9 wide (``(cos(x)**2 + sin(x)**2 - 0.999999999999)*exp(-10**18*(x
- 1/2)**2)``) moves the values by 1e-12 and the second derivative by 2e6.  So each of the problem's residuals,
with P put in, is bounded the same way: |R_k(P(f))| = |R_k(P(f)) - R_k(P(c))| <= sum_i sup|dR_k/dc_i| * |f_i
- c_i| over its set (R_k(P(c)) = R_k(E) = 0, proved), which must be within the tolerance of that residual's
scale S_k on the fresh points.  Anything not shown (no constant, no reduction, no enclosure within the
budget) leaves the printed formula at most Verified.
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
from desyr.model.problem import Face, Problem
from desyr.symbolic.numeric import evaluate
from desyr.verify.intervals import box_of, enclose
from desyr.verify.proof import exact_number, is_zero, reduces
from desyr.verify.regions import domain_bounds, domain_region, outside

#: the printed formula may differ from the exact form by this much, relative to the exact form's size
AGREEMENT = 1e-9
#: a float stands for a constant only this close to it (relative); the bound then decides
MATCH = 1e-8
POOL = 400              # numbers of the exact form considered per expression
BOXES = 400             # boxes of the bound's branch and bound
SECONDS = 2.0
DIGITS = 30


Moved = dict[sp.Float, sp.Expr]


def printed_difference(problem: Problem, printed: Mapping[str, sp.Expr], form: Mapping[str, sp.Expr],
                       X: np.ndarray, tolerance: float = 1e-8, sizes: Sequence[float] | None = None) -> str | None:
    """None when every printed expression is its exact form floats aside, and (given the residuals' scales
    ``sizes`` on the fresh points, equations then constraints) its residuals are shown within ``tolerance``
    of them everywhere; otherwise why not (one line)."""
    moved: dict[str, Moved] = {}
    for name in [*problem.fields, *problem.unknown_names]:
        try:
            why, moved[name] = _differs(problem, printed[name], form[name], X)
        except Exception as exc:  # noqa: BLE001 - a failure to show it is "not shown", never a crash
            why = f"it could not be compared ({type(exc).__name__})"
        if why is not None:
            return f"the printed {name} is not shown to be the proved exact form: {why}"
    if sizes is None or not any(moved.values()):
        return None
    try:
        why = _residuals_moved(problem, printed, moved, tolerance, sizes)
    except Exception as exc:  # noqa: BLE001 - not shown, never a crash
        why = f"they could not be bounded ({type(exc).__name__})"
    return None if why is None else f"the printed formula's residuals are not shown within the tolerance: {why}"


def _differs(problem: Problem, p: sp.Expr, e: sp.Expr, X: np.ndarray) -> tuple[str | None, Moved]:
    """Why ``p`` is not shown to be ``e`` (None: it is), and its floats that stand for other numbers."""
    floats = sorted(p.atoms(sp.Float), key=sp.default_sort_key)
    points = [{s: float(v) for s, v in zip(problem.symbols, row)} for row in X[:3]]
    if not floats:
        return (None if p == e or is_zero(p - e, points) else "they are not symbolically equal"), {}
    pool = _numbers(e)
    beside = _cofactors(p)
    mapping: dict[sp.Float, sp.Expr] = {}
    for f in floats:
        c = _constant(f, pool, beside.get(f, ()))
        if c is None:
            return f"its constant {_short(f)} is no exact number near it", {}
        mapping[f] = c
    gap = p.xreplace(mapping) - e
    if not reduces(problem, gap, points):
        return "with its decimals as exact constants it does not reduce to the exact form", {}
    moved = {f: c for f, c in mapping.items() if not _equal(f, c)}
    if not moved:
        return None, {}
    scale = _size(problem, e, X)
    if not np.isfinite(scale):
        return "the exact form's size is not finite", moved
    dummies = {f: sp.Dummy("c") for f in moved}
    bound = _bound(problem, p.xreplace(dummies), _hulls(moved, dummies), AGREEMENT * scale)
    if bound is None:
        return f"the effect of its decimals could not be bounded within {AGREEMENT:g} of the exact form's size", moved
    return None, moved


def _residuals_moved(problem: Problem, printed: Mapping[str, sp.Expr], moved: Mapping[str, Moved],
                     tolerance: float, sizes: Sequence[float]) -> str | None:
    """Why the residuals of the printed formula are not shown within ``tolerance`` of their scales (None:
    they are): each residual with the moved floats as symbols, bounded over its set by the mean-value
    theorem as the values are (R_k of the exact constants is 0, proved)."""
    hulls: dict[sp.Symbol, tuple[object, mpmath.mpf]] = {}
    solution: dict[str, sp.Expr] = {}
    for name, expr in printed.items():
        dummies = {f: sp.Dummy("c") for f in moved.get(name, {})}
        solution[name] = expr.xreplace(dummies) if dummies else expr
        hulls.update(_hulls(moved[name], dummies) if dummies else {})
    domain = dict(box_of(domain_bounds(problem)))
    E = len(problem.equations)
    if len(sizes) != E + len(problem.constraints):
        return "their scales were not measured"
    for k, eq in enumerate(problem.equations):
        residual = problem.apply(eq.residual, solution)
        if _bound(problem, residual, hulls, tolerance * sizes[k], domain) is None:
            return f"equation {k + 1} could be off by more than {tolerance:g} of its scale {sizes[k]:.3g}"
    for l, con in enumerate(problem.constraints):
        residual = problem.constraint_residual(con, solution)
        for box in _set_boxes(problem, con.faces, domain):
            if _bound(problem, residual, hulls, tolerance * sizes[E + l], box) is None:
                return (f"constraint {con.label} could be off by more than {tolerance:g} of its scale "
                        f"{sizes[E + l]:.3g}")
    return None


def _set_boxes(problem: Problem, faces: Sequence[object], domain: dict[sp.Symbol, object]) -> list[dict[sp.Symbol, object]]:
    """The boxes holding a constraint's sets: a face's, its fixed variables at their exact values; the
    domain's for a part of a shape's boundary or an integral (it holds them)."""
    out: list[dict[sp.Symbol, object]] = []
    for face in faces:
        if not isinstance(face, Face):
            box = domain
        else:
            box = dict(domain)
            for name, value in face.fixed:
                exact = exact_number(value, problem.numbers)
                symbol = problem.vocabulary.var_symbols[name]
                box[symbol] = enclose(exact if exact is not None else sp.Rational(repr(float(value))), {})
        if box not in out:
            out.append(box)
    return out or [domain]


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


def _hulls(moved: Moved, dummies: Mapping[sp.Float, sp.Symbol]) -> dict[sp.Symbol, tuple[object, mpmath.mpf]]:
    """Each moved float's symbol: the interval between the float and its number, and that interval's width."""
    out: dict[sp.Symbol, tuple[object, mpmath.mpf]] = {}
    for f, c in moved.items():
        exact = enclose(c, {})
        lo, hi = min(_mpf(exact.a), mpmath.mpf(float(f))), max(_mpf(exact.b), mpmath.mpf(float(f)))
        out[dummies[f]] = (iv.mpf([lo, hi]), hi - lo)
    return out


def _bound(problem: Problem, ps: sp.Expr, hulls: Mapping[sp.Symbol, tuple[object, mpmath.mpf]], limit: float,
           box: dict[sp.Symbol, object] | None = None) -> float | None:
    """An upper bound on |P(f) - P(c)| over ``box`` (the domain's, as written and outward) when it is at most
    ``limit``, else None; ``ps`` is P with each moved float its symbol of ``hulls``."""
    terms = [(sp.diff(ps, d), width) for d, (_, width) in hulls.items() if ps.has(d)]
    if not terms:
        return 0.0
    intervals = {d: hull for d, (hull, _) in hulls.items()}
    box = dict(box_of(domain_bounds(problem))) if box is None else box
    region = domain_region(problem)
    clock = time.perf_counter()
    counter = itertools.count()
    first = _box_bound(terms, box, intervals)
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
            heapq.heappush(heap, (-_box_bound(terms, half, intervals), next(counter), half))
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
    if not box[widest].b > box[widest].a:  # type: ignore[attr-defined]
        return []           # a point: nothing left to split
    v = box[widest]
    mid = (v.a + v.b) / 2  # type: ignore[attr-defined]
    return [{**box, widest: iv.mpf([v.a, mid])}, {**box, widest: iv.mpf([mid, v.b])}]  # type: ignore[attr-defined]


def _short(f: sp.Float) -> str:
    return repr(float(f))[:24]
