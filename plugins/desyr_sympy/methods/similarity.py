"""The exact method ``similarity``: similarity variables: ``u = s**a * f(x / s**b)`` with ``s = t`` or ``s = t + t0``.

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

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared import energy
from desyr_sympy.shared.ansatz import loosen, profile, substitute, term_weights
from desyr_sympy.shared.forms import initial_data, jet_symbols, residuals
from desyr_sympy.shared.odes import dsolve_profiles

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Similarity(ExactMethod):
    name = "similarity"
    summary = "one field in `x` and `t` whose equation scales: similarity variables, possibly in a moving frame"
    problems = ("one field in `x` and `t` whose equation scales (`x -> l*x`, `t -> l**beta*t`, `u -> l**alpha*u`; "
                "linear or not), possibly only in a frame moving at constant speed, or without scaling `x`")
    proposes = ("`s**a*f(x/s**b)` with `s = t` and `s = t + t0`, exponents from the terms' weights (a free `alpha`: "
                "the conserved mass, then 0; a free `beta`: 2, then mass-conserving); terms `k*u_x` of constant `k` "
                "left out of the weights give the moving frame `(x - x0 - c*s)/s**b`, `c` the speed that makes the "
                "reduced equation an ODE (`exp(-5*(x - t)**2/(2*(t + 1)))/sqrt(t + 1)` for `u_t + u_x = u_xx/10`); a "
                "scaling of `t` and `u` alone gives the separated `s**a*X(x)`, whose autonomous ODE goes to `energy` "
                "(the porous medium's `x**2/(6*(2 - t))`); a candidate with at most two constants gets them solved "
                "from the data at a fixed time as well (a shift past a blow-up); a conservation law lowers the ODE's "
                "order before `dsolve`: the heat source `exp(-x**2/(4*(t + t0)))/sqrt(t + t0)`; the constant level "
                "(`a = 0`, `u = f(x/sqrt(t))`) gives the step's `C1 + C2*erf(x/(2*sqrt(D*t)))` (SymPy's integral of "
                "`exp(-s**2)`), which also answers Stokes' first problem (`erfc` data: `erfc = 1 - erf` in the "
                "proof)")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if problem.dim != 2 or problem.time is None or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field in one space variable and time"
        return "" if exponents(problem) else "no scaling symmetry"

    def solve(self, problem: Problem) -> Solutions:
        assert problem.time is not None        # applies() said so
        t = problem.vocabulary.var_symbols[problem.time]
        (x,) = [v for v in problem.symbols if v != t]
        field = problem.fields[0]
        s, xi = sp.Symbol("s", positive=True), sp.Symbol("xi", real=True)
        shift, origin, speed = sp.Symbol("t0"), sp.Symbol("x0"), sp.Symbol("c")
        fs = profile("F")
        out: list[dict[str, sp.Expr]] = []
        for a, b, moving in exponents(problem):
            c = speed if moving else sp.Integer(0)
            (reduced,) = substitute(problem, {field: t**a * fs[0]}, (x - c * t) / t**b, [fs])
            framed = _frame(reduced.xreplace({t: s}).xreplace({x: xi * s**b + c * s}), s, fs, c)
            if framed is None:
                continue
            ode, c = framed
            for shape in _shapes(ode, fs, xi, field, b == 0):
                for start in (t, t + shift):
                    place = (x - origin - c * start) if moving else x
                    mapped = start**a * shape.xreplace({xi: place / start**b})
                    candidate = loosen({field: mapped}, [shift, origin] if moving else [shift])
                    fitted = _from_data(problem, candidate[field], x, t)
                    out += [{field: fitted}, candidate] if fitted is not None else [candidate]
        if not out:
            raise NotImplementedError("no similarity profile")
        return out


    #: points of the initial slice at which a candidate's constants are solved for, and how many constants at most


def _weights(problem: Problem, expr: sp.Expr, alpha: sp.Expr, beta: sp.Expr,
             space: sp.Expr = sp.Integer(1)) -> list[sp.Expr] | None:
    """The scaling weight of each term of ``expr`` under ``x -> l**space x, t -> l**beta t,
    u -> l**alpha u``, or None when a term does not scale."""
    assert problem.time is not None        # applies() said so
    t = problem.vocabulary.var_symbols[problem.time]
    weight = {s: alpha - sum(space if v != problem.time else beta for v in jet.wrt)
              for s, jet in jet_symbols(problem).items()}
    weight |= {v: beta if v == t else space for v in problem.symbols}
    return term_weights(expr, weight)


def _advection(problem: Problem) -> tuple[sp.Expr, bool]:
    """The equation without its terms ``k*u_x`` of constant ``k``, which the frame ``x - k*t``
    removes, and whether it had any."""
    every = set(jet_symbols(problem))
    slopes = {s for s, jet in jet_symbols(problem).items() if len(jet.wrt) == 1 and jet.wrt[0] != problem.time}
    expr = sp.expand(residuals(problem)[0])
    drop = [term for term in sp.Add.make_args(expr)
            if len(term.free_symbols & every) == 1 and term.free_symbols & slopes
            and sp.diff(term, *(term.free_symbols & slopes)).is_number]
    return expr - sp.Add(*drop), bool(drop)


def exponents(problem: Problem) -> list[tuple[sp.Expr, sp.Expr, bool]]:
    """(a, b, moving) of ``t**a f((x - c*t) / t**b)`` for the scalings of the equation (at most
    four): ``moving`` when the scaling holds only in a frame moving at a constant speed ``c``,
    ``b = 0`` for a separated solution ``t**a f(x)`` (a scaling of time and the field alone)."""
    alpha, beta = sp.symbols("alpha beta")
    expr, moving = _advection(problem)
    weights = _weights(problem, expr, alpha, beta)
    pairs: list[tuple[sp.Expr, sp.Expr]] = []
    if weights is not None and len(weights) >= 2:
        pairs = _pairs(sp.solve([w - weights[0] for w in weights[1:]], [alpha, beta], dict=True), alpha, beta)
    out = [(a / b, 1 / b, moving) for a, b in dict.fromkeys(pairs) if b.is_positive]
    still = _weights(problem, residuals(problem)[0], alpha, sp.Integer(1), sp.Integer(0))
    if still is not None and len(still) >= 2:          # t -> l t, u -> l**alpha u with x fixed
        law = sp.solve([w - still[0] for w in still[1:]], alpha, dict=True)
        if len(law) == 1 and alpha in law[0] and law[0][alpha] != 0:
            out.append((law[0][alpha], sp.Integer(0), False))
    return out


def _pairs(solved: list[dict[sp.Symbol, sp.Expr]], alpha: sp.Symbol, beta: sp.Symbol) -> list[tuple[sp.Expr, sp.Expr]]:
    if not solved:
        return []
    law = solved[0]
    if beta in law and alpha not in law:               # alpha free: the mass and a constant level
        return [(sp.Integer(-1), law[beta]), (sp.Integer(0), law[beta])]
    if alpha in law and beta not in law:               # beta free: diffusive, then mass-conserving
        mass = sp.solve(law[alpha] + 1, beta)
        return [(law[alpha].subs(beta, b), b) for b in [sp.Integer(2), *mass]]
    if alpha in law and beta in law:
        return [(law[alpha], law[beta])]
    return []


_POINTS, _MAX_CONSTANTS = (sp.Integer(0), sp.Rational(1, 2), sp.Integer(1), sp.Rational(-1, 3)), 2


def _from_data(problem: Problem, expr: sp.Expr, x: sp.Symbol, t: sp.Symbol) -> sp.Expr | None:
    """``expr`` with its constants solved from the field's data at a fixed time, or None.  A shift
    ``t0`` past a singularity (a blow-up at ``t = -t0``, the porous medium's ``1/(2 - t)``) is out
    of a local refit's reach from any start on the other side; the data put it there at once."""
    constants = sorted((c for c in expr.free_symbols if c.name.startswith("C")), key=lambda c: c.name)
    if not constants or len(constants) > _MAX_CONSTANTS:
        return None
    for data in initial_data(problem)[:1]:
        at = expr.subs(t, data.at)
        equations = [at.subs(x, p) - data.value.subs(x, p) for p in _POINTS[:len(constants) + 1]]
        if any(e.has(sp.zoo, sp.nan) for e in equations):
            return None
        try:
            found = sp.solve(equations, constants, dict=True)
        except NotImplementedError:
            return None
        real = [f for f in found if len(f) == len(constants) and all(v.is_real for v in f.values())]
        if real:
            return expr.subs(real[0])
    return None


def _shapes(ode: sp.Expr, fs: list[sp.Symbol], xi: sp.Symbol, field: str, separated: bool) -> list[sp.Expr]:
    """Profiles of the reduced ODE: the energy integral for a separated (autonomous) one, then dsolve."""
    if separated and not ode.has(xi):
        found = energy.profiles(ode, fs, xi)
        if found:
            return found
    return dsolve_profiles(ode, fs, xi, field)


def _frame(expr: sp.Expr, s: sp.Symbol, fs: list[sp.Symbol], c: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """``expr = s**p * ode(xi)`` for one speed ``c`` (when ``c`` is a symbol, the speed that
    cancels the other powers of ``s``): (the ODE, the speed), or None."""
    groups: dict[sp.Expr, sp.Expr] = {}
    for term in sp.Add.make_args(sp.expand(sp.powsimp(sp.expand(expr), force=True))):
        coefficient, power = term.as_coeff_exponent(s)
        if coefficient.has(s):
            return None
        groups[power] = groups.get(power, sp.Integer(0)) + coefficient
    groups = {p: g for p, g in groups.items() if sp.expand(g) != 0}
    if len(groups) == 1:
        return next(iter(groups.values())), c
    if not isinstance(c, sp.Symbol):
        return None
    for main, ode in groups.items():
        others = [sp.expand(g) for p, g in groups.items() if p != main]
        equations = [k for g in others for k in sp.Poly(g, *fs).coeffs()]
        found = sp.solve(equations, c, dict=True)
        if len(found) == 1 and c in found[0]:
            return sp.expand(ode.subs(found[0])), found[0][c]
    return None
