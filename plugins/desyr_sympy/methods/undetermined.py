"""The exact method ``undetermined``: linear equations with a source, or with formulas as data: undetermined coefficients."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import undetermined
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Undetermined(ExactMethod):
    name = "undetermined"
    summary = "linear equations with a source, or with formulas as data: undetermined coefficients"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return undetermined.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return undetermined.solve(problem)
