"""The exact method ``dsolve``: ODEs and ODE systems: SymPy's general solution, its constants free for Stage B."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import odes
from desyr_sympy.method import Answer, ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Dsolve(ExactMethod):
    name = "dsolve"
    summary = "ODEs and ODE systems: SymPy's general solution, its constants free for Stage B"

    def applies(self, problem: Problem) -> str:
        return odes.ode_applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return odes.dsolve_general(problem)

    def answers_too(self, problem: Problem) -> str:
        # SymPy's answer with conditions is its general solution with the constants solved from them
        return "dsolve_ics" if len(problem.fields) == 1 else ""

    def solve_both(self, problem: Problem) -> tuple[Solutions, Answer]:
        return odes.dsolve_both(problem)
