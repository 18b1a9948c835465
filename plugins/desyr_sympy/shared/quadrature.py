"""The quadrature of ``f'^2 = q(f)``: integrate ``1/sqrt(q)`` and invert for ``f``, on a chosen branch.

A real profile lives on an interval of values where ``q > 0``; which one (and so the branch of
the square root and the real form of the logarithms in the primitive: ``tanh`` between two
equilibria, ``coth`` outside them) is read off a *sample value* ``u0`` of the profile: the
problem's data where it has some, else the midpoints of the intervals between the real roots of
``q`` (bounded ones first).  The profile's sign is that of ``u0`` (``f = -w``, ``w > 0``, for a
negative profile); each logarithm ``log(a)`` of the primitive is ``log(-a)`` where ``a(u0) < 0``
(both are primitives on that interval); a ``Piecewise`` takes the piece whose condition holds.
An integrand that is ``w**-1`` times a function of ``w**2`` is integrated in ``z = w**2`` first
(repeatedly), which turns ``1/(w*sqrt(a - b*w**4))`` into ``1/(z*sqrt(a - b*z))``.
"""
from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

#: sample values (intervals of the profile) tried, at most
MAX_SAMPLES = 2
#: halvings ``w -> sqrt(z)`` of the variable, at most
MAX_HALVINGS = 3


def samples(q: sp.Expr, u: sp.Symbol, data: Sequence[sp.Expr], generic: dict[sp.Symbol, sp.Expr]) -> list[sp.Expr]:
    """Values the profile takes: the data's where ``q >= 0`` there, else midpoints of intervals of ``q > 0``."""
    def positive(at: sp.Expr) -> bool:
        value = q.xreplace(generic).subs(u, at)
        return bool(value.is_number and value.is_real and (value >= 0) is sp.true and at != 0)

    found = [d for d in data if d.is_number and positive(d)]
    if found:
        return list(dict.fromkeys(found))[:MAX_SAMPLES]
    try:
        roots = sorted({r for r in sp.Poly(sp.numer(sp.together(q.xreplace(generic))), u).real_roots()})
    except (sp.PolynomialError, sp.polys.polyerrors.PolificationFailed, NotImplementedError):
        return [sp.Integer(1)]           # not polynomial in f: the positive profile, as before
    inner = [(a + b) / 2 for a, b in zip(roots, roots[1:])]
    outer = [roots[0] - 1, roots[-1] + 1] if roots else [sp.Integer(1), sp.Integer(-1)]
    return [p for p in inner + outer if positive(p)][:MAX_SAMPLES]


def invert(q: sp.Expr, u: sp.Symbol, xi: sp.Symbol, u0: sp.Expr, generic: dict[sp.Symbol, sp.Expr]) -> list[sp.Expr]:
    """Solutions of ``f'^2 = q(f)`` through the value ``u0``, each with a free shift ``C1``."""
    sign = -1 if (u0 < 0) is sp.true else 1
    w = sp.Dummy("w", positive=True)
    at = {w: abs(u0)}
    integrand = 1 / _signed(_root(q.xreplace({u: sign * w})), at | generic)
    if integrand.has(sp.I, sp.Abs):
        return []
    forms = [(integrand, w, sign * w, at)]
    for _ in range(MAX_HALVINGS):
        integrand, variable, back, at = forms[-1]
        halved = _halve(integrand, variable)
        if halved is None:
            break
        z = sp.Dummy("z", positive=True)
        forms.append((halved.xreplace({variable: z}), z, back.xreplace({variable: sp.sqrt(z)}), {z: at[variable] ** 2}))
    # the most halved first (the simplest integrand: manual integration's failures can cost seconds);
    # the full integrator, which can too, last and once
    for manual, (integrand, variable, back, at) in [*((True, f) for f in reversed(forms)), (False, forms[-1])]:
        found = primitive(integrand, variable, manual=manual)
        if found is not None:
            return solve(_real_branch(found, at | generic), variable, back, xi)
    return []


def _root(expr: sp.Expr) -> sp.Expr:
    """sqrt(expr) with its square factors taken out (the direction of the profile is the sign of ``xi``)."""
    return sp.powdenest(sp.sqrt(sp.factor(expr)), force=True)


def _signed(expr: sp.Expr, at: dict[sp.Symbol, sp.Expr]) -> sp.Expr:
    """``expr`` with each ``Abs(a)`` written as ``a`` or ``-a``, its sign at the sample."""
    flips = {}
    for a in expr.atoms(sp.Abs):
        v = sp.N(a.args[0].xreplace(at), 15)
        if v.is_number and v.is_real:
            flips[a] = a.args[0] if v >= 0 else -a.args[0]
    return expr.xreplace(flips)


def _halve(integrand: sp.Expr, w: sp.Symbol) -> sp.Expr | None:
    """The integrand in ``z = w**2`` when ``w*integrand`` is a function of ``w**2``, else None."""
    z = sp.Dummy("z", positive=True)
    inner = sp.powdenest((w * integrand).xreplace({w: sp.sqrt(z)}), force=True)
    if any(p.base == z and not p.exp.is_integer for p in inner.atoms(sp.Pow)) or inner.has(sp.sqrt(z)):
        return None
    return (inner / (2 * z)).xreplace({z: w})


def primitive(integrand: sp.Expr, variable: sp.Symbol, manual: bool = True) -> sp.Expr | None:
    """The integral by manual integration (fast where it applies) or by the full integrator, or None."""
    try:
        found = sp.integrate(integrand, variable, manual=manual)
    except (NotImplementedError, ValueError):   # manualintegrate's "no rule"
        return None
    return None if found.has(sp.Integral) else found


def _real_branch(primitive: sp.Expr, at: dict[sp.Symbol, sp.Expr]) -> sp.Expr:
    """The primitive that is real near the sample: the right piece, each log of a positive argument."""
    def value(e: sp.Expr) -> sp.Expr:
        return sp.N(e.xreplace(at).subs(at), 15)

    for piecewise in primitive.atoms(sp.Piecewise):
        pieces = [e for e, cond in piecewise.args if bool(cond.xreplace(at).subs(at) if cond is not sp.true else True)]
        primitive = primitive.xreplace({piecewise: pieces[0] if pieces else piecewise.args[0][0]})
    flips = {}
    for log in primitive.atoms(sp.log):
        v = value(log.args[0])
        if v.is_number and v.is_real and v < 0:
            flips[log] = sp.log(sp.expand(-log.args[0]))
    return primitive.xreplace(flips)


def solve(primitive: sp.Expr, variable: sp.Symbol, back: sp.Expr, xi: sp.Symbol) -> list[sp.Expr]:
    primitive = sp.logcombine(primitive, force=True)
    shift, level = sp.Symbol("C1"), sp.Dummy("level")
    out: list[sp.Expr] = []
    # solved once for a plain right-hand side, then both directions: cheaper than two solves
    for found in sp.solve(sp.Eq(primitive, level), variable, simplify=False, check=False):
        if isinstance(found, sp.Piecewise):
            found = found.args[0][0]
        for sign in (1, -1):
            # one fraction before the back substitution: sqrt(2*w*(1 - tanh**2)) reads as a sech
            expr = back.xreplace({variable: sp.factor(sp.together(found.xreplace({level: sign * (xi + shift)})))})
            expr = sp.powdenest(sp.expand_power_base(sp.powdenest(expr, force=True), force=True), force=True)
            if not expr.has(sp.I, sp.nan, sp.Piecewise) and expr not in out:
                out.append(expr)
    return out
