"""The exact method ``linearise``: nonlinear equations: a Cole-Hopf-type substitution to a linear equation."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import linear_families, linearise
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Linearise(ExactMethod):
    name = "linearise"
    summary = "nonlinear equations: a Cole-Hopf-type substitution to a linear equation"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return linearise.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return linear_families.solve(problem)
