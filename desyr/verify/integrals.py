"""The proof of an integral constraint: SymPy integrates the exact form over the shape.

Each primitive is written in coordinates where its region is a product of intervals (polar for a
disk, an affine triangle for each ear of a polygon), so ``sympy.integrate`` meets only iterated
definite integrals.  A shape without such coordinates, an integral SymPy cannot do, or one that
runs out of time leaves the constraint unproved, never refuted.

SymPy's answer is not trusted alone (it gives 0 for one angular integral whose value is not 0):
every value it returns is checked against an independent quadrature to 1e-30 of the value
(:mod:`desyr.verify.quadrature`), at three values of any other variable the integrand keeps (time, a
parameter), drawn from a hash of the config and the formula (:mod:`desyr.verify.unforeseen`);
disagreement, a failed quadrature or one out of time leaves the constraint unproved.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from desyr.model.containment import exact_triangles
from desyr.model.csg import Signed, signed_parts
from desyr.model.patches import exact_number
from desyr.model.shapes import Annulus, Ball, Box, Cylinder, Disk, Ellipse, Polygon, Shape
from desyr.model.written import Numbers
from desyr.symbolic.time_limit import OutOfTime, time_limit
from desyr.verify.quadrature import matches
from desyr.verify.unforeseen import fractions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.model.problem import Constraint, Problem

SECONDS = 10.0
#: the quadrature's own bound (all of its points together)
QUADRATURE_SECONDS = 10.0
#: values of time (and each parameter) at which a time-dependent integral is checked by quadrature
CHECKS = 3
# Dummies: a config's own ``theta``, ``rho`` or ``v`` (time, a parameter) must stay a free symbol of the
# integral, never be integrated over as if it were the proof's coordinate
_RHO, _THETA, _PHI, _U, _V = (sp.Dummy(name, real=True) for name in ("rho", "theta", "phi", "u", "v"))


def integral_difference(problem: Problem, con: Constraint, exprs: Mapping[str, sp.Expr],
                        key: bytes = b"") -> sp.Expr | str:
    """The integral of ``con.operator`` over the domain minus ``con.value``, exactly (or why not); ``key``
    draws the values of time and parameters where the quadrature checks it (:mod:`desyr.verify.unforeseen`)."""
    integrand = problem.apply(con.operator, exprs)
    space = [v for v in problem.variable_names if v != problem.time and v not in problem.parameters] \
        if problem.geometry is None \
        else list(problem.geometry.space)
    symbols = [problem.vocabulary.var_symbols[v] for v in space]
    if problem.geometry is None:
        idx = [problem.variable_names.index(v) for v in space]
        shape: Shape = Box(problem.bounds[idx, 0], problem.bounds[idx, 1])
    else:
        shape = problem.geometry.shape
    signed = signed_parts(shape, problem.numbers)
    if signed is None or signed.why:
        # the rule A - B rests on B inside A: a proof needs that decided exactly, never on samples
        return f"the integral is not proved: {signed.why if signed else 'the shape has no rule'}"
    try:
        with time_limit(SECONDS):
            total = _signed_integral(signed, integrand, symbols, problem.numbers)
    except OutOfTime:
        return "the integral was not computed in time"
    if total is None or total.has(sp.Integral):
        return "the integral was not computed"
    if not _quadrature_agrees(problem, shape, integrand, symbols, total, key):
        return ("SymPy's value of the integral is not confirmed by a quadrature to 1e-30 of its value (they "
                "disagree, or the quadrature did not reach that accuracy in time)")
    return total - con.value


def _quadrature_agrees(problem: Problem, shape: Shape, integrand: sp.Expr, symbols: list[sp.Symbol],
                       total: sp.Expr, key: bytes) -> bool:
    """Whether an independent quadrature finds ``total``, at :data:`CHECKS` values of each other variable
    (time, parameters) drawn from ``key``: exact rationals inside the range that a term cannot be tuned
    to vanish at, as they change with the formula."""
    others = sorted(integrand.free_symbols - set(symbols), key=str)
    ranges = {problem.vocabulary.var_symbols[v.name]: (exact_number(v.lo, problem.numbers),
                                                       exact_number(v.hi, problem.numbers)) for v in problem.variables}
    if any(s not in ranges for s in others):
        return False
    draws = {s: fractions(key, f"integral {s}", CHECKS) for s in others}
    try:
        with time_limit(QUADRATURE_SECONDS):
            for k in range(CHECKS if others else 1):
                at = {s: _inside(ranges[s], draws[s][k]) for s in others}
                if not matches(shape, integrand.xreplace(at), symbols, problem.numbers, total.xreplace(at)):
                    return False
    except OutOfTime:
        return False
    return True


def _inside(span: tuple[sp.Expr, sp.Expr], fraction: sp.Rational) -> sp.Expr:
    lo, hi = span                        # the range's ends as written: inside it, whatever their floats
    return lo + (hi - lo) * fraction


def _integral(shape: Shape, f: sp.Expr, xs: list[sp.Symbol], numbers: Numbers) -> sp.Expr | None:
    def e(value: float) -> sp.Expr:
        return exact_number(value, numbers)
    if isinstance(shape, Box):
        out = f
        for x, a, b in zip(xs, shape.lo, shape.hi):
            out = sp.integrate(out, (x, e(a), e(b)))
        return out
    if isinstance(shape, (Disk, Annulus)):
        r0, r1 = (0, shape.r) if isinstance(shape, Disk) else (shape.r0, shape.r1)
        return _polar(f, xs, shape.c, (sp.Integer(1), sp.Integer(1)), e(r0), e(r1), numbers)
    if isinstance(shape, Ellipse):
        return _polar(f, xs, shape.c, (e(shape.ab[0]), e(shape.ab[1])), sp.Integer(0), sp.Integer(1), numbers)
    if isinstance(shape, Cylinder):
        inner = _polar(f, xs[:2], shape.c, (sp.Integer(1), sp.Integer(1)), sp.Integer(0), e(shape.r), numbers)
        return None if inner is None else sp.integrate(inner, (xs[2], e(shape.z[0]), e(shape.z[1])))
    if isinstance(shape, Ball):
        c, r = [e(v) for v in shape.c], e(shape.r)
        moved = f.xreplace({xs[0]: c[0] + _RHO * sp.sin(_THETA) * sp.cos(_PHI),
                            xs[1]: c[1] + _RHO * sp.sin(_THETA) * sp.sin(_PHI), xs[2]: c[2] + _RHO * sp.cos(_THETA)})
        return sp.integrate(moved * _RHO**2 * sp.sin(_THETA), (_PHI, 0, 2 * sp.pi), (_THETA, 0, sp.pi), (_RHO, 0, r))
    if isinstance(shape, Polygon):
        return _polygon(f, xs, shape, numbers)
    return None


def _signed_integral(signed: Signed, f: sp.Expr, xs: list[sp.Symbol], numbers: Numbers) -> sp.Expr | None:
    """The integral over a shape given as signed primitives (A - B: A's integral minus B's)."""
    total = sp.Integer(0)
    for k, part in signed.parts:
        one = _integral(part, f, xs, numbers)
        if one is None:
            return None
        total += k * one
    return total


def _polar(f: sp.Expr, xs: list[sp.Symbol], center: np.ndarray, scale: tuple[sp.Expr, sp.Expr],
           r0: sp.Expr, r1: sp.Expr, numbers: Numbers) -> sp.Expr:
    cx, cy = (exact_number(v, numbers) for v in center)
    a, b = scale
    moved = f.xreplace({xs[0]: cx + a * _RHO * sp.cos(_THETA), xs[1]: cy + b * _RHO * sp.sin(_THETA)})
    inner = sp.integrate(sp.expand(moved * a * b * _RHO), (_THETA, 0, 2 * sp.pi))
    return sp.integrate(inner, (_RHO, r0, r1))


def _polygon(f: sp.Expr, xs: list[sp.Symbol], shape: Polygon, numbers: Numbers) -> sp.Expr | None:
    total = sp.Integer(0)
    triangles = exact_triangles(shape, numbers)
    if triangles is None:
        return None
    for (ax, ay), (bx, by), (cx, cy) in triangles:
        moved = f.xreplace({xs[0]: ax + _U * (bx - ax) + _V * (cx - ax), xs[1]: ay + _U * (by - ay) + _V * (cy - ay)})
        jacobian = sp.Abs((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))
        total += jacobian * sp.integrate(moved, (_V, 0, 1 - _U), (_U, 0, 1))
    return total
