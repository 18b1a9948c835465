"""What each residual of a series answer is judged against (``docs/verify.md``, "What Verified means").

A formula's residual is held to the tolerance times its own size, ``D_k + min(C_k, Q)`` (its data, plus its
terms up to the problem's scale Q: :func:`desyr.symbolic.scales.relative`).  A series' targets had all been
held to the tolerance times Q, so on a problem written with a large offset (u = 10**12 + ..., Q = 1e12) its
equation, whose terms are about 1, was allowed 1e4 (red team 44j).  The sizes are measured as a formula's are,
from the series' first terms: a size needs no more.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.model.scaled import residual_blocks
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.scales import Scaled

#: the terms per index of a sum its sizes are measured with, by how many indices it has
SIZING_TERMS = {1: 100, 2: 10, 3: 4}


def target_sizes(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                 scale: float) -> list[float]:
    """Each target's size ``D_k + min(C_k, Q)`` (the equations', then the constraints'), its data and terms
    measured as a formula's are but in doubles alone (a size needs no more digits: a block measured again in
    mpmath took seconds); the problem's ``scale`` Q where a size is 0 or not finite."""
    cut = {f: _first_terms(e) for f, e in exprs.items()}
    blocks = residual_blocks(problem, cut, points.interior, list(points.constraints), points.reductions)
    out = []
    for b in blocks:
        data, terms = _sized(b, problem.symbols, points.interior)
        size = data + min(terms, scale)
        out.append(size if size > 0 and math.isfinite(size) else scale)
    return out


def _sized(b: Scaled, symbols: Sequence[sp.Symbol], interior: np.ndarray) -> tuple[float, float]:
    """A block's data (the smallest of its shifted data's) and its terms' size, as
    :func:`~desyr.symbolic.scales.measure_block` has them, in doubles."""
    def at(expr: sp.Expr, X: np.ndarray) -> np.ndarray:
        return evaluate(expr, symbols, X) if len(X) else np.zeros(0)

    def reduced(values: np.ndarray) -> np.ndarray:
        return b.reduction @ values if b.reduction is not None else values

    data = min(_rms(reduced(at(d, b.points))) for d in (b.data, *b.shifted))
    sizes = [_rms(np.abs(b.reduction) @ np.abs(at(c, b.points) * at(m, b.points))) if b.reduction is not None
             else _rms(at(c, b.points) * at(m, b.points)) for c, m in zip(b.coefficients, b.factors)]
    if b.spread and b.reduction is None and len(interior):
        wide = [at(w, interior) for w in (b.wide or b.factors[:b.spread])]
        sizes[:b.spread] = [max(s, _rms(at(c, b.points)) * _rms(w))
                            for s, c, w in zip(sizes, b.coefficients, wide)]
    return data, sum(sizes)


def _rms(values: np.ndarray) -> float:
    with np.errstate(all="ignore"):
        value = float(np.sqrt(np.mean(np.square(values)))) if values.size else 0.0
    return value if math.isfinite(value) else math.inf


def _first_terms(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each infinite sum cut to its first terms (a double sum: fewer per index)."""
    terms = SIZING_TERMS.get(sum_depth(expr), 3)

    def cut(total: sp.Sum) -> sp.Sum:
        limits = [(i, lo, lo + terms - 1 if hi is sp.oo else hi) for i, lo, hi in total.limits]
        return sp.Sum(total.function, *limits)
    return expr.replace(lambda e: isinstance(e, sp.Sum), cut)


def sum_depth(expr: sp.Expr) -> int:
    """How many indices the deepest nest of sums in ``expr`` has (a double sum: 2)."""
    return max((len(s.limits) + sum_depth(s.function) for s in expr.atoms(sp.Sum)), default=0)
