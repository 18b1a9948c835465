"""The exact method ``linearise``: a nonlinear equation that a change of the field makes linear.

The Cole-Hopf family (Polyanin & Zaitsev, "linearizable equations"): for one nonlinear equation in two
variables, the field is written through a new unknown ``phi`` (``u = alpha*phi_v/phi + beta``, ``alpha*log(phi)
+ beta``, ``phi**alpha``, ``exp(phi) + beta``; :mod:`desyr_sympy.shared.linearise`) so that ``phi`` solves a
linear equation with constant coefficients; that equation's solutions from the data, the faces or free
families (:mod:`desyr_sympy.shared.linear_families`) are mapped back through the substitution.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.ansatz import nonlinear
from desyr_sympy.shared.forms import jet_symbols, residuals
from desyr_sympy.shared.linear_families import families, finite, from_data, from_faces
from desyr_sympy.shared.linearise import MAX_ORDER, is_polynomial, substitutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Linearise(ExactMethod):
    name = "linearise"
    summary = "nonlinear equations: a Cole-Hopf-type substitution to a linear equation"
    reduction = True

    def applies(self, problem: Problem) -> str:
        if problem.dim != 2 or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field in two variables"
        if not nonlinear(problem):
            return "linear: nothing to linearise"
        residual = residuals(problem)[0]
        if max(len(j.wrt) for j in problem.jets()) > MAX_ORDER:
            return f"derivatives beyond order {MAX_ORDER}"
        if residual.free_symbols & set(problem.symbols):
            return "coefficients depend on the variables"
        if not all(is_polynomial(part, jet_symbols(problem)) for part in sp.fraction(sp.together(residual))):
            return "not rational in the field and its derivatives"
        return "" if substitutions(problem) else "no substitution of the Cole-Hopf family makes it linear"

    def solve(self, problem: Problem) -> Solutions:
        field, variables = problem.fields[0], list(problem.symbols)
        out = []
        for substitution in substitutions(problem):
            phis = from_data(problem, substitution) or from_faces(problem, substitution) or families(problem, substitution)
            for phi in phis:
                u = _simplest(substitution.field(phi, variables))
                if finite(u, problem):
                    out.append({field: u})
        if not out:
            raise NotImplementedError("no solution of the linearised equation maps to a finite field")
        return out


def _simplest(expr: sp.Expr) -> sp.Expr:
    tidy = sp.factor_terms(sp.cancel(expr)) if not expr.has(sp.log) else expr
    return tidy if sp.count_ops(tidy) <= sp.count_ops(expr) else expr
