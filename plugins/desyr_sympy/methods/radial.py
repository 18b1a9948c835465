"""The exact method ``radial``: one nonlinear steady equation on a disk or an annulus with radially symmetric data: radial solutions."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import radial
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Radial(ExactMethod):
    name = "radial"
    summary = "one nonlinear steady equation on a disk or an annulus with radially symmetric data: radial solutions"
    reduction = True

    def applies(self, problem: Problem) -> str:
        return radial.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return radial.solve(problem)
