"""The exact method ``series``: separation of variables with eigenfunction expansions (issue 46).

The heat and wave equations (damped too), Laplace's and Poisson's, on intervals, rectangles, boxes, disks
and annuli, with Dirichlet, Neumann, Robin or periodic conditions: a steady, lifting or particular part
plus the remainder's expansion in the separated variables' eigenfunctions, coefficients from exact
orthogonality integrals in a symbolic index (``Sum(term, (n, 1, oo))``), or the finite formula where the
data are finitely many eigenfunctions.  The algorithm is the package :mod:`desyr_sympy.series`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import series
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Series(ExactMethod):
    name = "series"
    summary = ("linear heat, wave, Laplace and Poisson problems on intervals, boxes, disks and annuli: "
               "separation of variables, `Sum(c(n)*X_n*T_n, (n, 1, oo))` with exact coefficients")
    problems = ("one linear equation with constant coefficients (heat, wave, damped wave, Laplace, Poisson) on an "
                "interval, a rectangle, a box, a disk or an annulus, a separated condition (Dirichlet, Neumann, "
                "Robin) on each face or rim, or a periodic pair, and the initial data")
    proposes = ("separation of variables (below, \"Series\"): a steady, lifting or particular part plus "
                "`Sum(c(n)*X_n*T_n, (n, 1, oo))` over the eigenfunctions of the separated variables (`sin(pi*n*x)`, "
                "`robinroot`, `besselj(m, besseljzero(m, k)*r)`), coefficients from exact integrals in closed form "
                "in `n`, Duhamel's integral for sources; the finite formula where the data are finitely many "
                "eigenfunctions")
    reduction = True

    def applies(self, problem: Problem) -> str:
        return series.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return series.solve(problem)
