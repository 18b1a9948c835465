"""The exact method ``integrate``: ``a * u^(n) = f(x)`` by integrating ``f`` n times, plus the homogeneous
polynomial; cheaper and more robust than ``dsolve`` on manufactured sources.  Its answer is the general
solution, so when it has one the later methods are not asked (``settles``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.forms import jet_symbols, linear_equation, outside_vocabulary, residuals, split_linear

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Integrate(ExactMethod):
    name = "integrate"
    summary = ("a single derivative equal to a source, `a*u^(n) = f(x)`: the source integrated n times, plus the "
               "homogeneous polynomial")
    problems = "`u'' = f`, `u'''' = f` (one variable)"
    proposes = "the integral of the forcing plus the homogeneous solution, its constants free"
    settles = True

    def applies(self, problem: Problem) -> str:
        """"" for one field with ``a * u^(n) = f(x)``, a constant, n >= 1."""
        if problem.dim != 1 or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not a single 1-D equation"
        linear = split_linear(residuals(problem)[0], jet_symbols(problem))
        if linear is None:
            return "not linear"
        derivatives = [j for j in linear.coefficients if linear.coefficients[j] != 0]
        if len(derivatives) != 1 or not jet_symbols(problem)[derivatives[0]].wrt:
            return "not a single derivative equal to a source"
        if not linear.constant_coefficients(problem.symbols):
            return "variable coefficient"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        x = problem.symbols[0]
        linear = linear_equation(problem)
        (jet_symbol, coefficient), = [(j, c) for j, c in linear.coefficients.items() if c != 0]
        order = len(jet_symbols(problem)[jet_symbol].wrt)
        g = linear.forcing / coefficient
        for _ in range(order):
            g = antiderivative(g, x)
            if g is None:
                raise NotImplementedError(f"no elementary antiderivative of {linear.forcing}")
        # the homogeneous solution: a polynomial of degree order-1 with free coefficients
        homogeneous = sp.Add(*[sp.Symbol(f"C{k + 1}") * x**k for k in range(order)])
        return [{problem.fields[0]: g + homogeneous}]


def antiderivative(f: sp.Expr, x: sp.Symbol) -> sp.Expr | None:
    """An elementary antiderivative of ``f``, or None.  The Risch-Norman heuristic first: it takes a
    sum whole, where ``integrate`` goes term by term and fails on a manufactured source whose terms
    have no elementary integral of their own (Nguyen-5's ``2*cos(x)*cos(x**2) - 4*x*sin(x)*cos(x**2)
    - ...``: Fresnel integrals term by term, ``-sin(x)*sin(x**2) + ...`` whole); it is also the
    faster of the two here (0.05-3 s against 10-14 s on SSDE's sources)."""
    from sympy.integrals.heurisch import heurisch

    try:
        whole = heurisch(f, x)
    except Exception:  # noqa: BLE001 - the heuristic gives up in many ways; integrate may not
        whole = None
    if whole is not None and _elementary(whole):
        return whole
    found = sp.integrate(f, x)
    return found if _elementary(found) else None


def _elementary(expr: sp.Expr) -> bool:
    """Whether the parser reads the antiderivative: its functions, erf of ``exp(-x**2)`` included,
    and no unevaluated integral, case split or imaginary unit."""
    return not expr.has(sp.Piecewise) and not outside_vocabulary(expr)
