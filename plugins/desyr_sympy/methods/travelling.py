"""The exact method ``travelling``: travelling waves: ``u(x, t) = g(x -+ c (t - t0))`` from the field's data ``g`` at ``t = t0``.

A front or pulse that keeps its shape is a function of ``x - c t`` alone; for the equation it
solves, the data at the initial time is that function, so the data shifted at an unknown speed
is the candidate.  The speed is a free constant that Stage B fits from the physics (both
directions are proposed); the shape's own numbers stay exact.  A viscous Burgers front, a
bistable reaction-diffusion front and any linear advection are of this kind; an equation
without such a solution gives a candidate the refit cannot make exact, and the gates drop it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.forms import initial_data

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Travelling(ExactMethod):
    name = "travelling"
    summary = ("one field in one space variable and time, its value at a fixed time given: that value shifted "
               "at a free speed")
    problems = ("one field in one space variable and time, linear or not, with the field's value at a fixed time "
                "given as an expression")
    proposes = ("that data shifted at a speed the refit determines, `g(x - c*t)` and `g(x + c*t)`: a viscous Burgers "
                "front, a bistable reaction-diffusion front, a pulse carried by advection")

    def applies(self, problem: Problem) -> str:
        if problem.dim != 2 or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field in one space variable and time"
        if problem.time is None:
            return "no time variable"
        if not initial_data(problem):
            return "no data of the field at a fixed time that varies in space"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        assert problem.time is not None        # applies() said so
        t = problem.vocabulary.var_symbols[problem.time]
        (x,) = [v for v in problem.symbols if v != t]
        speed = sp.Symbol("C1")                  # free: Stage B fits it (candidates.free_constants)
        out = []
        for data in initial_data(problem):
            for direction in (1, -1):
                out.append({problem.fields[0]: data.value.subs(x, x - direction * speed * (t - data.at))})
        return out


