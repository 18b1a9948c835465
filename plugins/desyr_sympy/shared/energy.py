"""The energy integral ``f'^2 = q(f)`` of an autonomous ODE, and the dilations that make an ODE autonomous
(the ``energy`` method, :mod:`desyr_sympy.methods.energy`, and the reductions that end in one ODE).

``dsolve`` stops at ``u'' = sin(u)`` (an implicit answer with an unevaluated integral) and at
most nonlinear autonomous equations.  For ``f'' = F(f)``, multiplying by ``f'`` and integrating
once gives ``q = 2*G(f) + E`` with ``G' = F``; an equation linear in ``f''`` whose ``f'`` comes only
squared gives a linear first-order ODE for ``q(f)`` (``f'' = q'/2``).  The level ``E`` comes from a
value and a slope at one point, else from a saddle equilibrium (a double root of ``q``: the orbit a
kink or a soliton follows), else 0, else it stays free for Stage B.  The quadrature of
``1/sqrt(q)`` (:mod:`desyr_sympy.shared.quadrature`) is inverted for ``f`` on the branch the data pick
(``4*atan(exp(x + C1))`` for ``u'' = sin(u)``, ``tanh(x + C1)`` for ``u'' = 2*u**3 - 2*u``); a
trigonometric ``q`` through the half angle and the Weierstrass substitution.  An ODE that keeps its
form under a dilation ``x -> l*x, u -> l**k*u`` (Emden-Fowler, Lane-Emden) is made autonomous by
``u = x**k*w(log(x))`` first; one with ``u`` only in exponentials that keeps its form under
``x -> l*x, u -> u + k*log(l)`` (Liouville's radial ``u'' + u'/x + exp(u)``) by ``u = w(log(x)) + k*log(x)``.

Higher-order equations that are a total derivative (KdV's ``-c f' + 6 f f' + f'''``) are
integrated once first, with the constant 0 (a profile that decays with its derivatives).
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.shared import quadrature
from desyr_sympy.shared.ansatz import order, profile, term_weights, total

if TYPE_CHECKING:  # pragma: no cover
    pass

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


def autonomous_form(expr: sp.Expr, fs: Sequence[sp.Symbol]) -> sp.Expr | None:
    """``expr`` as a second-order equation in ``F0, F1, F2`` alone (total derivatives integrated
    first), or None (``xi`` in it, not of second order)."""
    expr = sp.expand(expr)
    while order(expr, fs) > 2:
        once = integrate_once(expr, fs)
        if once is None:
            return None
        expr = sp.expand(once)
    return expr if order(expr, fs) == 2 else None


def autonomous_force(expr: sp.Expr, fs: Sequence[sp.Symbol]) -> sp.Expr | None:
    """``F`` with ``expr = 0`` equivalent to ``f'' = F(f)``, or None (``f'`` or ``xi`` in it, not second order)."""
    form = autonomous_form(expr, fs)
    if form is None:
        return None
    a = sp.diff(form, fs[2])
    if a.free_symbols & set(fs) or a == 0:
        return None
    force = sp.expand(-(form - a * fs[2]) / a)
    return force if force.free_symbols & set(fs) <= {fs[0]} and fs[0] in force.free_symbols else None


def squared_slope(expr: sp.Expr, fs: Sequence[sp.Symbol], u: sp.Symbol, level: sp.Symbol) -> sp.Expr | None:
    """``q(u)`` with ``f'^2 = q(f)`` along every solution of ``expr = 0``, ``level`` its constant.

    ``f'' = F(f)`` gives ``q = 2*integral(F) + level``.  An equation linear in ``f''`` whose ``f'``
    comes only squared (``f f'' + f'^2 + f = 0``, the porous medium's separated profile) is a
    first-order ODE for ``q``, with ``f'' = q'(f)/2``, which ``dsolve`` solves."""
    form = autonomous_form(expr, fs)
    if form is None:
        return None
    force = autonomous_force(form, fs)
    if force is not None:
        return sp.expand(2 * sp.integrate(force.xreplace({fs[0]: u}), u) + level)
    a = sp.diff(form, fs[2])
    rest = sp.expand(form - a * fs[2])
    if a.free_symbols & set(fs[1:]) or a == 0 or rest.xreplace({fs[1]: -fs[1]}) != rest:
        return None
    q = sp.Function("q")
    square = sp.Dummy("square")
    ode = (a * q(u).diff(u) / 2 + rest.subs(fs[1] ** 2, square).xreplace({square: q(u)})).xreplace({fs[0]: u})
    if ode.has(fs[1]):
        return None
    try:
        general = sp.dsolve(ode, q(u))
    except (NotImplementedError, ValueError):
        return None
    if isinstance(general, list) or not isinstance(general.rhs, sp.Expr) or general.rhs.has(q):
        return None
    return general.rhs.subs(sp.Symbol("C1"), level)


def quadratures(force: sp.Expr, f: sp.Symbol, xi: sp.Symbol) -> list[sp.Expr]:
    """Profiles ``f(xi)`` with ``f'' = force(f)`` along the saddle orbits, each with a free shift ``C1``."""
    fs = [f, sp.Dummy("f1"), sp.Dummy("f2")]
    return profiles(fs[2] - force, fs, xi)


def _levels(q: sp.Expr, u: sp.Symbol, level: sp.Symbol, data: Sequence[tuple[sp.Expr, sp.Expr]]) -> list[sp.Expr]:
    """Values of the constant: from the data (a value and a slope at one point), at the saddle
    equilibria (a double root of ``q``: the orbit a kink or a soliton follows, tending to the
    equilibrium at infinity, the natural choice for data on a wide interval), and 0."""
    out: list[sp.Expr] = []
    for value, slope in data:
        out += sp.solve(q.subs(u, value) - slope**2, level)
    try:
        equilibria = sp.solve([q, sp.diff(q, u)], [u, level], dict=True)
    except NotImplementedError:
        equilibria = []
    for e in equilibria:
        if u in e and level in e and not e[u].has(sp.I) and sp.diff(q, u, 2).subs(e).is_negative is not True:
            out.append(e[level])
    out.append(sp.Integer(0))
    return list(dict.fromkeys(sp.simplify(v) for v in out if not v.has(sp.I)))[:MAX_EQUILIBRIA + len(data)]


def _asymptotic_levels(q: sp.Expr, u: sp.Symbol, level: sp.Symbol,
                       slopes: Sequence[tuple[sp.Expr, sp.Expr]]) -> list[sp.Expr]:
    """Levels with ``q -> slope**2`` as ``u`` tends to each given infinity."""
    out: list[sp.Expr] = []
    for end, slope in slopes:
        try:
            limit = sp.limit(q, u, end)
        except (NotImplementedError, ValueError):
            continue
        if limit.has(level) and not limit.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            out += [v for v in sp.solve(limit - slope**2, level) if not v.has(sp.I)]
    return out


def _generic(expr: sp.Expr, keep: set[sp.Symbol]) -> dict[sp.Symbol, sp.Expr]:
    """Positive stand-ins for the ansatz's constants (a speed, a frequency), to pick branches by sign."""
    return {s: sp.Integer(1) for s in expr.free_symbols - keep}


def profiles(expr: sp.Expr, fs: Sequence[sp.Symbol], xi: sp.Symbol,
             data: Sequence[tuple[sp.Expr, sp.Expr]] = (), values: Sequence[sp.Expr] = (),
             slopes_at_infinity: Sequence[tuple[sp.Expr, sp.Expr]] = ()) -> list[sp.Expr]:
    """Every profile the energy integral gives for the reduced equation ``expr = 0`` (none when it
    is not autonomous of second order, after integrating total derivatives).  ``data``: (value,
    slope) pairs at one point, which fix the constant; ``values``: values the profile takes, which
    pick its branch; ``slopes_at_infinity``: (``oo`` or ``-oo``, slope) pairs, the slope the profile
    tends to as it tends to that infinity (a regular centre of a shifted dilation), which fix the
    level first.  A constant that none of the fixed levels makes work stays free (Stage B fits it)."""
    u, level = sp.Dummy("u", real=True), sp.Dummy("E")
    q = squared_slope(expr, fs, u, level)
    if q is None:
        return []
    values = [*values, *(v for v, _ in data)]
    out: list[sp.Expr] = []
    # the first level that gives a profile is the one: the others cost seconds each (elliptic integrals)
    asymptotic = _asymptotic_levels(q, u, level, slopes_at_infinity)
    # lazily: the saddles cost a solve, spent only where the levels before gave no profile
    later = (v for found in (lambda: _levels(q, u, level, data), lambda: [None]) for v in found())
    for chosen in itertools.chain(asymptotic, later):
        if out:
            break
        at = q if chosen is None else sp.expand(q.subs(level, chosen))
        free = sp.Symbol("C2") if chosen is None else None
        for solution in _quadrature(at.subs(level, free) if free is not None else at, u, xi, values, free):
            if solution not in out:
                out.append(solution)
    return out


def _quadrature(q: sp.Expr, u: sp.Symbol, xi: sp.Symbol, values: Sequence[sp.Expr],
                free: sp.Symbol | None) -> list[sp.Expr]:
    if q.has(sp.sin, sp.cos):
        return _trigonometric(q, u, xi)
    generic = _generic(q, {u})
    if free is not None:         # a free level: a stand-in that makes q positive at the sample
        generic[free] = 1 - min((q.subs(free, 0).xreplace(generic).subs(u, v) for v in values or [1]), key=float)
    out: list[sp.Expr] = []
    points = quadrature.samples(q, u, values, generic)
    even = sp.expand(q.xreplace({u: -u}) - q) == 0
    if even and any((p > 0) is sp.true for p in points):
        points = [p for p in points if (p > 0) is sp.true]    # the negative profiles are the mirror images
    for u0 in points:
        found = quadrature.invert(q, u, xi, u0, generic)
        out += [e for e in [*found, *(-e for e in found if even)] if e not in out]
    return out


def _trigonometric(q: sp.Expr, u: sp.Symbol, xi: sp.Symbol) -> list[sp.Expr]:
    """A trigonometric ``q`` through the half angle and the Weierstrass substitution, which turn
    ``1/sqrt(q)`` into a rational integrand (``4*atan(exp(x + C1))`` for ``u'' = sin(u)``)."""
    v, w = sp.Dummy("v", real=True), sp.Dummy("w", positive=True)
    half = sp.factor(sp.trigsimp(sp.expand_trig(q.xreplace({u: 2 * v}))))
    root = sp.powdenest(sp.sqrt(sp.factor(half)), force=True)
    integrand = sp.factor(sp.expand_trig((2 / root).xreplace({v: 2 * sp.atan(w)})) * 2 / (1 + w**2))
    if integrand.has(sp.I, sp.Abs):
        return []
    primitive = quadrature.primitive(integrand, w)
    if primitive is None:
        primitive = quadrature.primitive(integrand, w, manual=False)
    if primitive is None:
        return []
    if isinstance(primitive, sp.Piecewise):
        primitive = primitive.args[0][0]
    return quadrature.solve(primitive, w, 4 * sp.atan(w), xi)


# ------------------------------------------------------------------ the solver on an ODE problem
def dilation(expr: sp.Expr, fs: Sequence[sp.Symbol], x: sp.Symbol) -> sp.Expr | None:
    """``k`` such that ``expr`` is homogeneous under ``x -> l*x, f -> l**k*f`` (Emden-Fowler,
    Lane-Emden, Euler's equidimensional equations), or None."""
    k = sp.Symbol("k")
    weight = {x: sp.Integer(1)} | {f: k - j for j, f in enumerate(fs)}
    weights = term_weights(expr, weight)
    if weights is None:
        return None
    solved = sp.solve([w - weights[0] for w in weights[1:]], k, dict=True)
    return solved[0][k] if len(solved) == 1 and k in solved[0] else None


def shift_dilation(expr: sp.Expr, fs: Sequence[sp.Symbol], x: sp.Symbol) -> sp.Expr | None:
    """``k`` such that ``expr`` keeps its form under ``x -> l*x, f -> f + k*log(l)`` (``f`` only in
    exponentials ``exp(a*f)``: Liouville's and Bratu's ``u'' + u'/x + exp(u)``), or None."""
    k = sp.Symbol("k")
    weights = []
    for term in sp.Add.make_args(sp.expand(expr, power_exp=True)):
        weight = sp.Integer(0)
        for factor in sp.Mul.make_args(term):
            base, power = factor.as_base_exp()
            if isinstance(factor, sp.exp) and factor.args[0].free_symbols & ({x} | set(fs)) == {fs[0]}:
                slope = sp.diff(factor.args[0], fs[0])
                if not slope.is_number or slope.free_symbols:
                    return None
                weight += slope * k
            elif (base == x or base in fs[1:]) and power.is_number:
                weight += (1 if base == x else -fs.index(base)) * power
            elif factor.free_symbols & ({x} | set(fs)):
                return None
        weights.append(weight)
    if not any(w.has(k) for w in weights):
        return None
    solved = sp.solve([w - weights[0] for w in weights[1:]], k, dict=True)
    return solved[0][k] if len(solved) == 1 and k in solved[0] else None


def change(expr: sp.Expr, fs: Sequence[sp.Symbol], x: sp.Symbol, form: sp.Expr, xi: sp.Expr,
           ws: Sequence[sp.Symbol]) -> sp.Expr:
    """``expr`` over ``F0, F1...`` of ``x`` with ``f = form``, ``form`` over the profile ``ws`` of ``xi``."""
    values, d = {}, form
    for f in fs[:order(expr, fs) + 1]:
        values[f] = d
        d = total(d, x, xi, [ws])
    return expr.xreplace(values)


def ode_reductions(reduced: sp.Expr, fs: Sequence[sp.Symbol], x: sp.Symbol
                   ) -> list[tuple[sp.Expr, list[sp.Symbol], sp.Symbol, sp.Expr, sp.Expr]]:
    """The ODE ``reduced`` as autonomous ones: (ode, profile symbols, its variable, the map back
    ``u = back(profile)`` with ``profile`` the Symbol ``P``, the profile's value for a value ``V`` at ``x``)."""
    value = sp.Symbol("V")
    if x not in reduced.free_symbols:
        return [(reduced, list(fs), x, sp.Symbol("P"), value)]
    ws, s = profile("W"), sp.Symbol("s", real=True)
    # u = x**k w(s) or u = w(s) + k*s, s = log(x): the dilation becomes a translation in s
    k = dilation(reduced, fs, x)
    if k is not None and k != 0:
        form, back, to_profile = x**k * ws[0], x**k * sp.Symbol("P"), value * x**-k
    else:
        k = shift_dilation(reduced, fs, x)
        if k is None:
            return []
        form, back, to_profile = ws[0] + k * sp.log(x), sp.Symbol("P") + k * sp.log(x), value - k * sp.log(x)
    ode = similarity_ode(change(reduced, fs, x, form, sp.log(x), ws), x)
    return [] if ode is None else [(ode, ws, s, back, to_profile)]


def similarity_ode(expr: sp.Expr, s: sp.Symbol) -> sp.Expr | None:
    """``expr = s**p * ode``: the ODE, or None when the powers of ``s`` differ."""
    powers, parts = set(), []
    for term in sp.Add.make_args(sp.expand(sp.powsimp(sp.expand(expr), force=True))):
        coefficient, power = term.as_coeff_exponent(s)
        if coefficient.has(s):
            return None
        powers.add(power)
        parts.append(coefficient)
    return sp.Add(*parts) if len(powers) == 1 else None


def mapped_back(back: sp.Expr, profile: sp.Expr, s: sp.Symbol, x: sp.Symbol) -> sp.Expr:
    """``u = x**k w(log x)``, simplified for ``x > 0`` (where the dilation holds; the powers
    combine into one that is finite at ``x = 0``, as Lane-Emden's ``1/sqrt(1 + x**2/3)``)."""
    p = sp.Dummy("x", positive=True)
    expr = back.xreplace({sp.Symbol("P"): profile.xreplace({s: sp.log(p)})}).xreplace({x: p})
    if expr.has(sp.log):     # u = w(log x) + k*log(x): one logarithm, finite where the profile is regular
        expr = sp.logcombine(sp.expand_log(expr.rewrite(sp.exp), force=True), force=True)
        return expr.replace(lambda e: isinstance(e, sp.log), lambda e: sp.log(sp.factor(sp.powsimp(
            sp.together(e.args[0]), force=True)))).xreplace({p: x})
    expr = sp.powsimp(sp.powdenest(sp.factor(sp.powdenest(expr, force=True)), force=True), force=True)
    return expr.xreplace({p: x})
