"""The exact method ``vanishing``: nonlinear problems: the solutions of the linear part on which the nonlinear terms vanish."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import vanishing
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Vanishing(ExactMethod):
    name = "vanishing"
    summary = "nonlinear problems: the solutions of the linear part on which the nonlinear terms vanish"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return vanishing.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return vanishing.solve(problem)
