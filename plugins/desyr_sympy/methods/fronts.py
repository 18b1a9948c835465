"""The exact method ``fronts``: autonomous nonlinear equations polynomial in the fields: travelling fronts by the tanh method."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import fronts
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Fronts(ExactMethod):
    name = "fronts"
    summary = "autonomous nonlinear equations polynomial in the fields: travelling fronts by the tanh method"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return fronts.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return fronts.fronts(problem)
