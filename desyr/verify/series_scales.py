"""What each residual of a series answer is judged against (``docs/verify.md``, "What Verified means").

A formula's residual is held to the tolerance times its own size, ``D_k + min(C_k, Q)`` (its data, plus its
terms up to the problem's scale Q: :func:`desyr.symbolic.scales.relative`).  A series' targets had all been
held to the tolerance times Q, so on a problem written with a large offset (u = 10**12 + ..., Q = 1e12) its
equation, whose terms are about 1, was allowed 1e4 (red team 44j).  The sizes are measured as a formula's are,
from the series' first terms: a size needs no more.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.model.scaled import residual_blocks
from desyr.symbolic.scales import measure, relative

#: the terms per index of a sum its sizes are measured with, by how many indices it has
SIZING_TERMS = {1: 100, 2: 10, 3: 4}


def target_sizes(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                 scale: float) -> list[float]:
    """Each target's size (the equations', then the constraints'), as a formula's residuals are sized; the
    problem's ``scale`` where a size is 0 or cannot be measured."""
    cut = {f: _first_terms(e) for f, e in exprs.items()}
    blocks = residual_blocks(problem, cut, points.interior, list(points.constraints), points.reductions)
    sized = relative(measure(blocks, problem.symbols, points.interior))
    return [size if size > 0 and math.isfinite(size) else scale
            for size in [*sized.sizes_equations, *sized.sizes_constraints]]


def _first_terms(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each infinite sum cut to its first terms (a double sum: fewer per index)."""
    terms = SIZING_TERMS.get(_depth(expr), 3)

    def cut(total: sp.Sum) -> sp.Sum:
        limits = [(i, lo, lo + terms - 1 if hi is sp.oo else hi) for i, lo, hi in total.limits]
        return sp.Sum(total.function, *limits)
    return expr.replace(lambda e: isinstance(e, sp.Sum), cut)


def _depth(expr: sp.Expr) -> int:
    return max((len(s.limits) + _depth(s.function) for s in expr.atoms(sp.Sum)), default=0)
