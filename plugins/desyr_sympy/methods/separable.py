"""The exact method ``separable``: linear PDEs with constant coefficients: the data's shapes times exponentials, sines and cosines of free rates."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import separable
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Separable(ExactMethod):
    name = "separable"
    summary = "linear PDEs with constant coefficients: the data's shapes times exponentials, sines and cosines of free rates"

    def applies(self, problem: Problem) -> str:
        return separable.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return separable.separate(problem)
