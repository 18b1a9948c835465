"""The exact method ``energy``: order reduction of one autonomous ODE through the energy integral ``f'^2 = q(f)``.

``dsolve`` stops at ``u'' = sin(u)`` (an implicit answer with an unevaluated integral) and at most nonlinear
autonomous equations; the integral, its level and its quadrature are :mod:`desyr_sympy.shared.energy`'s.
An ODE that keeps its form under a dilation (Emden-Fowler, Lane-Emden, Liouville's radial equation) is
made autonomous first.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.ansatz import nonlinear, profile, substitute
from desyr_sympy.shared.energy import autonomous_form, mapped_back, ode_reductions, profiles
from desyr_sympy.shared.forms import point_conditions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Energy(ExactMethod):
    name = "energy"
    summary = "an autonomous ODE, or one a dilation makes autonomous: the energy integral and its quadrature"
    problems = ("one autonomous ODE `a(u) u'' = F(u, u'^2)` with `u'` only squared (after integrating a total "
                "derivative once), or one a dilation `x -> l*x, u -> l**k*u` makes autonomous through `u = "
                "x**k*w(log(x))` (Lane-Emden, Emden-Fowler, Euler-type), or, with `u` only in exponentials, a "
                "dilation with a shift `x -> l*x, u -> u + k*log(l)` through `u = w(log(x)) + k*log(x)` (Liouville's "
                "radial `u'' + u'/x + exp(u)`)")
    proposes = ("`u'^2 = q(u)`: `q = 2*G(u) + E` for `u'' = F(u)`, else the linear first-order ODE that `q` solves "
                "(`dsolve`); the level `E` from a value and a slope given at one point, else at each saddle "
                "equilibrium (a double root of `q`: the orbit of a kink or a soliton), else 0, else left free for "
                "Stage B; the quadrature of `1/sqrt(q)` on the branch the data pick (the profile's sign, the square "
                "root's and each logarithm's on the interval of values the data lie in, else between the real roots "
                "of `q`), in `z = u**2` where the integrand is even, inverted for `u`: `4*atan(exp(x + C1))` for "
                "`u'' = sin(u)`, `tanh(x + C1)` for `u'' = 2*u**3 - 2*u`")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if problem.dim != 1 or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not a single equation in one variable"
        if not nonlinear(problem):
            return "linear: dsolve's"
        if not any(_second_order(autonomous_form(ode, fs), fs) for ode, fs, *_ in _reductions(problem)):
            return "not autonomous (nor made so by a dilation) of the form a(u) u'' = F(u, u'^2)"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        (x,) = problem.symbols
        conditions = point_conditions(problem) or []
        out: list[dict[str, sp.Expr]] = []
        for ode, fs, s, back, to_profile in _reductions(problem):
            at = {c.at: c.value for c in conditions if c.order == 0}
            slopes = {c.at: c.value for c in conditions if c.order == 1}
            mapped = {p: to_profile.subs({sp.Symbol("V"): at[p], x: p}) for p in at}
            inside = [p for p in at if to_profile.subs({sp.Symbol("V"): 1, x: p}).is_finite]
            values = [mapped[p] for p in inside]
            # a value and a slope at one point fix the level (E from the data); only where s is x itself
            data = [(at[p], slopes[p]) for p in inside if p in slopes] if s == x else []
            for e in profiles(ode, fs, s, data, values):
                out.append({problem.fields[0]: e if s == x else mapped_back(back, e, s, x)})
        if not out:
            raise NotImplementedError("no quadrature of the energy integral")
        return out


def _reductions(problem: Problem) -> list[tuple[sp.Expr, list[sp.Symbol], sp.Symbol, sp.Expr, sp.Expr]]:
    fs = profile("F")
    (x,) = problem.symbols
    (reduced,) = substitute(problem, {problem.fields[0]: fs[0]}, x, [fs])
    return ode_reductions(reduced, fs, x)


def _second_order(form: sp.Expr | None, fs: Sequence[sp.Symbol]) -> bool:
    """True when ``form`` is linear in ``f''`` with ``f'`` only squared: what :func:`desyr_sympy.shared.energy.squared_slope` takes."""
    if form is None:
        return False
    a = sp.diff(form, fs[2])
    rest = sp.expand(form - a * fs[2])
    return a != 0 and not a.free_symbols & set(fs[1:]) and rest.xreplace({fs[1]: -fs[1]}) == rest
