"""Is a candidate smooth enough for the derivatives its problem takes?

A residual evaluated at points cannot see a kink: ``abs(x - 1/2)`` has a second
derivative that is zero everywhere but at one point, where it is a Dirac delta.  So
before any number is computed, the verifier differentiates each field as often as
the equations and constraints do and refuses what that brings in: ``DiracDelta``,
``Heaviside``, ``sign``, ``Piecewise``, ``Min``/``Max``, or an ``Abs`` of a quantity
that changes sign on the domain.  An ``Abs`` of a quantity of one sign on the domain
is that quantity (or its negative), and is smooth.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy as sp

from desyr.model.problem import Problem
from desyr.numeric import evaluate

#: what a derivative may not contain: each is a jump, a kink or a distribution
ROUGH = (sp.DiracDelta, sp.Heaviside, sp.sign, sp.Piecewise, sp.Min, sp.Max)
REASON = "not smooth enough for this equation"
GRID_PER_AXIS = {1: 4001, 2: 201, 3: 41}   # a dense regular grid of the box, besides the given points


def rough_reason(problem: Problem, exprs: Mapping[str, sp.Expr], samples: np.ndarray) -> str | None:
    """None when every field is smooth enough; otherwise the one-line reason, naming the derivative."""
    points = np.vstack([samples, _grid(problem)])
    orders = _derivatives_taken(problem)
    for field, expr in exprs.items():
        wanted = orders.get(field, set())
        if not wanted:
            continue        # a field the problem never differentiates may have kinks
        smooth_expr, kinked = _resolve_abs(expr, problem, points)
        if kinked is not None:
            return f"{REASON}: {field} has a kink at {kinked} = 0 inside the domain"
        for wrt in sorted(wanted, key=len):
            d = sp.diff(smooth_expr, *[problem.vocabulary.var_symbols[v] for v in wrt])
            bad = d.atoms(*ROUGH)
            if bad:
                name = f"{field}_{''.join(wrt)}"
                found = sorted(str(b) for b in bad)[0]
                return f"{REASON}: {name} brings in {found[:80]}"
    return None


def resolve_abs(problem: Problem, exprs: Mapping[str, sp.Expr], samples: np.ndarray) -> dict[str, sp.Expr]:
    """Each field with its Abs of one-signed quantities removed (kinked ones stay)."""
    points = np.vstack([samples, _grid(problem)])
    return {f: _resolve_abs(e, problem, points)[0] for f, e in exprs.items()}


def _derivatives_taken(problem: Problem) -> dict[str, set[tuple[str, ...]]]:
    """Per field, every partial derivative (with all its lower orders) the problem evaluates."""
    out: dict[str, set[tuple[str, ...]]] = {}
    for jet in problem.jets():
        for k in range(1, len(jet.wrt) + 1):
            out.setdefault(jet.field, set()).add(tuple(jet.wrt[:k]))
    return out


def _resolve_abs(expr: sp.Expr, problem: Problem, points: np.ndarray) -> tuple[sp.Expr, str | None]:
    """``expr`` with each Abs of a strictly signed quantity replaced by it; the first kinked argument."""
    mapping: dict[sp.Expr, sp.Expr] = {}
    for node in sorted(expr.atoms(sp.Abs), key=sp.count_ops):
        inner = node.args[0]
        values = evaluate(inner, problem.symbols, points)
        if not np.all(np.isfinite(values)):
            return expr, str(inner)[:80]
        if np.all(values >= 0):
            mapping[node] = inner
        elif np.all(values <= 0):
            mapping[node] = -inner
        else:
            return expr, str(inner)[:80]
    return (expr.xreplace(mapping) if mapping else expr), None


def _grid(problem: Problem) -> np.ndarray:
    """A regular grid of the box (corners included), so a sign change between samples is not missed."""
    n = GRID_PER_AXIS.get(problem.dim, 9)
    axes = [np.linspace(v.lo, v.hi, n) for v in problem.variables]
    return np.stack([a.ravel() for a in np.meshgrid(*axes, indexing="ij")], axis=1)
