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
    reduction = True

    def applies(self, problem: Problem) -> str:
        return series.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return series.solve(problem)
