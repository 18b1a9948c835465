"""Disks and annuli: the shape, its centre and radii, whether the data are radially symmetric, and the
polar frame that the radial and angular modes (:mod:`desyr_sympy.methods.polar`,
:mod:`desyr_sympy.shared.angular`) and the nonlinear radial solutions (:mod:`desyr_sympy.methods.radial`)
read a problem in.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr.plugin import Annulus, Disk
from desyr_sympy.shared.forms import (
    constants_of,
    exact_number,
    jet_symbols,
    linear_equation,
    rational,
    residuals,
    split_linear,
)

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: angles (radians) and radius fractions where the data's radial symmetry is sampled
_ANGLES = (0.3090169943749474, 2.23606797749979, 4.1887902047863905)
_FRACTIONS = (0.3819660112501051, 0.7236067977499789, 1.0)


def round_shape(problem: Problem) -> Disk | Annulus | None:
    """The domain's disk or annulus, or None."""
    geometry = getattr(problem, "geometry", None)
    shape = None if geometry is None else geometry.shape
    return shape if isinstance(shape, (Disk, Annulus)) else None


def linear_on_round(problem: Problem) -> str:
    """"" for one linear equation of one field on a disk or an annulus, in the shape's two variables (and
    time); otherwise why not (shared with the angular modes)."""
    if round_shape(problem) is None:
        return "not a disk or an annulus"
    if len(problem.fields) != 1 or len(problem.equations) != 1:
        return "not one field and one equation"
    if split_linear(residuals(problem)[0], jet_symbols(problem)) is None:
        return "not linear"
    if plane_variables(problem) is None:
        return "variables other than the shape's two and time"
    return ""


def plane_variables(problem: Problem) -> tuple[sp.Symbol, sp.Symbol] | None:
    """The shape's two variables, when the others are at most the time."""
    names = problem.vocabulary.var_symbols
    if problem.geometry is None:
        return None
    x, y = (names[v] for v in problem.geometry.space)
    time = {names[problem.time]} if problem.time else set()
    return (x, y) if set(problem.symbols) == {x, y} | time else None


def radii(shape: Disk | Annulus) -> tuple[float, float]:
    return (shape.r0, shape.r1) if isinstance(shape, Annulus) else (0.0, shape.r)


def radial_data(problem: Problem) -> bool:
    """Whether every pointwise constraint value is the same on each circle about the centre (at three
    radii and three angles, the time and the constants at a sample value)."""
    shape, spatial = round_shape(problem), plane_variables(problem)
    if shape is None or spatial is None:
        return False
    x, y = spatial
    x0, y0 = (float(c) for c in shape.c)
    inner, outer = radii(shape)
    others = {s: sp.Float(0.6180339887498949) for s in problem.symbols if s not in (x, y)}
    others |= {s: sp.Float(1.2360679774997898) for s in constants_of(problem)}
    for constraint in problem.constraints:
        if constraint.kind != "pointwise":
            continue
        value = constraint.value.xreplace(others)
        for fraction in _FRACTIONS:
            rho = inner + (outer - inner) * fraction
            samples = [value.xreplace({x: x0 + rho * sp.cos(a), y: y0 + rho * sp.sin(a)}) for a in _ANGLES]
            try:
                numbers = [complex(s.evalf()) for s in samples]
            except (TypeError, ValueError):
                return False
            if max(abs(n - numbers[0]) for n in numbers) > 1e-9 * max(1.0, abs(numbers[0])):
                return False
    return True


def time_factors(problem: Problem) -> list[sp.Expr]:
    """``1`` and the factors of the data's terms that depend on the time alone (``exp(-9*t)``)."""
    if not problem.time:
        return [sp.Integer(1)]
    t = problem.vocabulary.var_symbols[problem.time]
    found: dict[sp.Expr, None] = {sp.Integer(1): None}
    for constraint in problem.constraints:
        for term in sp.Add.make_args(sp.expand(rational(constraint.value))):
            factors = [f for f in sp.Mul.make_args(sp.powsimp(term)) if t in f.free_symbols]
            if factors and all(f.free_symbols - constants_of(problem) == {t} for f in factors):
                found[sp.Mul(*factors)] = None
    return list(found)


def polar_frame(problem: Problem) -> tuple[Disk | Annulus, tuple[sp.Symbol, sp.Symbol, sp.Expr, sp.Expr, sp.Symbol, sp.Symbol],
                                          sp.Expr]:
    """For one linear equation on a disk or an annulus: the shape; its variables ``x, y``, exact centre
    ``x0, y0`` and the symbols ``r`` (radius) and ``X`` (``x - x0``) the reductions use; the radius
    from the centre in the problem's variables (shared with the angular modes)."""
    linear_equation(problem)            # raises for a nonlinear equation (applies() checked)
    shape, spatial = round_shape(problem), plane_variables(problem)
    if shape is None or spatial is None:
        raise NotImplementedError("not a disk or an annulus in the problem's variables")
    x, y = spatial
    x0, y0 = (exact_number(float(c)) for c in shape.c)
    r, X = sp.Symbol("r", positive=True), sp.Symbol("X", real=True)
    return shape, (x, y, x0, y0, r, X), sp.sqrt((x - x0)**2 + (y - y0)**2)


def regular_at_centre(expr: sp.Expr, r: sp.Symbol) -> sp.Expr:
    """The terms of a general solution that stay finite at ``r = 0`` (a disk holds its centre):
    ``besselj(0, k*r)`` stays, ``bessely``, ``besselk``, ``log(r)`` and ``1/r`` go."""
    kept = []
    for term in sp.Add.make_args(sp.expand(expr)):
        if term.has(sp.bessely, sp.besselk, sp.log):
            continue
        if not term.subs(r, 0).has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            kept.append(term)
    return sp.Add(*kept)
