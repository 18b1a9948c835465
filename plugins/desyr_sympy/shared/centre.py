"""The centre radial solutions are sought about: a disk's or an annulus's, or, on any other domain of the
plane, the point the data are radially symmetric about (issue 47: Liouville's equation on a square with
the boundary data of ``log(8/(1 + x**2 + y**2)**2)``).

The data's centre is found by the core (:func:`desyr.model.rotation.data_centre`, which the teacher's
radial network shares); an exact number is read off it here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from desyr.plugin import Disk, data_centre
from desyr_sympy.shared.forms import constants_of, exact_number
from desyr_sympy.shared.round import plane_variables, radial_data, radii, round_shape

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

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
    found = data_centre(problem, constants_of(problem))
    if found is None:
        return None
    x, y = found.x, found.y
    plane = [problem.symbols.index(x), problem.symbols.index(y)]
    lo, hi = problem.bounds[plane, 0], problem.bounds[plane, 1]
    size = float(np.max(hi - lo))
    x0, y0 = (exact_number(float(c)) for c in found.centre)
    centre = np.array([float(x0), float(y0)])
    point = np.mean(problem.bounds, axis=1)
    point[plane] = centre
    inside = bool(np.all((lo < centre) & (centre < hi))) and not problem.outside(point[None, :])[0]
    edge = min(float(x0) - lo[0], hi[0] - float(x0), float(y0) - lo[1], hi[1] - float(y0))
    radius = exact_number(edge) if inside and edge > 0 else exact_number(size / 2)
    return RadialFrame(x, y, x0, y0, inside, radius)

