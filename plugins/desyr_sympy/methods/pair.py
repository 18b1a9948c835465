"""The exact method ``pair``: cubic reaction-diffusion equations: an overdetermined linear pair."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import pair
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Pair(ExactMethod):
    name = "pair"
    summary = "cubic reaction-diffusion equations: an overdetermined linear pair"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return pair.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return pair.solve(problem)
