"""A series' terms measured again in mpmath (``docs/verify.md``, "Points off the doubles, and a second sample").

The truncated sums a series is Verified on are computed in doubles, and doubles can round a term's coefficient
away: ``exp(46)*(exp(exp(-n)/10**17) - 1)`` is 0 to them at every index, and about ``950*exp(-n)`` (red team
44g).  :func:`~desyr.verify.precise.values_differ` reads only the part outside the sums, and writing the sums
out as one formula asks for the digits of its widest ratio of terms (``exp(-n**2*pi**2*t)`` on a long time
range: thousands).  So, each in doubles as the sums compute it and in mpmath at a precision sized by its own
values (:func:`terms_differ`):

- each sum's whole term at its first indices and at indices spread to its largest truncation, on a few points
  of every set, eigenvalues computed once per index (:func:`_sum_differs`);
- the factor of the term that depends on the indices alone, at every index the cross-check keeps, its term at
  every point (:mod:`~desyr.verify.series_coefficients`; red teams 44h, 44i, 44k);
- the factors of each part of the term that depend on the variables alone, at every point
  (:func:`_factors_differ`; a band inside a term, 44h).

Where the differences exceed the tolerance of the field's size, doubles cannot judge the series.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from desyr.model.problem import Problem
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.series import outer_sums, stable_term
from desyr.verify.precise import spread, values_differ
from desyr.verify.series_coefficients import coefficients_differ, gap, held_roots, mpmath_values, rms
from desyr.verify.series_verdict import CAP
from desyr.verify.series_verdict import POINTS as SUM_POINTS

#: the points of each set a series' terms are measured at
POINTS = 4
#: each sum's first indices measured, by how many indices it has (a double sum: this many per index), then
#: indices spread geometrically up to the most terms the cross-check keeps (``series_verdict.CAP``)
FIRST_INDICES = {1: 32, 2: 8, 3: 4}
#: the most operations of a term written out part by part for its factors in the variables alone
MOST_OPS = 400


def terms_differ(problem: Problem, exprs: Mapping[str, sp.Expr], sets: Sequence[np.ndarray],
                 tolerance: float, kept: int | None = None) -> str | None:
    """Why doubles cannot be trusted with the terms of a field's sums at a few points of ``sets``, else None
    (``kept``: the most terms per index the cross-check kept of a sum; past them no term was evaluated in
    doubles, and a proved tail bound or the allowance speaks for them)."""
    X = np.vstack([s[spread(len(s), POINTS)] for s in sets if len(s)]) if any(len(s) for s in sets) else None
    if X is None:
        return None
    for name, expr in exprs.items():
        # each sum is judged against the field's size, not its own: a part outside the sums makes it larger,
        # and sums that cancel (10**20*pi*(1 + b(n)/10**18)*e(n) less 10**20*pi*e(n): 314 where b is 1, and
        # 0 to doubles) smaller (red team 44l); its own where the field's values are not finite
        field = rms(evaluate(expr, problem.symbols, X))
        for total in outer_sums(expr):
            why = _sum_differs(name, total, problem.symbols, X, tolerance, field, kept,
                               _every_point(problem, sets, len(_flattened(total)[1]))) or \
                _factors_differ(problem, name, total, sets, tolerance)
            if why:
                return why
    return None


def _factors_differ(problem: Problem, name: str, total: sp.Sum, sets: Sequence[np.ndarray],
                    tolerance: float) -> str | None:
    """The factors of a sum's term that depend on the variables alone, each part of the term written out
    (``(2**-n + exp(-n)*B(y))*y**n``: ``B(y)``), compared at every point as a formula's values are
    (:func:`~desyr.verify.precise.values_differ`): a term rounded away in a band of a set, a band the few
    points of the terms miss, lives in such a factor (red team 44h)."""
    term, limits = _flattened(total)
    indices = [limit[0] for limit in limits]
    parts = sp.Add.make_args(sp.expand(term)) if sp.count_ops(term) <= MOST_OPS else (term,)
    factors = {sp.Mul(*[f for f in sp.Mul.make_args(part) if not f.free_symbols & set(indices)]) for part in parts}
    # and the parts in the variables alone as written: expanding splits exp(46)*(exp(B(y)/10**17) - 1), about
    # 950*B(y), into two terms of 1e20 that each hold it within their round-off (red team 44j)
    factors |= _free_of(term, set(indices), set(problem.symbols))
    varying = sorted((f for f in factors if f.free_symbols), key=sp.default_sort_key)
    said = f"a factor of a sum's term in {name}"
    return values_differ(problem, {f"{said} ({k + 1})" if len(varying) > 1 else said: f
                                   for k, f in enumerate(varying)}, sets, tolerance) if varying else None


def _free_of(expr: sp.Expr, indices: set[sp.Symbol], variables: set[sp.Symbol]) -> set[sp.Expr]:
    """The largest parts of ``expr`` free of the indices that depend on the variables and are not polynomials
    in them (a polynomial's values doubles hold; a band lives in a function)."""
    if not expr.free_symbols & indices:
        return set() if expr.is_polynomial(*variables) else {expr}
    return set().union(*(_free_of(a, indices, variables) for a in expr.args)) if expr.args else set()


def _every_point(problem: Problem, sets: Sequence[np.ndarray], depth: int) -> np.ndarray:
    """The points a sum's coefficients are judged at: every point of every set (a rest ``(4*y*(1 - y))**n``
    peaks between a few, red team 44k), as many as the cross-check reads of a multiple sum, and a box's
    corners."""
    most = SUM_POINTS.get(depth)
    chosen = [s[spread(len(s), most)] if most else s for s in sets if len(s)]
    return np.vstack([*chosen, _corners(problem)])


def _corners(problem: Problem) -> np.ndarray:
    """The corners of a box domain (none for a shape): a rest that grows toward an end of a range (``y**n``) is
    largest there, where the few points of the terms may not be (red team 44j: a coefficient rounded away at
    n = 1000 beside ``y**n`` weighed nothing at them)."""
    if problem.geometry is not None:
        return np.zeros((0, len(problem.symbols)))
    return np.array(list(itertools.product(*[(float(lo), float(hi)) for lo, hi in problem.bounds])), dtype=float)


def _sum_differs(name: str, total: sp.Sum, symbols: Sequence[sp.Symbol], X: np.ndarray,
                 tolerance: float, whole: float, kept: int | None, everywhere: np.ndarray) -> str | None:
    term, limits = _flattened(total)
    indices = [limit[0] for limit in limits]
    # as the sums are evaluated: no factor overflows where the term is moderate (sinh(n*pi*y)/sinh(n*pi))
    written_as = term
    term = stable_term(term, {i: (float(limit[1]), math.inf) for i, limit in zip(indices, limits)})
    chosen = np.array(_tuples(limits), dtype=float)
    held, roots, written = held_roots(term, indices, chosen)
    rows = np.hstack([np.repeat(roots, len(X), axis=0), np.tile(X, (len(chosen), 1))])
    variables = [*held, *symbols]
    doubles = evaluate(written, variables, rows)
    size = rms(doubles)
    gaps, sums = np.zeros(len(X), dtype=object), np.zeros(len(X), dtype=object)
    for k in range(len(chosen)):       # each index at the digits its own term needs (n! at n = 2000: thousands)
        at = slice(k * len(X), (k + 1) * len(X))
        precise = mpmath_values(written, variables, rows[at], tolerance, size)
        for row, (a, b) in enumerate(zip(doubles[at], precise)):
            if mpmath.isfinite(b):
                gaps[row] += gap(a, b)
                sums[row] += b
    own = max(mpmath.sqrt(mpmath.fsum(s ** 2 for s in sums) / len(X)), mpmath.mpf(size), mpmath.mpf(10) ** -300)
    field = mpmath.mpf(whole) if whole > 0 else own
    worst = int(np.argmax([float(g) for g in gaps]))
    if gaps[worst] > tolerance * field:
        return (f"the terms of a sum in {name} differ by {mpmath.nstr(gaps[worst], 3)} at a fresh point between "
                f"doubles and mpmath: doubles round a term of it away")
    # the coefficient as written: the stable form distributes exp(46)*(exp(c/10**17) - 1) into the exponentials
    most = min(CAP.get(len(limits), 20), max(kept or CAP.get(len(limits), 20), FIRST_INDICES.get(len(limits), 3)))
    return coefficients_differ(name, written_as, limits, symbols, everywhere, tolerance, tolerance * float(field),
                                most)


def _flattened(total: sp.Sum) -> tuple[sp.Expr, list[tuple[sp.Symbol, sp.Expr, sp.Expr]]]:
    """The innermost term of a sum and all its limits, inner sums' too."""
    term, limits = total.function, list(total.limits)
    while isinstance(term, sp.Sum):
        limits += list(term.limits)
        term = term.function
    return term, limits


def _tuples(limits: Sequence[tuple[sp.Symbol, sp.Expr, sp.Expr]]) -> list[tuple[int, ...]]:
    """The index tuples a sum's term is measured at: every tuple of each index's first indices, then indices
    spread geometrically to the most terms a truncation keeps, each index alone (the others at their first)
    and all together (a double sum's terms multiply: not every pair)."""
    depth = len(limits)
    first = FIRST_INDICES.get(depth, 3)
    lowers = [int(limit[1]) for limit in limits]
    uppers = [math.inf if limit[2] is sp.oo else int(limit[2]) for limit in limits]
    farther = [int(round(first * 1.5 ** k)) for k in range(1, 40) if first * 1.5 ** k < CAP.get(depth, 20)]
    offsets = set(itertools.product(range(first), repeat=depth))
    for far in farther:
        offsets.add((far,) * depth)
        offsets.update(tuple(far if i == j else 0 for j in range(depth)) for i in range(depth))
    return sorted(tuple(lo + o for lo, o in zip(lowers, offset)) for offset in offsets
                  if all(lo + o <= hi for lo, o, hi in zip(lowers, offset, uppers)))
