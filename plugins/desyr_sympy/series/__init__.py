"""Separation of variables with eigenfunction expansions (issue 46): the textbook's series.

``applies(problem)`` (cheap, in the parent) reads the problem into a :class:`~layout.Layout` or says why
not; ``solve(problem)`` (in the bounded child) writes the answer ``P + Sum(...)``: a steady, lifting or
particular part plus the homogeneous remainder's expansion in the eigenfunctions of the separated
variables, coefficients in closed form in the index, checked against quadrature.  Where the data are
finitely many eigenfunctions the answer is that finite formula.  See docs/solvers.md, "series".
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.series.layout import Declined, Layout, read
from desyr_sympy.shared.forms import outside_vocabulary

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

__all__ = ["applies", "solve", "Declined"]


def applies(problem: Problem) -> str:
    """"" when the method applies, else why not (the attempt record's detail)."""
    try:
        layout = read(problem)
    except Declined as exc:
        return str(exc)
    if not layout.evolution and len(layout.spatial) == 1:
        return "an ODE (the other solvers' problem)"
    return ""


def solve(problem: Problem) -> list[dict[str, sp.Expr]]:
    """The series answer, or NotImplementedError with the reason it declines."""
    try:
        layout = read(problem)
        answer = _answer(problem, layout)
    except Declined as exc:
        raise NotImplementedError(str(exc)) from None
    outside = outside_vocabulary(answer)
    if outside:
        raise NotImplementedError(f"a coefficient in functions the expression language lacks ({', '.join(sorted(outside))})")
    return [{layout.field: answer}]


def _answer(problem: Problem, layout: Layout) -> sp.Expr:
    from desyr_sympy.series import box, rounds
    from desyr_sympy.series.assemble import index_names
    from desyr_sympy.series.finite import particular_answer

    finite = particular_answer(problem, layout)
    if finite is not None:
        return finite
    taken = [*problem.variable_names, *problem.fields]
    if layout.round is not None:
        return rounds.solve(layout, index_names(taken, 1))
    names = index_names(taken, len(layout.axes))
    return box.evolution(layout, names) if layout.evolution else box.elliptic(layout, names)
