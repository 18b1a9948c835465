"""The data of a linear problem as undetermined coefficients see them (:mod:`desyr_sympy.shared.coefficients`):
values written as formulas for the whole domain, whether their functions close under differentiation,
and a candidate's residual on each face, which the data's match solves for the candidate's constants."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import sympy as sp

from desyr.plugin import Face
from desyr_sympy.shared.forms import exact_number, outside_vocabulary, rational

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Constraint, Problem


def formulas(problem: Problem) -> list[sp.Expr]:
    """The values of the pointwise data on faces that hold a variable the face fixes (a formula for the
    whole domain, ``reference`` data), in the functions a candidate may use; else nothing."""
    symbols = problem.vocabulary.var_symbols
    values = [rational(c.value) for c in problem.constraints if c.kind == "pointwise"]
    held = any(symbols[name] in c.value.free_symbols for c in problem.constraints if c.kind == "pointwise"
               for face in c.faces if isinstance(face, Face) for name, _ in face.fixed)
    return values if held and not any(outside_vocabulary(v) for v in values) else []


#: functions whose derivatives are themselves times a polynomial, or a partner of theirs, where their
#: argument is a polynomial
_CLOSED = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh)


def closed(data: Sequence[sp.Expr], variables: list[sp.Symbol]) -> bool:
    """Whether the data's kernels and their derivatives are a finite family up to monomial factors:
    every function of the variables in them is one of :data:`_CLOSED` of a polynomial, with no other
    power than a positive integer (``exp(x)*cos(y)`` and ``exp(x)*sin(y)``; not a Gaussian of spreading
    width, each derivative of which has a new power of ``t + 1``, nor ``log``).  Where they are not, the
    basis holds no solution of a source-free equation beyond polynomials.  Read off the atoms, no algebra."""
    own = set(variables)
    for value in data:
        for atom in value.atoms(sp.Function, sp.Pow):
            if not atom.free_symbols & own:
                continue
            if isinstance(atom, sp.Pow):
                if not (atom.exp.is_Integer and atom.exp > 0):
                    return False
            elif not (isinstance(atom, _CLOSED) and atom.args[0].is_polynomial(*variables)):
                return False
    return True


def on_faces(problem: Problem, residual: Callable[[Constraint], sp.Expr | None]) -> list[sp.Expr] | None:
    """Each constraint's ``residual`` on each of its faces (the face's variables set), or None where a
    constraint is not pointwise on faces or ``residual`` gives None for it."""
    symbols = problem.vocabulary.var_symbols
    out = []
    for con in problem.constraints:
        value = residual(con) if con.kind == "pointwise" else None
        if value is None or not all(isinstance(face, Face) for face in con.faces):
            return None
        value = rational(value)
        out += [value.xreplace({symbols[n]: exact_number(at) for n, at in face.fixed})
                for face in con.faces if isinstance(face, Face)]
    return out
