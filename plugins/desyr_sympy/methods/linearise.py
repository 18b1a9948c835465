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
    problems = ("one nonlinear equation, rational in the field and its derivatives with constant coefficients, in "
                "two variables (`x, t` or `x, y`)")
    proposes = ("a **linearising substitution** of the Cole-Hopf family (Polyanin-Zaitsev's linearizable equations): "
                "`u = alpha*phi_v/phi + beta` (`v` a space variable), `u = alpha*log(phi) + beta`, `u = phi**alpha`, "
                "`u = exp(phi) + beta` (`alpha` is 1 there: a multiple of a solution is one); substituted and "
                "cleared of the powers of `phi`, `alpha` and `beta` are solved from the coefficients of the terms "
                "nonlinear in `phi` so that the equation is `phi**k*A[phi]`, `A` linear with constant coefficients, "
                "or the total derivative `phi**(k+1)*D_v(A[phi]/phi)`, integrated once (Burgers' `u_t + u*u_x = "
                "nu*u_xx` gives `u = -2*nu*phi_x/phi`, `phi_t = nu*phi_xx`; `u_t = u_xx + u_x**2` gives `u = "
                "log(phi)`; `u_t = u_xx + u_x**2/u` gives `u = sqrt(phi)`; the elliptic `u_xx + u_yy = u_x**2 + "
                "u_y**2` gives `u = -log(phi)`, `u*(u_xx + u_yy) = u_x**2 + u_y**2` gives `u = exp(phi)`, `phi` "
                "harmonic). Where `A` is an evolution equation `p*phi_w = L[phi]` and the field is given on a line "
                "of fixed `w`, that value is carried back (`phi = exp(integral(u/alpha))`, hyperbolic functions as "
                "exponentials) and each term evolved exactly: an eigenfunction of `L` (`exp(k*x)`, `sin(k*x)`, "
                "`cosh(k*x)`) gets `exp(lambda*(w - w0))`, a term a power of `L` annihilates the finite series of "
                "`exp((w - w0)*L)` (heat polynomials: `-x/(x**2 + t/2 + 1)` from `-x/(x**2 + 1)`); else, where the "
                "field's data on faces are formulas (an elliptic equation's boundary values) and the substitution "
                "carries a value back pointwise (`log`, `power`, `exp`), `phi` by `undetermined`'s method on the "
                "carried-back data's functions: the combinations of the trial functions that solve `A[phi] = 0` "
                "identically, matched exactly to the carried-back face data (`u = -log(3 + exp(x)*cos(y))` on a "
                "square's boundary gives `phi = 3 + exp(x)*cos(y)`), the constants the data leave free for Stage B; "
                "without such data, the polynomial solutions of degree 1 and 2 and, for an evolution equation, a "
                "constant plus two modes `exp(k*v + lambda(k)*w)`, their constants free for Stage B with one "
                "coefficient fixed to 1 (`phi` counts only up to a factor) and `phi` kept away from 0 on the domain. "
                "The check (a substitution and a small `solve`, about 0.1 s) runs only on nonlinear rational "
                "equations; no `dsolve` call")
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
