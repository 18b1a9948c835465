"""Order reduction of autonomous ODEs ``f'' = F(f)`` through the energy integral.

``dsolve`` stops at ``u'' = sin(u)`` (an implicit answer with an unevaluated integral) and at
most nonlinear autonomous equations.  Multiplying by ``f'`` and integrating once gives
``f'^2/2 = G(f) + E`` with ``G' = F``; the choice ``E = -G(f*)`` at an equilibrium ``f*``
(``F(f*) = 0``) that is a saddle (``F'(f*) > 0``) is the orbit a kink or a soliton follows,
which tends to ``f*`` at infinity: the natural choice for data on a wide interval.  The
first-order equation ``f' = sqrt(2 (G - G(f*)))`` is separable; its quadrature is inverted for
``f`` (``4*atan(exp(x + C1))`` for ``u'' = sin(u)``, ``c/(cosh(sqrt(c)*(x + C1)) + 1)`` for
KdV's travelling profile).  The square root is taken as a product (``sqrt(f**2*(c - 2*f))`` ->
``f*sqrt(c - 2*f)``); a trigonometric one through the half angle and the Weierstrass
substitution, which turn it into a rational integrand.

Higher-order equations that are a total derivative (KdV's ``-c f' + 6 f f' + f'''``) are
integrated once first, with the constant 0 (a profile that decays with its derivatives).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.ansatz import nonlinear, order, profile, substitute

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: equilibria tried, at most (a polynomial of high degree has many; the first few are the simple ones)
MAX_EQUILIBRIA = 3


def integrate_once(expr: sp.Expr, fs: Sequence[sp.Symbol], xi: sp.Symbol | None = None) -> sp.Expr | None:
    """``H`` over ``F0, F1...`` with ``dH/dxi = expr`` (``dF_k/dxi = F_{k+1}``), or None when
    ``expr`` is not a total derivative.  The top derivative of a total derivative appears
    linearly; its coefficient, integrated in the one below, is the top part of ``H``."""
    rest, found = sp.expand(expr), sp.Integer(0)
    while rest != 0:
        n = order(rest, fs)
        if n < 1:
            return None
        top = sp.diff(rest, fs[n])
        if fs[n] in top.free_symbols or order(top, fs) >= n:
            return None
        part = sp.integrate(top, fs[n - 1])
        found += part
        rest = sp.expand(rest - _d(part, fs) - (sp.diff(part, xi) if xi is not None else 0))
        if order(rest, fs) >= n and fs[n] in rest.free_symbols:
            return None
    return found


def _d(expr: sp.Expr, fs: Sequence[sp.Symbol]) -> sp.Expr:
    return sp.Add(*[sp.diff(expr, fs[k]) * fs[k + 1] for k in range(len(fs) - 1)])


def autonomous_force(expr: sp.Expr, fs: Sequence[sp.Symbol]) -> sp.Expr | None:
    """``F`` with ``expr = 0`` equivalent to ``f'' = F(f)``, or None (``f'`` or ``xi`` in it, not second order)."""
    expr = sp.expand(expr)
    while order(expr, fs) > 2:
        once = integrate_once(expr, fs)
        if once is None:
            return None
        expr = sp.expand(once)
    if order(expr, fs) != 2:
        return None
    a = sp.diff(expr, fs[2])
    if a.free_symbols & set(fs) or a == 0:
        return None
    force = sp.expand(-(expr - a * fs[2]) / a)
    return force if force.free_symbols & set(fs) <= {fs[0]} and fs[0] in force.free_symbols else None


def quadratures(force: sp.Expr, f: sp.Symbol, xi: sp.Symbol) -> list[sp.Expr]:
    """Profiles ``f(xi)`` with ``f'' = force(f)`` along the saddle orbits, each with a free shift ``C1``."""
    u = sp.Dummy("u", real=True)
    force = force.xreplace({f: u})
    potential = sp.integrate(force, u)
    out: list[sp.Expr] = []
    for level in _levels(force, potential, u):
        twice = sp.expand(2 * (potential - level))
        for solution in _invert(twice, u, xi):
            if solution not in out:
                out.append(solution)
    return out


def _levels(force: sp.Expr, potential: sp.Expr, u: sp.Symbol) -> list[sp.Expr]:
    """``G(f*)`` at the saddle equilibria; E = 0 (level 0) when there is none."""
    try:
        roots = [r for r in sp.solve(force, u) if not r.has(sp.I)]
    except NotImplementedError:
        roots = []
    saddles = [r for r in roots if sp.diff(force, u).subs(u, r).is_negative is not True][:MAX_EQUILIBRIA]
    levels = list(dict.fromkeys(sp.simplify(potential.subs(u, r)) for r in saddles))
    return levels or [sp.Integer(0)]


def _root(expr: sp.Expr) -> sp.Expr:
    """sqrt(expr) with its square factors taken out (the branch of positive factors: the other
    branch is the mirrored profile, which the sign of ``xi`` gives)."""
    return sp.powdenest(sp.sqrt(sp.factor(expr)), force=True)


def _invert(twice: sp.Expr, u: sp.Symbol, xi: sp.Symbol) -> list[sp.Expr]:
    """Solutions of ``f'^2 = twice(f)``: integrate ``1/sqrt(twice)`` and solve for ``f``."""
    if twice.has(sp.sin, sp.cos):
        v, w = sp.Dummy("v", real=True), sp.Dummy("w", positive=True)
        half = sp.factor(sp.trigsimp(sp.expand_trig(twice.xreplace({u: 2 * v}))))
        integrand = sp.factor(sp.expand_trig((2 / _root(half)).xreplace({v: 2 * sp.atan(w)})) * 2 / (1 + w**2))
        variable, back = w, 4 * sp.atan(w)
    else:
        w = sp.Dummy("w", positive=True)
        integrand, variable, back = (1 / _root(twice)).xreplace({u: w}), w, w
    if integrand.has(sp.I, sp.Abs):
        return []
    primitive = sp.integrate(integrand, variable)
    if isinstance(primitive, sp.Piecewise):
        primitive = primitive.args[0][0]
    if primitive.has(sp.Integral):
        return []
    primitive = sp.logcombine(primitive, force=True)
    shift, level = sp.Symbol("C1"), sp.Dummy("level")
    out = []
    # solved once for a plain right-hand side, then both directions: cheaper than two solves
    for found in sp.solve(sp.Eq(primitive, level), variable, simplify=False, check=False):
        if isinstance(found, sp.Piecewise):
            found = found.args[0][0]
        for sign in (1, -1):
            expr = back.xreplace({variable: found.xreplace({level: sign * (xi + shift)})})
            if not expr.has(sp.I, sp.nan, sp.Piecewise) and expr not in out:
                out.append(expr)
    return out


def profiles(expr: sp.Expr, fs: Sequence[sp.Symbol], xi: sp.Symbol) -> list[sp.Expr]:
    """Every profile the energy integral gives for the reduced equation ``expr = 0`` (none when it
    is not autonomous of the form ``f'' = F(f)``, after integrating total derivatives)."""
    force = autonomous_force(expr, fs)
    return [] if force is None else quadratures(force, fs[0], xi)


# ------------------------------------------------------------------ the solver on an ODE problem
def applies(problem: Problem) -> str:
    if problem.dim != 1 or len(problem.fields) != 1 or len(problem.equations) != 1:
        return "not a single equation in one variable"
    if not nonlinear(problem):
        return "linear: dsolve's"
    fs = profile("F")
    (x,) = problem.symbols
    (reduced,) = substitute(problem, {problem.fields[0]: fs[0]}, x, [fs])
    if x in reduced.free_symbols or autonomous_force(reduced, fs) is None:
        return "not autonomous of the form u'' = F(u)"
    return ""


def solve(problem: Problem) -> list[dict[str, sp.Expr]]:
    fs = profile("F")
    (x,) = problem.symbols
    (reduced,) = substitute(problem, {problem.fields[0]: fs[0]}, x, [fs])
    found = profiles(reduced, fs, x)
    if not found:
        raise NotImplementedError("no quadrature of the energy integral")
    return [{problem.fields[0]: e} for e in found]
