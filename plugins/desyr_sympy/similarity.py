"""Similarity variables: ``u = s**a * f(x / s**b)`` with ``s = t`` or ``s = t + t0``.

An evolution equation that keeps its form under ``x -> l x, t -> l**beta t, u -> l**alpha u``
(the heat equation for beta = 2 and any alpha; the porous-medium equation ``u_t = (u u_x)_x``
for alpha = 2 - beta) has solutions ``t**(alpha/beta) f(x / t**(1/beta))``; substituted, the
equation becomes an ODE in ``xi = x / t**b``, which ``dsolve`` solves.  The exponents come from
the equation's terms: each term's weight is linear in (alpha, beta) and all must be equal.  Where
the scaling leaves alpha free, the conserved mass (alpha = -1: ``integral u dx`` stays fixed) and
alpha = 0 are tried; where it leaves beta free, beta = 2 and the mass-conserving beta.  A time
shift ``t0`` (a free constant) gives the source solution started before the domain's first time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.ansatz import as_ode, loosen, profile, substitute
from desyr_sympy.energy import integrate_once
from desyr_sympy.forms import ALLOWED_FUNCTIONS, jet_symbols, residuals
from desyr_sympy.odes import explicit

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


def applies(problem: Problem) -> str:
    if problem.dim != 2 or problem.time is None or len(problem.fields) != 1 or len(problem.equations) != 1:
        return "not one field in one space variable and time"
    return "" if exponents(problem) else "no scaling symmetry"


def _weights(problem: Problem, alpha: sp.Symbol, beta: sp.Symbol) -> list[sp.Expr] | None:
    """The scaling weight of each term of the equation, or None when a term does not scale."""
    assert problem.time is not None        # applies() said so
    t = problem.vocabulary.var_symbols[problem.time]
    weight = {s: alpha - sum(1 if v != problem.time else beta for v in jet.wrt)
              for s, jet in jet_symbols(problem).items()}
    weight |= {v: beta if v == t else sp.Integer(1) for v in problem.symbols}
    out = []
    for term in sp.Add.make_args(sp.expand(residuals(problem)[0])):
        total = sp.Integer(0)
        for factor in sp.Mul.make_args(term):
            base, power = factor.as_base_exp()
            if base in weight and power.is_number:
                total += weight[base] * power
            elif factor.free_symbols & set(weight):
                return None                 # sin(u), exp(x): no power law
        out.append(total)
    return out


def exponents(problem: Problem) -> list[tuple[sp.Expr, sp.Expr]]:
    """(a, b) of ``t**a f(x / t**b)`` for the scalings of the equation (at most three)."""
    alpha, beta = sp.symbols("alpha beta")
    weights = _weights(problem, alpha, beta)
    if weights is None or len(weights) < 2:
        return []
    solved = sp.solve([w - weights[0] for w in weights[1:]], [alpha, beta], dict=True)
    if not solved:
        return []
    law = solved[0]
    pairs = []
    if beta in law and alpha not in law:               # alpha free: the mass and a constant level
        pairs = [(sp.Integer(-1), law[beta]), (sp.Integer(0), law[beta])]
    elif alpha in law and beta not in law:             # beta free: diffusive, then mass-conserving
        mass = sp.solve(law[alpha] + 1, beta)
        pairs = [(law[alpha].subs(beta, b), b) for b in [sp.Integer(2), *mass]]
    elif alpha in law and beta in law:
        pairs = [(law[alpha], law[beta])]
    return [(a / b, 1 / b) for a, b in dict.fromkeys(pairs) if b.is_positive]


def similarity(problem: Problem) -> list[dict[str, sp.Expr]]:
    assert problem.time is not None        # applies() said so
    t = problem.vocabulary.var_symbols[problem.time]
    (x,) = [v for v in problem.symbols if v != t]
    field = problem.fields[0]
    s, xi, shift = sp.Symbol("s", positive=True), sp.Symbol("xi", real=True), sp.Symbol("t0")
    fs = profile("F")
    f = sp.Function("profile")(xi)
    out: list[dict[str, sp.Expr]] = []
    for a, b in exponents(problem):
        (reduced,) = substitute(problem, {field: t**a * fs[0]}, x / t**b, [fs])
        ode = _ode(reduced.xreplace({t: s}).xreplace({x: xi * s**b}), s)
        if ode is None:
            continue
        # a conservation law (the flux vanishes with the profile at infinity) lowers the order first:
        # dsolve answers the heat equation's f'' + xi*f'/2 + f/2 with a power series, its integral at once
        once = integrate_once(ode, fs, xi)
        try:
            general = explicit(sp.dsolve(as_ode(once if once is not None else ode, fs, f, xi), f), {field: f})
        except (NotImplementedError, ValueError):
            continue
        for solution in general:
            shape = _allowed_part(solution[field])
            if shape is None:
                continue
            for start in (t, t + shift):
                out.append(loosen({field: start**a * shape.xreplace({xi: x / start**b})}, [shift]))
    if not out:
        raise NotImplementedError("no similarity profile")
    return out


def _ode(expr: sp.Expr, s: sp.Symbol) -> sp.Expr | None:
    """``expr = s**p * ode(xi)``: the ODE, or None when the powers of ``s`` differ."""
    powers, parts = set(), []
    for term in sp.Add.make_args(sp.expand(sp.powsimp(sp.expand(expr), force=True))):
        coefficient, power = term.as_coeff_exponent(s)
        if coefficient.has(s):
            return None
        powers.add(power)
        parts.append(coefficient)
    return sp.Add(*parts) if len(powers) == 1 else None


def _allowed_part(expr: sp.Expr) -> sp.Expr | None:
    """The terms of a (linear ODE's) general solution that use only the config's functions
    (``C1*exp(-xi**2/4) + C2*exp(-xi**2/4)*erfi(xi/2)`` -> its first term)."""
    kept = [term for term in sp.Add.make_args(sp.expand(expr))
            if all(isinstance(g, ALLOWED_FUNCTIONS) for g in term.atoms(sp.Function)) and not term.has(sp.Integral, sp.Order)]
    shape = sp.Add(*kept)
    return shape if shape.has(sp.Symbol("xi", real=True)) else None
