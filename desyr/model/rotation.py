"""The rotation a problem is unchanged by: a centre in its two space variables about which every datum of
the fields is radially symmetric, and about which the equations keep a radial field radial.

A radial solution ``U((x - x0)**2 + (y - y0)**2, t)`` is then worth looking for first, but on a domain
that is not round it need not be the only solution: Liouville's equation on a square with the data of
``log(8/(1 + x**2 + y**2)**2)`` has that radial solution and a smaller one that is not radial (issue 47).
Stage 0's radial methods reduce the equation about the centre found here; the teacher may train a network
of the squared radius before a full one.

A value ``V(x, y)`` is unchanged by the rotations about ``(x0, y0)`` when
``(x - x0)*V_y - (y - y0)*V_x = 0`` everywhere; at a few generic points this is linear in the centre, so
a least-squares solve gives it, and the symmetry is then checked at three radii and three angles.  Only
data of the field itself (no derivative: a normal derivative of a radial function on a square is not
radial) given by formulas in both variables take part; constant data say nothing about a centre.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from desyr.model.shapes import Annulus, Disk

if TYPE_CHECKING:  # pragma: no cover
    from desyr.model.problem import Problem

#: generic fractions of the bounding box where the rotation's equation is sampled
_POINTS = ((0.2360679774997897, 0.6180339887498949), (0.7320508075688772, 0.4142135623730951),
           (0.5857864376269049, 0.1715728752538099), (0.3819660112501051, 0.8944271909999159),
           (0.9, 0.7236067977499789))
_ANGLES = (0.3090169943749474, 2.23606797749979, 4.1887902047863905)
_RADII = (0.3819660112501051, 0.7236067977499789, 1.0)
#: the centre's equations must hold to this (relative) at the sample points, and the symmetry at the circles
TOLERANCE = 1e-9
#: a generic radial field of the squared radius ``s`` and time ``t`` that the equations are tried on
_TRIAL = "sin(0.3090169943749474*s + 0.4142135623730951)*(1 + 0.2360679774997897*t) + s/(3 + s)"


@dataclass(frozen=True)
class Rotation:
    """Rotations in the variables ``x`` and ``y`` (names) about ``centre``."""

    x: str
    y: str
    centre: tuple[float, float]


@dataclass(frozen=True)
class DataCentre:
    """The point every datum of the fields is radially symmetric about, in the plane of ``x`` and ``y``."""

    x: sp.Symbol
    y: sp.Symbol
    centre: np.ndarray


def rotation(problem: Problem) -> Rotation | None:
    """The rotation the problem is unchanged by (its data and its equations), or None: none of a
    problem with unknown coefficients or parameters, whose radial fields would be a different question."""
    if problem.unknowns or problem.parameters or problem.observations is not None:
        return None
    found = round_centre(problem) or data_centre(problem)
    if found is None or not keeps_radial(problem, found):
        return None
    return Rotation(str(found.x), str(found.y), (float(found.centre[0]), float(found.centre[1])))


def plane(problem: Problem) -> tuple[sp.Symbol, sp.Symbol, sp.Symbol | None] | None:
    """The two space variables and the time (or None), when those are all the problem's variables."""
    t = problem.vocabulary.var_symbols[problem.time] if problem.time else None
    space = [s for s in problem.symbols if s != t]
    if len(space) != 2 or problem.dim != 2 + (t is not None):
        return None
    return space[0], space[1], t


def round_centre(problem: Problem) -> DataCentre | None:
    """A disk's or an annulus's centre, where the data are radially symmetric about it."""
    geometry = problem.geometry
    shape = None if geometry is None else geometry.shape
    found = plane(problem)
    if geometry is None or not isinstance(shape, (Disk, Annulus)) or found is None:
        return None
    names = problem.vocabulary.var_symbols
    x, y = (names[v] for v in geometry.space)
    centre = np.array([float(c) for c in shape.c])
    values = field_values(problem, found)
    inner, outer = (shape.r0, shape.r1) if isinstance(shape, Annulus) else (0.0, shape.r)
    if values is None or not symmetric_about(values, x, y, centre, (inner, outer)):
        return None
    return DataCentre(x, y, centre)


def data_centre(problem: Problem, constants: Iterable[sp.Symbol] = ()) -> DataCentre | None:
    """The point every datum of the field is radially symmetric about, on any domain of a problem in two
    space variables (and the time where there is one); None where there is none. ``constants`` (the
    equations' parameters) are held at a sample value."""
    found = plane(problem)
    if found is None:
        return None
    x, y, _ = found
    values = field_values(problem, found, constants)
    if not values:
        return None
    columns = [problem.symbols.index(x), problem.symbols.index(y)]
    lo, hi = problem.bounds[columns, 0], problem.bounds[columns, 1]
    centre = least_squares_centre(values, x, y, lo, hi)
    if centre is None:
        return None
    size = float(np.max(hi - lo))
    centre = np.where(np.abs(centre) > TOLERANCE * size, centre, 0.0)
    if not symmetric_about(values, x, y, centre, (0.0, size / 2)):
        return None
    return DataCentre(x, y, centre)


def field_values(problem: Problem, found: tuple[sp.Symbol, sp.Symbol, sp.Symbol | None],
                 constants: Iterable[sp.Symbol] = ()) -> list[sp.Expr] | None:
    """The value of every pointwise datum, at the time's midpoint, None where one is not of a field
    itself or holds other symbols; constants are left out (they hold for any centre)."""
    x, y, t = found
    fixed = {} if t is None else {t: sp.Float(float(np.mean(problem.bounds[problem.symbols.index(t)])))}
    held = {s: sp.Float(1.2360679774997898) for s in constants}
    out = []
    for c in problem.constraints:
        if c.kind != "pointwise" or not isinstance(c.operator, sp.Symbol):
            return None
        jet = problem.vocabulary.jet_of(c.operator)
        if jet is None or jet.wrt:
            return None
        value = c.value.xreplace(held)
        if value.free_symbols - {x, y} - set(fixed):
            return None
        value = value.xreplace(fixed)
        if value.free_symbols:
            out.append(value)
    return out


def least_squares_centre(values: list[sp.Expr], x: sp.Symbol, y: sp.Symbol, lo: np.ndarray, hi: np.ndarray
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
    return c if left <= TOLERANCE * max(1.0, float(np.abs(b).max())) else None


def symmetric_about(values: list[sp.Expr], x: sp.Symbol, y: sp.Symbol, centre: np.ndarray,
                    radii: tuple[float, float]) -> bool:
    """Whether every value is the same on three circles about ``centre`` between the two radii (three
    angles each); a circle where a value is not finite (a pole of the data's formula) is passed over,
    but one circle at least must be checked where there are values."""
    x0, y0 = (float(c) for c in centre)
    checked = 0
    for value in values:
        for fraction in _RADII:
            rho = radii[0] + (radii[1] - radii[0]) * fraction
            numbers = _on_circle(value, {x: x0, y: y0}, x, y, rho)
            if numbers is None:
                continue
            if max(abs(n - numbers[0]) for n in numbers) > TOLERANCE * max(1.0, abs(numbers[0])):
                return False
            checked += 1
    return checked > 0 or not values


def keeps_radial(problem: Problem, found: DataCentre) -> bool:
    """Whether each equation's residual at a generic radial field (every field the same function of the
    squared radius and the time) is itself the same on circles about the centre: the equations then
    reduce to equations in the squared radius, as a radial network needs."""
    x, y = found.x, found.y
    x0, y0 = (float(c) for c in found.centre)
    s, t = sp.Symbol("s"), sp.Symbol("t")
    time = problem.vocabulary.var_symbols[problem.time] if problem.time else sp.Integer(0)
    trial = sp.sympify(_TRIAL, locals={"s": s, "t": t}).xreplace({s: (x - x0) ** 2 + (y - y0) ** 2, t: time})
    solution = {f: trial for f in problem.fields}
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    others = {v: sp.Float(float(lo[i] + 0.6180339887498949 * (hi[i] - lo[i])))
              for i, v in enumerate(problem.symbols) if v not in (x, y)}
    reach = float(np.max(hi[[problem.symbols.index(x), problem.symbols.index(y)]]
                         - lo[[problem.symbols.index(x), problem.symbols.index(y)]])) / 2
    for equation in problem.equations:
        residual = problem.apply(equation.residual, solution).xreplace(others)
        numbers = _on_circle(residual, {x: x0, y: y0}, x, y, 0.7236067977499789 * reach)
        if numbers is None or max(abs(n - numbers[0]) for n in numbers) > 1e-7 * max(1.0, abs(numbers[0])):
            return False
    return True


def _on_circle(value: sp.Expr, centre: dict[sp.Symbol, float], x: sp.Symbol, y: sp.Symbol, rho: float
               ) -> list[complex] | None:
    """``value`` at three angles on the circle of radius ``rho`` about ``centre``; None where one is not
    a finite number."""
    try:
        numbers = [complex(value.evalf(subs={x: centre[x] + rho * np.cos(a), y: centre[y] + rho * np.sin(a)}))
                   for a in _ANGLES]
    except (TypeError, ValueError):
        return None
    return numbers if all(np.isfinite(n) for n in numbers) else None
