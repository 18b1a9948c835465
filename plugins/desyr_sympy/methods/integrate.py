"""The exact method ``integrate``: a single derivative equal to a source, `a*u^(n) = f(x)`: the source integrated n times, plus the homogeneous polynomial."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import odes
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Integrate(ExactMethod):
    name = "integrate"
    summary = "a single derivative equal to a source, `a*u^(n) = f(x)`: the source integrated n times, plus the homogeneous polynomial"
    settles = True

    def applies(self, problem: Problem) -> str:
        return odes.integrate_applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return odes.integrate_source(problem)
