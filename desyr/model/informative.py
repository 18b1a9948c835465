"""Which observations can tell one solution of a problem from another.

An observation of a field at a point where a constraint fixes that field's value (``u = sin(pi*x)``
at t = 0) is the same for every candidate that meets the constraint, whatever its coefficients: it
carries no information about them. Pooled with the rest it only dilutes the misfit, so that 99,920
values at t = 0 beside 80 informative ones let a wrong diffusivity pass the chi-square test
(issue 35). Such observations are left out of the test, and the verdict says how many.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from desyr.model.problem import Constraint, Problem

#: how close to a face a point must lie, as a fraction of the variable's range, to be on it
ON_FACE = 1e-9


def imposed(problem: Problem, field: str, X: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Which rows of ``X`` lie where a constraint fixes ``field``'s value (with no unknown in it), and
    the sets that did. Only faces of the box are recognised; a point on a shape's curved part counts as
    informative (its value still enters the two-sided test)."""
    mask = np.zeros(X.shape[0], dtype=bool)
    where: list[str] = []
    for con in problem.constraints:
        if not _fixes(problem, con, field):
            continue
        for face in con.faces:
            fixed = getattr(face, "fixed", None)
            if not fixed:
                continue
            on = np.ones(X.shape[0], dtype=bool)
            for name, value in fixed:
                k = problem.variable_names.index(name)
                width = float(problem.bounds[k, 1] - problem.bounds[k, 0]) or 1.0
                on &= np.abs(X[:, k] - value) <= ON_FACE * width
            if on.any():
                mask |= on
                where.append(face.describe())
    return mask, where


def _fixes(problem: Problem, con: Constraint, field: str) -> bool:
    """Whether ``con`` sets ``field`` itself to a value that no unknown moves (``u = sin(pi*x)``; not
    ``u_x = 0``, nor ``u = A*sin(pi*x)``, whose data do decide A)."""
    if con.kind != "pointwise":
        return False
    jet = problem.vocabulary.jet_of(con.operator) if con.operator.is_Symbol else None
    if jet is None or jet.field != field or jet.wrt:
        return False
    unknowns = {problem.unknown_symbol(n) for n in problem.unknown_names}
    return not (con.value.free_symbols & unknowns)
