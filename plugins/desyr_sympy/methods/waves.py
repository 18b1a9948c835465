"""The exact method ``waves``: nonlinear evolution equations and systems in `x` and `t`: profiles of `x - c*t`, `x + c*t` or `x`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import waves
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Waves(ExactMethod):
    name = "waves"
    summary = "nonlinear evolution equations and systems in `x` and `t`: profiles of `x - c*t`, `x + c*t` or `x`"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return waves.waves_applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return waves.waves(problem)
