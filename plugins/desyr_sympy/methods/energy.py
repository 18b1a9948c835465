"""The exact method ``energy``: an autonomous ODE, or one a dilation makes autonomous: the energy integral and its quadrature."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import energy
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Energy(ExactMethod):
    name = "energy"
    summary = "an autonomous ODE, or one a dilation makes autonomous: the energy integral and its quadrature"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return energy.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return energy.solve(problem)
