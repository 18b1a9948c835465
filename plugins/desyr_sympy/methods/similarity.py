"""The exact method ``similarity``: one field in `x` and `t` whose equation scales: similarity variables, possibly in a moving frame."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import similarity
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Similarity(ExactMethod):
    name = "similarity"
    summary = "one field in `x` and `t` whose equation scales: similarity variables, possibly in a moving frame"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return similarity.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return similarity.similarity(problem)
