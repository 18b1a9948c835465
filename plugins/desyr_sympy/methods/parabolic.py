"""The exact method ``parabolic``: linear parabolic equations in one space variable: reduced to the heat equation."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import linear_parabolic
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Parabolic(ExactMethod):
    name = "parabolic"
    summary = "linear parabolic equations in one space variable: reduced to the heat equation"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return linear_parabolic.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return linear_parabolic.solve(problem)
