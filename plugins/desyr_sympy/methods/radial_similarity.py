"""The exact method ``radial_similarity``: a field in two space variables and time whose data are radially
symmetric about a point (:mod:`desyr_sympy.shared.centre`, on any domain) and whose equation keeps that
symmetry and scales: ``u = (t + t0)**a * F(r/(t + t0)**b)`` (issue 47: the heat kernel spreading in the
plane, ``exp(-(x**2 + y**2)/(4*(t + 1)))/(t + 1)``).

The one-dimensional :mod:`desyr_sympy.methods.similarity` in the radius: substituted, the equation holds
the angle only where it is not rotation-invariant (then nothing is proposed) and is otherwise
``t**p * ode(xi)`` in ``xi = r/t**b``.  The exponents come from the equation's terms as there
(``x, y -> l x, l y, t -> l**beta t, u -> l**alpha u``); where the scaling leaves ``alpha`` free, the
mass in the plane (``alpha = -2``: ``integral u dx dy`` stays fixed) and ``alpha = 0`` are tried.  The
ODE goes to ``dsolve`` after one integration where a total derivative allows it, and the terms of its
answer in the config's functions are kept; the shift ``t0`` and the integration constants stay free for
Stage B.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.ansatz import loosen, profile, substitute, term_weights
from desyr_sympy.shared.centre import RadialFrame, radial_frame
from desyr_sympy.shared.forms import jet_symbols, residuals
from desyr_sympy.shared.odes import dsolve_profiles

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: the mass in the plane, then a constant level
FREE_ALPHAS = (sp.Integer(-2), sp.Integer(0))


class RadialSimilarity(ExactMethod):
    name = "radial_similarity"
    summary = "one field in two space variables and time, its data radially symmetric about a point: similarity variables in the radius"
    problems = ("one field in two space variables and time, its data (of the field itself, in formulas) radially "
                "symmetric about a point on any domain (`desyr_sympy.shared.centre`), its equation scaling as "
                "`similarity`'s and keeping the symmetry")
    proposes = ("`u = s**a*F(r/s**b)`, `r` the distance from the data's centre, `s = t` and `s = t + t0`; the "
                "exponents from the terms' weights (a free `alpha`: the mass in the plane, `alpha = -2`, then 0); "
                "substituted, a rotation-invariant equation leaves no angle (`y - y0 = sqrt(r**2 - X**2)`) and is "
                "`s**p*ode(xi)`, `xi = r/s**b`; one integration where a total derivative allows, `dsolve`, the "
                "answer's terms in the config's functions: the planar heat kernel `C1*exp(-(x**2 + y**2)/(4*(t + "
                "t0)))/(t + t0)` (issue 47, stage 0 in 9 s)")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field and one equation"
        if problem.time is None or problem.dim != 3:
            return "not two space variables and time"
        if not exponents(problem):
            return "no scaling symmetry"
        return "" if radial_frame(problem) is not None else "the data are not radially symmetric about a point"

    def solve(self, problem: Problem) -> Solutions:
        frame = radial_frame(problem)
        assert frame is not None and problem.time is not None     # applies() said so
        t = problem.vocabulary.var_symbols[problem.time]
        out: list[dict[str, sp.Expr]] = []
        for a, b in exponents(problem):
            ode = _reduced(problem, frame, t, a, b)
            if ode is None:
                continue
            xi = sp.Symbol("xi", positive=True)
            for shape in dsolve_profiles(ode, profile("F"), xi, problem.fields[0]):
                shift = sp.Symbol("t0")
                rho2 = (frame.x - frame.x0) ** 2 + (frame.y - frame.y0) ** 2
                for start in (t, t + shift):
                    mapped = start ** a * shape.xreplace({xi: sp.sqrt(rho2) / start ** b})
                    out.append(loosen({problem.fields[0]: sp.powsimp(mapped)}, [shift] if start != t else []))
        if not out:
            raise NotImplementedError("no radial similarity profile")
        return out


def exponents(problem: Problem) -> list[tuple[sp.Expr, sp.Expr]]:
    """(a, b) of ``t**a * F(r/t**b)`` for the scalings of the equation (see the module doc)."""
    assert problem.time is not None
    alpha, beta = sp.symbols("alpha beta")
    t = problem.vocabulary.var_symbols[problem.time]
    weight = {s: alpha - sum(beta if v == problem.time else 1 for v in jet.wrt)
              for s, jet in jet_symbols(problem).items()}
    weight |= {v: beta if v == t else sp.Integer(1) for v in problem.symbols}
    weights = term_weights(residuals(problem)[0], weight)
    if weights is None or len(weights) < 2:
        return []
    solved = sp.solve([w - weights[0] for w in weights[1:]], [alpha, beta], dict=True)
    if not solved:
        return []
    law = solved[0]
    if beta in law and alpha not in law:
        pairs = [(al, law[beta]) for al in FREE_ALPHAS]
    elif alpha in law and beta in law:
        pairs = [(law[alpha], law[beta])]
    elif alpha in law:
        pairs = [(law[alpha].subs(beta, 2), sp.Integer(2))]
    else:
        return []
    return [(al / be, 1 / be) for al, be in dict.fromkeys(pairs) if be.is_positive]


def _reduced(problem: Problem, frame: RadialFrame, t: sp.Symbol, a: sp.Expr, b: sp.Expr) -> sp.Expr | None:
    """The ODE in ``xi = r/t**b`` for ``u = t**a * F(xi)``, or None where an angle is left or the powers
    of ``t`` do not factor out."""
    x, y, x0, y0 = frame.x, frame.y, frame.x0, frame.y0
    r, X = sp.Symbol("r", positive=True), sp.Symbol("X", real=True)
    s, xi = sp.Symbol("s", positive=True), sp.Symbol("xi", positive=True)
    fs = profile("F")
    rho = sp.sqrt((x - x0) ** 2 + (y - y0) ** 2)
    (reduced,) = substitute(problem, {problem.fields[0]: t ** a * fs[0]}, rho / t ** b, [fs])
    # y - y0 = sqrt(r**2 - X**2) turns rho into r; a rotation-invariant operator leaves no X
    polar = sp.cancel(sp.expand(reduced.xreplace({x: x0 + X, y: y0 + sp.sqrt(r ** 2 - X ** 2)})))
    if polar.free_symbols & {X, x, y}:
        return None
    scaled = sp.expand(sp.powsimp(sp.expand(polar.xreplace({t: s}).xreplace({r: xi * s ** b})), force=True))
    groups: dict[sp.Expr, sp.Expr] = {}
    for term in sp.Add.make_args(scaled):
        coefficient, power = term.as_coeff_exponent(s)
        if coefficient.has(s):
            return None
        groups[power] = groups.get(power, sp.Integer(0)) + coefficient
    nonzero = [g for g in groups.values() if sp.expand(g) != 0]
    return sp.numer(sp.together(nonzero[0])) if len(nonzero) == 1 else None
