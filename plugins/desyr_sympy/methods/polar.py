"""The exact method ``polar``: one linear equation on a disk or an annulus with radially symmetric data: radial modes `R(r)*T(t)`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import polar
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Polar(ExactMethod):
    name = "polar"
    summary = "one linear equation on a disk or an annulus with radially symmetric data: radial modes `R(r)*T(t)`"

    def applies(self, problem: Problem) -> str:
        return polar.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return polar.radial(problem)
