"""The exact method ``dsolve_ics``: SymPy's ``dsolve`` with the constraints as initial conditions, when every
constraint is a plain point value.

It can fail where the general solution does not (SymPy answers ``[]`` for some nonlinear problems), and
then ``dsolve`` still gives the form.  For one ODE both come from one ``sympy.dsolve`` call
(:meth:`desyr_sympy.methods.dsolve.Dsolve.solve_both`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.forms import point_conditions
from desyr_sympy.shared.odes import equations, explicit, initial_conditions, ode_applies

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class DsolveIcs(ExactMethod):
    name = "dsolve_ics"
    summary = "ODEs and ODE systems with point conditions: SymPy's `dsolve` with the conditions"
    problems = "ODEs and ODE systems with point conditions"
    proposes = "`dsolve` with the conditions, where SymPy accepts them"

    def applies(self, problem: Problem) -> str:
        return ode_applies(problem) or ("" if point_conditions(problem) else "a condition is not a plain point value")

    def solve(self, problem: Problem) -> Solutions:
        odes, targets, functions = equations(problem)
        return explicit(sp.dsolve(odes, targets, ics=initial_conditions(problem, functions)), functions)
