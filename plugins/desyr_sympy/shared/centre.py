"""The centre radial solutions are sought about: a disk's or an annulus's, or, on any other domain of the
plane, the point the data are radially symmetric about (issue 47: Liouville's equation on a square with
the boundary data of ``log(8/(1 + x**2 + y**2)**2)``).

A value ``V(x, y)`` is unchanged by the rotations about ``(x0, y0)`` when
``(x - x0)*V_y - (y - y0)*V_x = 0`` everywhere; at a few generic points this is linear in the centre,
so a least-squares solve gives it, an exact number is read off it, and the symmetry is then checked at
three radii and three angles, as on a disk.  Only data of the field itself (no derivative: a normal
derivative of a radial function on a square is not radial) given by formulas in both variables take
part; constant data say nothing about a centre.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from desyr.plugin import Disk
from desyr_sympy.shared.forms import constants_of, exact_number, jet_symbols
from desyr_sympy.shared.round import plane_variables, radial_data, radii, round_shape

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: generic fractions of the bounding box where the rotation's equation is sampled
_POINTS = ((0.2360679774997897, 0.6180339887498949), (0.7320508075688772, 0.4142135623730951),
           (0.5857864376269049, 0.1715728752538099), (0.3819660112501051, 0.8944271909999159),
           (0.9, 0.7236067977499789))
_ANGLES = (0.3090169943749474, 2.23606797749979, 4.1887902047863905)
#: the centre's equations must hold to this (relative) at the sample points, and the symmetry at the circles
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class RadialFrame:
    """Where radial solutions ``U(r)`` are sought: the plane's variables, the exact centre, whether the
    domain holds the centre (a solution must then be regular there), and a radius at which the data
    give the field's value (it picks a branch)."""

    x: sp.Symbol
    y: sp.Symbol
    x0: sp.Expr
    y0: sp.Expr
    holds_centre: bool
    radius: sp.Expr


def radial_frame(problem: Problem) -> RadialFrame | None:
    """The frame of a disk or an annulus with radially symmetric data, else of the point every datum
    of the field is radially symmetric about (a box or any other shape of a problem in two space
    variables, and the time where there is one); None when there is none."""
    shape = round_shape(problem)
    if shape is not None:
        spatial = plane_variables(problem)
        if spatial is None or not radial_data(problem):
            return None
        x0, y0 = (exact_number(float(c)) for c in shape.c)
        return RadialFrame(*spatial, x0, y0, isinstance(shape, Disk), exact_number(float(radii(shape)[1])))
    t = problem.vocabulary.var_symbols[problem.time] if problem.time else None
    plane = [i for i, s in enumerate(problem.symbols) if s != t]
    if len(plane) != 2 or problem.dim != 2 + (t is not None):
        return None
    x, y = (problem.symbols[i] for i in plane)
    lo, hi = problem.bounds[plane, 0], problem.bounds[plane, 1]
    fixed = {} if t is None else {t: sp.Float(float(np.mean(problem.bounds[problem.symbols.index(t)])))}
    values = _field_data(problem, {x, y} | set(fixed), fixed)
    if not values:
        return None
    centre = _centre(values, x, y, lo, hi)
    if centre is None:
        return None
    size = float(np.max(hi - lo))
    x0, y0 = (exact_number(float(c) if abs(c) > _TOLERANCE * size else 0.0) for c in centre)
    centre = np.array([float(x0), float(y0)])
    if not _symmetric(values, x, y, (centre[0], centre[1]), size):
        return None
    point = np.mean(problem.bounds, axis=1)
    point[plane] = centre
    inside = bool(np.all((lo < centre) & (centre < hi))) and not problem.outside(point[None, :])[0]
    edge = min(float(x0) - lo[0], hi[0] - float(x0), float(y0) - lo[1], hi[1] - float(y0))
    radius = exact_number(edge) if inside and edge > 0 else exact_number(size / 2)
    return RadialFrame(x, y, x0, y0, inside, radius)


def _field_data(problem: Problem, allowed: set[sp.Symbol], fixed: dict[sp.Symbol, sp.Expr]) -> list[sp.Expr] | None:
    """The values of every pointwise datum at the time ``fixed`` gives, None where one is not of the
    field itself or holds other symbols; constants are left out (they hold for any centre)."""
    jets = jet_symbols(problem)
    constants = {s: sp.Float(1.2360679774997898) for s in constants_of(problem)}
    out = []
    for c in problem.constraints:
        if c.kind != "pointwise":
            return None
        jet = jets.get(c.operator)
        if jet is None or jet.wrt:
            return None
        value = c.value.xreplace(constants)
        if value.free_symbols - allowed:
            return None
        value = value.xreplace(fixed)
        if value.free_symbols:
            out.append(value)
    return out


def _centre(values: list[sp.Expr], x: sp.Symbol, y: sp.Symbol, lo: np.ndarray, hi: np.ndarray
            ) -> np.ndarray | None:
    """The least-squares solution of ``V_y*x0 - V_x*y0 = x*V_y - y*V_x`` over the values and the
    sample points, or None where it is not determined or does not hold."""
    rows, rhs = [], []
    for value in values:
        vx, vy = sp.diff(value, x), sp.diff(value, y)
        for fx, fy in _POINTS:
            at = {x: lo[0] + fx * (hi[0] - lo[0]), y: lo[1] + fy * (hi[1] - lo[1])}
            try:
                dx, dy = complex(vx.evalf(subs=at)), complex(vy.evalf(subs=at))
            except (TypeError, ValueError):
                return None
            if abs(dx.imag) + abs(dy.imag) > 0:
                return None
            rows.append([dy.real, -dx.real])
            rhs.append(at[x] * dy.real - at[y] * dx.real)
    A, b = np.array(rows), np.array(rhs)
    if not np.all(np.isfinite(A)) or np.linalg.matrix_rank(A, tol=1e-9 * (np.abs(A).max() or 1.0)) < 2:
        return None
    c, *_ = np.linalg.lstsq(A, b, rcond=None)
    left = float(np.max(np.abs(A @ c - b)))
    return c if left <= _TOLERANCE * max(1.0, float(np.abs(b).max())) else None


def _symmetric(values: list[sp.Expr], x: sp.Symbol, y: sp.Symbol, centre: tuple[float, float], size: float) -> bool:
    """Whether every value is the same on three circles about ``centre`` (three angles each) within the
    domain's reach; a circle where a value is not finite (a pole of the data's formula) is passed over,
    but one circle at least must be checked."""
    x0, y0 = centre
    checked = 0
    for value in values:
        for rho in (0.3819660112501051 * size / 2, 0.7236067977499789 * size / 2, size / 2):
            try:
                numbers = [complex(value.evalf(subs={x: x0 + rho * np.cos(a), y: y0 + rho * np.sin(a)}))
                           for a in _ANGLES]
            except (TypeError, ValueError):
                continue
            if not all(np.isfinite(n) for n in numbers):
                continue
            if max(abs(n - numbers[0]) for n in numbers) > _TOLERANCE * max(1.0, abs(numbers[0])):
                return False
            checked += 1
    return checked > 0
