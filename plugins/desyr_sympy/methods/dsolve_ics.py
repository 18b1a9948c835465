"""The exact method ``dsolve_ics``: ODEs and ODE systems with point conditions: SymPy's `dsolve` with the conditions."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import odes
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class DsolveIcs(ExactMethod):
    name = "dsolve_ics"
    summary = "ODEs and ODE systems with point conditions: SymPy's `dsolve` with the conditions"

    def applies(self, problem: Problem) -> str:
        return odes.ics_applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return odes.dsolve_ics(problem)
