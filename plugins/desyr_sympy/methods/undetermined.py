"""The exact method ``undetermined``: undetermined coefficients: a linear equation with a closed-form source, solved in a finite basis
built from the functions of the source itself (issue 36; a manufactured solution read backwards).

The trial space, for ``L[u] = f`` with ``f`` a sum of terms:

- the source's *kernels*: each term without its numeric factor and its monomial in the variables
  (``-x**2*exp(x*y)`` -> ``exp(x*y)``; denominators factored: ``2/(2 + x + y)**2`` -> ``(2 + x + y)**-2``);
- antiderivatives of each factor of a kernel in its own inner expression ``z``, up to the operator's
  order (SymPy's ``integrate`` of ``z**k``, ``exp(z)``, ``log(z)``, ``sin(z)``...): ``z**-2`` gives ``1/z``
  and ``log(z)``, which is how a manufactured ``log`` shows in its source;
- the kernels of their derivatives, up to the operator's order (``sin`` brings ``cos``; a product of
  sines the mixed products);
- the kernels of the data's formulas (a boundary value written for the whole domain, ``reference``
  data: ``exp(x)*cos(y)``), which is what a source-free equation has to go on;
- each kernel times the monomials that divide the source's monomials of it, times one variable more
  (resonance: ``x*cos(x)`` for ``u'' + u = sin(x)``), and a polynomial of low degree.

``u = sum c_i b_i`` goes through the operator.  With each transcendental atom (a function of the
variables, a fractional power) standing for a symbol of its own, the residual's numerator is a
polynomial whose coefficients, linear in the ``c_i``, must all vanish: an exact linear system.  Taking
the atoms as independent only adds equations, so any solution of the system solves the equation.  Its
free unknowns span homogeneous solutions inside the basis (harmonic polynomials, ``1``, ``x`` and
``x**2 + 2*t`` for the heat equation): the particular solution comes back with them at 0, and, unless
it already meets the data, once more with them as free constants that Stage B fits to the boundary
data.  Before that, the data themselves are matched exactly where they are pointwise on faces: the
general candidate's residual on each face, linear in its constants, must vanish identically in the
face's free variables (one more linear system; a marker symbol per face keeps the faces' equations
apart), which gives ``3 + exp(x)*cos(y)`` for Laplace's equation with that formula on the boundary.
Other homogeneous parts (eigenmodes the data do not show) are left to the other solvers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.coefficients import MAX_FREE, match, meets_data, solutions
from desyr_sympy.shared.face_data import closed, formulas, on_faces
from desyr_sympy.shared.forms import jet_symbols, linear_equation, outside_vocabulary, residuals, split_linear

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Undetermined(ExactMethod):
    name = "undetermined"
    summary = "linear equations with a source, or with formulas as data: undetermined coefficients"
    problems = ("one linear equation, ODE or PDE in any number of variables, on a box or a shape, with a source term "
                "(a `rhs`, or terms free of the field) made of functions a candidate may use, or without one where "
                "some data are a formula for the whole domain (a value on a face that holds the face's own variable, "
                "`reference` data) whose functions close under differentiation (`exp`, `sin`, `cos`, `sinh`, `cosh` "
                "of polynomials, positive integer powers: read off the atoms)")
    proposes = ("the method of undetermined coefficients: `u = sum c_i b_i` in a basis built from the source (its "
                "terms without numbers and monomials: `exp(x*y)`, `exp(-t)/(1 + x**2)**2`, a denominator factored; "
                "the terms of the data's formulas likewise; the antiderivatives of each factor in its own inner "
                "expression up to the operator's order: `log(2 + x + y)` and `1/(2 + x + y)` from `(2 + x + y)**-2`; "
                "the terms of their derivatives up to that order: `cos(pi*x)` from `sin(pi*x)`), each times the "
                "monomials dividing the source's ones times one variable more (`x*sin(x)` for `u'' + u = 2*cos(x)`), "
                "plus a polynomial of degree up to the source's polynomial degree plus the operator's order (at most "
                "3); at most 8 kernels and 40 functions (else the multipliers lose their extra degree, else it "
                "declines). The operator's image of the basis, with every transcendental atom a symbol of its own "
                "(`exp(a*r)` a power of one symbol per `r`, so `exp(-t)*exp(t) = 1`), is put over one denominator; "
                "its numerator's coefficients give an exact linear system (treating atoms as independent only adds "
                "equations, so every solution is one). Two candidates: the particular solution with the free "
                "unknowns at 0 (`exp(-t)*log(1 + x**2)`, `exp(x*y) + log(2 + x + y)`, `exp(x)*sin(y)` on an "
                "L-shape), and, unless it already meets every constraint (checked at points of each face), the same "
                "plus the homogeneous solutions the free unknowns span (`1`, `x`, `x**2 + 2*t` for the heat "
                "operator, harmonic polynomials for Laplace), independent ones only. Where the data are pointwise on "
                "faces, the constants are first **matched to the data exactly**: the candidate's residual on each "
                "face, linear in them, must vanish identically in the face's free variables (one more exact linear "
                "system, a marker symbol per face); where the data fix every constant that answer comes alone (`3 + "
                "exp(x)*cos(y)` for Laplace's equation with that formula on the boundary, `cos(x) + x*sin(x)` for "
                "`u'' + u = 2*cos(x)`), else those they leave free (at most 10) stay free constants for Stage B; a "
                "source-free equation gets no candidate whose free part is only polynomials")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field and one equation"
        linear = split_linear(residuals(problem)[0], jet_symbols(problem))
        if linear is None:
            return "not linear"
        if linear.forcing == 0:
            data = formulas(problem)
            if not data:
                return "no source term and no data written as a formula for the whole domain"
            if not closed(data, list(problem.symbols)):
                return "no source term, and the data's functions are no finite family under differentiation"
        if outside_vocabulary(linear.forcing):
            return "a source outside the functions a candidate may use"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        linear = linear_equation(problem)
        variables = list(problem.symbols)
        order = max((len(jet_symbols(problem)[j].wrt) for j in linear.coefficients), default=0)
        field = problem.fields[0]
        particular, homogeneous = solutions(lambda b: problem.apply(linear.operator(), {field: b}), linear.forcing,
                                            variables, order, formulas(problem))
        out = [{field: particular}] if particular != 0 else []       # 0: no source, the data decide
        if (out and meets_data(problem, out[0])) or not homogeneous:
            return out      # the answer itself: a candidate with free constants would only cost a refit
        constants = list(sp.symbols(f"C1:{len(homogeneous) + 1}"))
        general = particular + sp.Add(*[k * h for k, h in zip(constants, homogeneous)])
        matched = match(on_faces(problem, lambda con: problem.constraint_residual(con, {field: general})),
                        constants, variables)
        if matched is not None:
            general = general.xreplace(matched)
            if not general.free_symbols & set(constants):
                return [{field: general}]       # the data fix every constant: the answer alone
        useful = linear.forcing != 0 or any(not h.is_polynomial(*variables) for h in homogeneous)
        return [*out, {field: general}] if useful and len(general.free_symbols & set(constants)) <= MAX_FREE else out
