"""Radial modes on a disk or an annulus: ``u = R(r)*T(t)``, ``r`` measured from the shape's centre.

A linear equation whose operator is invariant under rotations about the centre of the domain's disk
or annulus (the Laplacian, Helmholtz, heat, with constant coefficients) keeps radially symmetric data
radially symmetric.  Written with ``u = T(t)*R(r)``, ``r = sqrt((x - x0)**2 + (y - y0)**2)``, the
equation divided by ``T`` must be an ODE in ``r`` alone, with no angle and no time left: ``dsolve``
solves it (Bessel's equation: ``besselj(0, k*r)`` and ``bessely(0, k*r)``; its modified form:
``besseli`` and ``besselk``; Laplace's: ``1`` and ``log(r)``).  The time factors ``T`` come from the
data (``exp(-9*t)`` of ``besselj(0, 3*r)*exp(-9*t)`` on the rim), with ``T = 1`` always tried.  On a
disk, whose centre is in the domain, the solutions singular at ``r = 0`` are left out.  Whether the
data really are radial is checked numerically on three angles; the integration constants are free
for Stage B, which fits them to the data.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr.plugin import Annulus, Disk
from desyr_sympy.ansatz import as_ode, profile, substitute
from desyr_sympy.bessel import real_basis
from desyr_sympy.forms import (
    constants_of,
    exact_number,
    jet_symbols,
    linear_equation,
    rational,
    residuals,
    split_linear,
)
from desyr_sympy.odes import explicit

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: angles (radians) and radius fractions where the data's radial symmetry is sampled
_ANGLES = (0.3090169943749474, 2.23606797749979, 4.1887902047863905)
_FRACTIONS = (0.3819660112501051, 0.7236067977499789, 1.0)


def _round(problem: Problem) -> Disk | Annulus | None:
    """The domain's disk or annulus, or None."""
    geometry = getattr(problem, "geometry", None)
    shape = None if geometry is None else geometry.shape
    return shape if isinstance(shape, (Disk, Annulus)) else None


def linear_on_round(problem: Problem) -> str:
    """"" for one linear equation of one field on a disk or an annulus, in the shape's two variables (and
    time); otherwise why not (shared with the angular modes)."""
    if _round(problem) is None:
        return "not a disk or an annulus"
    if len(problem.fields) != 1 or len(problem.equations) != 1:
        return "not one field and one equation"
    if split_linear(residuals(problem)[0], jet_symbols(problem)) is None:
        return "not linear"
    if _spatial(problem) is None:
        return "variables other than the shape's two and time"
    return ""


def applies(problem: Problem) -> str:
    return linear_on_round(problem) or ("" if _radial_data(problem) else "the data depend on the angle")


def _spatial(problem: Problem) -> tuple[sp.Symbol, sp.Symbol] | None:
    """The shape's two variables, when the others are at most the time."""
    names = problem.vocabulary.var_symbols
    if problem.geometry is None:
        return None
    x, y = (names[v] for v in problem.geometry.space)
    time = {names[problem.time]} if problem.time else set()
    return (x, y) if set(problem.symbols) == {x, y} | time else None


def _radii(shape: Disk | Annulus) -> tuple[float, float]:
    return (shape.r0, shape.r1) if isinstance(shape, Annulus) else (0.0, shape.r)


def _radial_data(problem: Problem) -> bool:
    """Whether every pointwise constraint value is the same on each circle about the centre (at three
    radii and three angles, the time and the constants at a sample value)."""
    shape, spatial = _round(problem), _spatial(problem)
    if shape is None or spatial is None:
        return False
    x, y = spatial
    x0, y0 = (float(c) for c in shape.c)
    inner, outer = _radii(shape)
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
    shape, spatial = _round(problem), _spatial(problem)
    if shape is None or spatial is None:
        raise NotImplementedError("not a disk or an annulus in the problem's variables")
    x, y = spatial
    x0, y0 = (exact_number(float(c)) for c in shape.c)
    r, X = sp.Symbol("r", positive=True), sp.Symbol("X", real=True)
    return shape, (x, y, x0, y0, r, X), sp.sqrt((x - x0)**2 + (y - y0)**2)


def radial(problem: Problem) -> list[dict[str, sp.Expr]]:
    """The radial modes of the equation, one candidate for each time factor that separates."""
    shape, (x, y, x0, y0, r, X), rho = polar_frame(problem)
    fs = profile("R")
    f = sp.Function("radial")(r)
    disk = isinstance(shape, Disk)
    field = problem.fields[0]
    out: list[dict[str, sp.Expr]] = []
    for factor in time_factors(problem):
        (reduced,) = substitute(problem, {field: factor * fs[0]}, rho, [fs])
        # y - y0 = sqrt(r**2 - X**2) turns rho into r; a rotation-invariant operator leaves no X
        ode = sp.cancel(sp.expand((reduced / factor).xreplace({x: x0 + X, y: y0 + sp.sqrt(r**2 - X**2)})))
        if ode.free_symbols & ({X} | set(problem.symbols)) or not ode.has(*fs[1:]):
            continue
        try:
            general = explicit(sp.dsolve(as_ode(ode, fs, f, r), f), {field: f})
        except (NotImplementedError, ValueError):
            continue
        for solution in general:
            mode = real_basis(solution[field])
            if disk:
                mode = _regular(mode, r)
            if mode.has(r):
                out.append({field: factor * mode.xreplace({r: rho})})
    if not out:
        raise NotImplementedError("no radial mode")
    return out


def _regular(expr: sp.Expr, r: sp.Symbol) -> sp.Expr:
    """The terms of a general solution that stay finite at ``r = 0`` (a disk holds its centre):
    ``besselj(0, k*r)`` stays, ``bessely``, ``besselk``, ``log(r)`` and ``1/r`` go."""
    kept = []
    for term in sp.Add.make_args(sp.expand(expr)):
        if term.has(sp.bessely, sp.besselk, sp.log):
            continue
        if not term.subs(r, 0).has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            kept.append(term)
    return sp.Add(*kept)
