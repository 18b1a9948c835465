"""The exact method ``linear_part``: flows with a pressure: the solutions of their linear part, the pressure completed by stage 0."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import linear_part
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class LinearPart(ExactMethod):
    name = "linear_part"
    summary = "flows with a pressure: the solutions of their linear part, the pressure completed by stage 0"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return linear_part.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return linear_part.solve(problem)
