"""The exact method ``phase``: a nonlinear pair that is one Schrodinger-type field `u + i*v`: a profile times a rotating phase."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import waves
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Phase(ExactMethod):
    name = "phase"
    summary = "a nonlinear pair that is one Schrodinger-type field `u + i*v`: a profile times a rotating phase"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return waves.phase_applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return waves.phase(problem)
