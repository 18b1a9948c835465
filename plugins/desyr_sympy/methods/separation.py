"""The exact method ``separation``: one nonlinear equation in two variables: additive and multiplicative separation of variables."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import separation
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Separation(ExactMethod):
    name = "separation"
    summary = "one nonlinear equation in two variables: additive and multiplicative separation of variables"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return separation.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return separation.separate(problem)
