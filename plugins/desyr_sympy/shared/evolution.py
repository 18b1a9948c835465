"""Evolution equations in one space variable and time, as the ``waves`` and ``phase`` methods read them."""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.shared.ansatz import nonlinear

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


def space_time(problem: Problem) -> tuple[sp.Symbol, sp.Symbol]:
    """The space variable and the time (the method's ``applies`` checked there are just these two)."""
    assert problem.time is not None        # applies() said so
    t = problem.vocabulary.var_symbols[problem.time]
    (x,) = [v for v in problem.symbols if v != t]
    return x, t


def evolution_applies(problem: Problem, fields: str) -> str:
    """"" for a nonlinear evolution equation (or system of up to three fields; a pair where ``fields`` is
    "pair") in one space variable and time, else why not."""
    if problem.dim != 2 or problem.time is None:
        return "not one space variable and time"
    if len(problem.equations) != len(problem.fields):
        return f"{len(problem.equations)} equations for {len(problem.fields)} fields"
    if fields == "pair" and len(problem.fields) != 2:
        return "not a pair of fields"
    if len(problem.fields) > 3:
        return "more than three fields"
    return "" if nonlinear(problem) else "linear: the separable and characteristics solvers'"
