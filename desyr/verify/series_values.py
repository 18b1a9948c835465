"""A series' terms measured again in mpmath (``docs/verify.md``, "Points off the doubles, and a second sample").

The truncated sums a series is Verified on are computed in doubles, and doubles can round a term's coefficient
away: ``exp(46)*(exp(exp(-n)/10**17) - 1)`` is 0 to them at every index, and about ``950*exp(-n)`` (red team
44g).  :func:`~desyr.verify.precise.values_differ` cannot see it, since it reads the part outside the sums,
and writing the sums out as one formula asks for the digits of its widest ratio of terms (``exp(-n**2*pi**2*t)``
on a long time range: thousands).  So each term is measured on its own: the summand at the first indices of
each sum and at indices spread to its largest truncation, on a few points of every set, in doubles (as the sums
are evaluated) and in mpmath at a precision sized by that term's own values.  Where the differences, summed over
the indices, exceed the tolerance of the field's size at a point, doubles cannot judge the series.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from desyr.model.problem import Problem
from desyr.symbolic.generic_points import measured_digits, working_digits
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.scales import values_at
from desyr.symbolic.series import outer_sums, stable_term
from desyr.verify.precise import FIRST, spread
from desyr.verify.series_verdict import CAP

#: the points of each set a series' terms are measured at
POINTS = 6
#: each sum's first indices measured, by how many indices it has (a double sum: this many per index), then
#: indices spread geometrically up to the most terms the cross-check keeps (``series_verdict.CAP``)
FIRST_INDICES = {1: 32, 2: 8, 3: 4}


def terms_differ(problem: Problem, exprs: Mapping[str, sp.Expr], sets: Sequence[np.ndarray],
                 tolerance: float) -> str | None:
    """Why doubles cannot be trusted with the terms of a field's sums at a few points of ``sets``, else None."""
    X = np.vstack([s[spread(len(s), POINTS)] for s in sets if len(s)]) if any(len(s) for s in sets) else None
    if X is None:
        return None
    for name, expr in exprs.items():
        for total in outer_sums(expr):
            why = _sum_differs(name, total, problem.symbols, X, tolerance)
            if why:
                return why
    return None


def _sum_differs(name: str, total: sp.Sum, symbols: Sequence[sp.Symbol], X: np.ndarray,
                 tolerance: float) -> str | None:
    term, limits = _flattened(total)
    indices = [limit[0] for limit in limits]
    chosen = np.array(_tuples(limits), dtype=float)
    rows = np.hstack([np.repeat(chosen, len(X), axis=0), np.tile(X, (len(chosen), 1))])
    variables = [*indices, *symbols]
    box = {i: (float(limit[1]), math.inf) for i, limit in zip(indices, limits)}
    doubles = evaluate(stable_term(term, box) if len(indices) == 1 else term, variables, rows)
    finite = doubles[np.isfinite(doubles)]
    size = float(np.sqrt(np.mean(finite ** 2))) if len(finite) else 0.0
    digits = working_digits([term], FIRST + math.ceil(math.log10(1 / tolerance)),
                            measured_digits([term], variables, rows, math.log10(size) if size > 0 else 0.0))
    if digits is None:
        return f"the terms of a sum in {name} are too large or too small to measure"
    precise = values_at([term], variables, rows, digits, np.zeros(rows.shape, dtype=bool))[0]
    gaps = np.zeros(len(X), dtype=object)
    sums = np.zeros(len(X), dtype=object)
    for k, (a, b) in enumerate(zip(doubles, precise)):
        if math.isfinite(a) and mpmath.isfinite(b):
            gaps[k % len(X)] += abs(mpmath.mpf(a) - b)
            sums[k % len(X)] += b
    field = max(mpmath.sqrt(mpmath.fsum(s ** 2 for s in sums) / len(X)), mpmath.mpf(size), mpmath.mpf(10) ** -300)
    worst = int(np.argmax([float(g) for g in gaps]))
    if gaps[worst] > tolerance * field:
        return (f"the terms of a sum in {name} differ by {mpmath.nstr(gaps[worst], 3)} at a fresh point between "
                f"doubles and mpmath: doubles round a term of it away")
    return None


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
