"""A finite answer before any series: a particular solution of the whole equation (source included) by
undetermined coefficients (:func:`desyr_sympy.shared.coefficients.solutions`), kept when it meets every
condition itself, so that nothing is left to expand (``exp(-t)*(1 - x**2 - y**2)`` for the heat equation
on a disk with the source ``exp(-t)*(3 + x**2 + y**2)``).  The check is numeric, at irrational points of
every face, rim and initial slice; the verifier proves the candidate as any other."""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.series.layout import End, Layout
from desyr_sympy.shared.coefficients import solutions
from desyr_sympy.shared.forms import jet_symbols, linear_equation

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: fractions of each range (irrational, off every simple zero) and angles on a rim
_FRACTIONS = (0.2360679774997897, 0.6180339887498949, 0.8541019662496845)
_ANGLES = (0.3090169943749474, 2.23606797749979, 4.1887902047863905)


def particular_answer(problem: Problem, layout: Layout) -> sp.Expr | None:
    """The particular solution where it meets every condition, else None."""
    linear = linear_equation(problem)
    if linear.forcing == 0:
        return None
    jets = jet_symbols(problem)
    order = max((len(jets[j].wrt) for j in linear.coefficients), default=0)
    try:
        particular, _ = solutions(lambda b: problem.apply(linear.operator(), {layout.field: b}), linear.forcing,
                                  list(problem.symbols), order)
    except NotImplementedError:
        return None
    return particular if particular != 0 and _meets(problem, layout, particular) else None


def _meets(problem: Problem, layout: Layout, w: sp.Expr) -> bool:
    t = layout.time
    residuals = []
    if t is not None:
        assert layout.initial is not None
        residuals.append(w.subs(t, layout.start) - layout.initial)
        if layout.velocity is not None:
            residuals.append(sp.diff(w, t).subs(t, layout.start) - layout.velocity)
    for axis in layout.axes:
        for end, at, sign in ((axis.low, axis.lo, -1), (axis.high, axis.hi, 1)):
            if axis.periodic or end is None:
                residuals.append(w.subs(axis.symbol, axis.lo) - w.subs(axis.symbol, axis.hi))
                residuals.append(sp.diff(w, axis.symbol).subs(axis.symbol, axis.lo)
                                 - sp.diff(w, axis.symbol).subs(axis.symbol, axis.hi))
                continue
            residuals.append(_operator(end, w, axis.symbol, sign).subs(axis.symbol, at) - end.value)
    shape = layout.round
    if shape is not None:
        for end, radius, sign in ((shape.outer_end, shape.outer, 1), (shape.inner_end, shape.inner, -1)):
            if end is None:
                continue
            normal = sign * ((shape.x - shape.x0) * sp.diff(w, shape.x) + (shape.y - shape.y0) * sp.diff(w, shape.y))
            residuals += [(end.alpha * w + end.beta * normal / radius - end.value).xreplace(
                {shape.x: shape.x0 + radius * sp.cos(a), shape.y: shape.y0 + radius * sp.sin(a)}) for a in _ANGLES]
    return all(_zero(r, problem) for r in residuals)


def _operator(end: End, w: sp.Expr, x: sp.Symbol, sign: int) -> sp.Expr:
    return end.alpha * w + sign * end.beta * sp.diff(w, x)


def _zero(expr: sp.Expr, problem: Problem) -> bool:
    boxes = list(zip(problem.symbols, problem.bounds))
    for k in range(len(_FRACTIONS)):
        point = {v: lo + (hi - lo) * _FRACTIONS[(k + j) % len(_FRACTIONS)] for j, (v, (lo, hi)) in enumerate(boxes)}
        try:
            value = complex(expr.xreplace(point).evalf())
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        if not abs(value) < 1e-10:
            return False
    return True
