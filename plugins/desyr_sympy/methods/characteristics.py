"""The exact method ``characteristics``: first-order linear PDEs in two variables: pdsolve, composed with the data.

``pdsolve`` answers ``a u_x + b u_t + c u = f`` with an arbitrary function of
the characteristic variable, ``u = F(x - t)`` for advection.  Data given on a
line where one variable is fixed (``u(x, 0) = g(x)``, an inflow ``u(-1, t) = h(t)``)
fixes F: on that line ``F(xi(w))`` is solved for from ``u = g(w)``, and ``xi(w) = s``
for ``w``, which gives ``F(s)``.  Each such line gives one candidate; they agree when
the data are consistent.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import sympy as sp
from sympy.core.function import AppliedUndef

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.forms import (
    Data,
    field_functions,
    jet_symbols,
    residuals,
    slice_data,
    split_linear,
    to_derivatives,
)

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Characteristics(ExactMethod):
    name = "characteristics"
    summary = "first-order linear PDEs in two variables: `pdsolve`'s general solution fixed by the data on a line"
    problems = "first-order linear PDEs in two variables"
    proposes = "`pdsolve`'s general solution with its arbitrary function fixed by the data on a line"

    def applies(self, problem: Problem) -> str:
        if problem.dim != 2 or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field in two variables"
        equation_jets = residuals(problem)[0].free_symbols & set(jet_symbols(problem))
        if max(len(jet_symbols(problem)[j].wrt) for j in equation_jets) != 1:
            return "not first order"
        if split_linear(residuals(problem)[0], jet_symbols(problem)) is None:
            return "not linear"
        if not _field_data(problem):
            return "no data of the field on a line"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        functions = field_functions(problem)
        (name, u), = functions.items()
        equation = to_derivatives(residuals(problem)[0], problem, functions)
        general = sp.pdsolve(equation, u).rhs
        arbitrary = [a for a in general.atoms(AppliedUndef) if a.func != u.func]
        if len({a.func for a in arbitrary}) != 1 or len(arbitrary) != 1:
            raise NotImplementedError(f"general solution {general} has no single arbitrary function")
        out = []
        for data in _field_data(problem):
            composed = _compose(general, arbitrary[0], data, problem.symbols)
            if composed is not None:
                out.append({name: composed})
        return out


def _field_data(problem: Problem) -> list[Data]:
    jet = problem.vocabulary.parse_jet(problem.fields[0])
    assert jet is not None      # a field's own name is always a jet (no derivatives)
    field_symbol = problem.jet_symbol(jet)
    return [d for d in slice_data(problem) if d.operator == field_symbol]


def _compose(general: sp.Expr, call: sp.Expr, data: Data, variables: Iterable[sp.Symbol]) -> sp.Expr | None:
    """``general`` with its arbitrary function fixed so that ``u = data.value`` on the line."""
    (w,) = [v for v in variables if v != data.variable]
    on_line = general.subs(data.variable, data.at)
    xi = call.args[0].subs(data.variable, data.at)
    unknown, s = sp.Dummy("F"), sp.Dummy("s")
    values = sp.solve(on_line.subs(call.subs(data.variable, data.at), unknown) - data.value, unknown)
    inverse = sp.solve(xi - s, w)
    if len(values) != 1 or len(inverse) != 1:
        return None
    f_of_s = values[0].subs(w, inverse[0])
    result = general.subs(call, f_of_s.subs(s, call.args[0]))
    return _tidy(result)


def _tidy(expr: sp.Expr) -> sp.Expr:
    # exp(a)*exp(b) from the inverse and the integrating factor: one exponential reads better
    tidy = sp.simplify(sp.powsimp(expr))
    return tidy if sp.count_ops(tidy) <= sp.count_ops(expr) else expr
