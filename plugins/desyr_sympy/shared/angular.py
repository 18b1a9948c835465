"""Angular modes on a disk or an annulus: ``u = T(t)*R(r)*cos(n*theta)`` (and ``sin``) about its centre.

The radial solver (:mod:`desyr_sympy.methods.polar`) needs data that are the same on every circle; data that
vary along the circle (``-2*y`` on the rim of a Couette flow) are sums of Fourier modes, and an
equation invariant under rotations keeps each mode apart.  The orders ``n`` come from the data: each
pointwise constraint's value is sampled on the shape's circles at :data:`ANGLES` angles, and the
orders whose Fourier coefficients are not negligible are kept (at most :data:`MAX_ORDER`).  With the
angle written in the problem's variables, ``cos(n*theta) = Re((X + i*Y)**n)/r**n`` (``X = x - x0``,
``Y = y - y0``), the equation divided by the angular and time factors must be an ODE in ``r`` alone,
which ``dsolve`` solves (Laplace: ``r**n`` and ``r**-n``, so ``y`` and ``y/r**2`` for ``n = 1``;
Helmholtz: ``besselj(n, k*r)``).  On a disk the modes singular at the centre are left out.
"""
from __future__ import annotations

import cmath
import math
from typing import TYPE_CHECKING

import sympy as sp

from desyr.plugin import Disk
from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.ansatz import as_ode, profile, substitute
from desyr_sympy.shared.bessel import real_basis
from desyr_sympy.shared.candidates import solver_constants
from desyr_sympy.shared.forms import constants_of
from desyr_sympy.shared.odes import explicit
from desyr_sympy.shared.round import (
    linear_on_round,
    plane_variables,
    polar_frame,
    radii,
    regular_at_centre,
    round_shape,
    time_factors,
)

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: angles sampled on a circle; enough for the orders up to MAX_ORDER without aliasing
ANGLES = 16
MAX_ORDER = 4


def orders(problem: Problem) -> list[int]:
    """The orders ``n >= 1`` of the Fourier modes in the data on the shape's circles."""
    shape, spatial = round_shape(problem), plane_variables(problem)
    if shape is None or spatial is None:
        return []
    x, y = spatial
    x0, y0 = (float(c) for c in shape.c)
    others = {s: sp.Float(0.6180339887498949) for s in problem.symbols if s not in (x, y)}
    others |= {s: sp.Float(1.2360679774997898) for s in constants_of(problem)}
    found: set[int] = set()
    for constraint in problem.constraints:
        if constraint.kind != "pointwise":
            continue
        value = sp.lambdify((x, y), constraint.value.xreplace(others), "math")
        for rho in {r for r in radii(shape) if r > 0}:
            found |= _modes(value, x0, y0, rho)
    return sorted(found)


def _modes(value: object, x0: float, y0: float, rho: float) -> set[int]:
    angles = [2 * math.pi * k / ANGLES for k in range(ANGLES)]
    try:
        samples = [complex(value(x0 + rho * math.cos(a), y0 + rho * math.sin(a))) for a in angles]  # type: ignore[operator]
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return set()
    scale = max(1.0, *(abs(s) for s in samples))
    out = set()
    for n in range(1, MAX_ORDER + 1):
        coefficient = sum(s * cmath.exp(-1j * n * a) for s, a in zip(samples, angles)) / ANGLES
        if abs(coefficient) > 1e-9 * scale:
            out.add(n)
    return out


class AngularModes(ExactMethod):
    """Not a method of the searcher's list: the linear-part reductions (``linear_part``, ``vanishing``) ask it
    for one field's modes beside ``separable`` and ``polar``."""

    name = "angular"
    summary = "one linear equation on a disk or an annulus: modes `R(r)*cos(n*theta)`, `sin(n*theta)` of the data's orders"

    def applies(self, problem: Problem) -> str:
        return linear_on_round(problem) or ("" if orders(problem) else "the data hold no angular mode")

    def solve(self, problem: Problem) -> Solutions:
        """The angular modes of the equation for the data's orders, one candidate per time factor."""
        shape, (x, y, x0, y0, r, X), rho = polar_frame(problem)
        field = problem.fields[0]
        out = []
        counter = iter(range(1, 10_000))
        for factor in time_factors(problem):
            total = sp.Integer(0)
            for n in orders(problem):
                power = sp.expand((x - x0 + sp.I * (y - y0))**n)
                for angle in (sp.re(power), sp.im(power)):
                    for radial in _radial(problem, factor, angle / rho**n, rho, (x, y, x0, y0, X, r)):
                        mode = regular_at_centre(radial, r) if isinstance(shape, Disk) else radial
                        # each mode's own integration constants
                        mode = mode.xreplace({c: sp.Symbol(f"C{next(counter)}") for c in solver_constants(mode)})
                        total += factor * (mode.xreplace({r: rho}) * angle / rho**n)
            if total != 0:
                out.append({field: total})
        if not out:
            raise NotImplementedError("no angular mode")
        return out


def _radial(problem: Problem, factor: sp.Expr, angle: sp.Expr, rho: sp.Expr,
            names: tuple[sp.Symbol, sp.Symbol, sp.Expr, sp.Expr, sp.Symbol, sp.Symbol]) -> list[sp.Expr]:
    """General solutions ``R(r)`` of the equation for ``factor*R(r)*angle``, or none when it does not separate."""
    x, y, x0, y0, X, r = names
    fs = profile("R")
    (reduced,) = substitute(problem, {problem.fields[0]: factor * angle * fs[0]}, rho, [fs])
    ode = sp.cancel(sp.expand((reduced / (factor * angle)).xreplace({x: x0 + X, y: y0 + sp.sqrt(r**2 - X**2)})))
    if ode.free_symbols & ({X} | set(problem.symbols)) or not ode.has(*fs[1:]):
        return []
    f = sp.Function("radial")(r)
    try:
        general = explicit(sp.dsolve(as_ode(ode, fs, f, r), f), {problem.fields[0]: f})
    except (NotImplementedError, ValueError):
        return []
    return [real_basis(s[problem.fields[0]]) for s in general]
