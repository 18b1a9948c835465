"""Identities at the roots of a characteristic equation: the named eigenvalue functions in a proof.

An identity in ``s = robinroot(k, a, b, c)`` holds for every ``k`` when it holds at every positive root
of ``f(s) = (a - b*s**2)*sin(s) + c*s*cos(s)``.  With ``c != 0`` the root's cosine is
``cos(s) = -A(s)*sin(s)``, ``A = (a - b*s**2)/(c*s)``, and so ``sin(s)**2 = 1/(1 + A**2)``: the
identity, written in ``s`` and ``sin(s)``, is ``E0(s) + E1(s)*sin(s)`` and holds at every root when
``E0`` and ``E1`` vanish identically (with ``c = 0`` the roles of sine and cosine swap).  A
``besseljzero(nu, k)`` root ``s`` has ``J_nu(s) = 0``, which is put in directly.  Numbers: each named
function of a concrete index is its value at 80 digits.
"""
from __future__ import annotations

import sympy as sp

from desyr.symbolic.eigenvalues import EigenvalueFunction, besseljpzero, besseljzero, dinizero, robinroot, robinsinhroot

DIGITS = 80


def named(expr: sp.Expr) -> set[EigenvalueFunction]:
    return {a for a in expr.atoms(sp.Function) if isinstance(a, EigenvalueFunction)}


def numeric(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each named function of a concrete index replaced by its value (80 digits)."""
    found = {a: sp.Float(sp.N(a, DIGITS), DIGITS) for a in named(expr) if a.index.is_Integer}
    return expr.xreplace(found) if found else expr


def parts_to_vanish(expr: sp.Expr) -> list[sp.Expr] | None:
    """Expressions free of the named functions whose identical vanishing makes ``expr`` vanish at every
    root (``[expr]`` when it holds none; None where a root's equation cannot be put in)."""
    growing = [a for a in named(expr) if isinstance(a, robinsinhroot)]
    if growing:
        return _without_growing(expr, growing[0])
    calls = [a for a in named(expr) if not a.index.is_Integer]
    if not calls:
        return [expr]
    if len({type(c) for c in calls}) != 1 or len(calls) != 1:
        return None
    call = calls[0]
    s = sp.Dummy("s", positive=True)
    expr = sp.expand_trig(expr.xreplace({call: s}))
    if isinstance(call, robinroot):
        return _robin(expr, s, call)
    if isinstance(call, (besseljzero, besseljpzero, dinizero)):
        return _bessel(expr, s, call)
    return None


def _robin(expr: sp.Expr, s: sp.Symbol, call: robinroot) -> list[sp.Expr] | None:
    _, a, b, c = call.args
    sine, cosine = sp.sin(s), sp.cos(s)
    if c != 0:
        ratio = (a - b * s**2) / (c * s)
        one, other, square = sine, cosine, 1 / (1 + ratio**2)
        written = expr.xreplace({cosine: -ratio * sine})
    else:                      # (a - b*s**2)*sin(s) = 0 with a - b*s**2 != 0 at a root: sin(s) = 0, cos(s)**2 = 1
        one, other, square = cosine, sine, sp.Integer(1)
        written = expr.xreplace({sine: sp.Integer(0)})
    if written.has(other):
        return None
    # the identity's numerator (its denominator is a finite value at the root: the terms are defined there)
    return _odd_even(sp.expand(sp.numer(sp.together(written))), one, square)


def _without_growing(expr: sp.Expr, call: robinsinhroot) -> list[sp.Expr] | None:
    """``robinsinhroot(k, a, b, c)``, a root ``z`` of ``(a + b*z**2)*sinh(z) + c*z*cosh(z)`` (``c != 0``):
    ``cosh(z) = -A*sinh(z)``, ``A = (a + b*z**2)/(c*z)``, so ``sinh(z)**2 = 1/(A**2 - 1)`` (``cosh**2 - sinh**2 = 1``);
    the identity is ``E0 + E1*sinh(z)`` and holds when both vanish, in ``z`` and the rest (the other named
    functions then put in the same way)."""
    if not call.index.is_Integer or call.args[3] == 0:
        return None
    _, a, b, c = call.args
    z = sp.Dummy("z", positive=True)
    written = sp.expand(expr.xreplace({call: z}), trig=True)
    ratio = (a + b * z**2) / (c * z)
    sine = sp.sinh(z)
    written = written.replace(
        lambda e: isinstance(e, sp.exp) and e.args[0].has(z),
        lambda e: _exp_at(e, z)).xreplace({sp.cosh(z): -ratio * sine})
    if written.has(sp.cosh(z)):
        return None
    parts = _odd_even(sp.expand(sp.numer(sp.together(written))), sine, 1 / (ratio**2 - 1))
    if parts is None:
        return None
    out: list[sp.Expr] = []
    for part in parts:
        more = parts_to_vanish(part)
        if more is None:
            return None
        out += more
    return out


def _exp_at(e: sp.Expr, z: sp.Symbol) -> sp.Expr:
    """``exp(w)`` with each multiple ``m*z`` of ``z`` in ``w`` (``m`` an integer) as ``(cosh(z) + sinh(z))**m``."""
    rest, multiple = sp.Integer(0), sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(e.args[0])):
        m = term / z
        if m.is_Integer:
            multiple += m
        else:
            rest += term
    return sp.exp(rest) * (sp.cosh(z) + sp.sinh(z)) ** multiple


def _bessel(expr: sp.Expr, s: sp.Symbol, call: EigenvalueFunction) -> list[sp.Expr] | None:
    """Every ``J_nu(s)`` (integer ``nu``) written in ``J_m(s)`` and ``J_(m+1)(s)`` by the recurrence
    ``J_(nu-1) + J_(nu+1) = 2*nu*J_nu/s``, then the root's equation put in: ``J_m(s) = 0`` at
    ``besseljzero(m, k)``; ``J_(m+1)(s) = m*J_m(s)/s`` at ``besseljpzero(m, k)`` (``J_m' = m*J_m/s - J_(m+1)``), and
    ``(m + h)*J_m(s)/s`` at ``dinizero(m, h, k)`` (``s*J_m' + h*J_m = 0``)."""
    m = int(call.args[0])
    calls = [b for b in expr.atoms(sp.besselj) if b.args[1] == s]
    if any(not b.args[0].is_Integer for b in calls):
        return None
    orders = [int(b.args[0]) for b in calls] + [m, m + 1]
    known: dict[int, tuple[sp.Expr, sp.Expr]] = {m: (sp.Integer(1), sp.Integer(0)), m + 1: (sp.Integer(0), sp.Integer(1))}
    for nu in range(m + 1, max(orders)):
        (a1, b1), (a0, b0) = known[nu], known[nu - 1]
        known[nu + 1] = (2 * nu * a1 / s - a0, 2 * nu * b1 / s - b0)
    for nu in range(m, min(orders), -1):
        (a1, b1), (a2, b2) = known[nu], known[nu + 1]
        known[nu - 1] = (2 * nu * a1 / s - a2, 2 * nu * b1 / s - b2)
    jm, jm1 = sp.besselj(m, s), sp.besselj(m + 1, s)
    if isinstance(call, besseljzero):
        at_root = {nu: b * jm1 for nu, (a, b) in known.items()}
    else:           # J_(m+1)(s) = (m + h)*J_m(s)/s: h = 0 at besseljpzero
        h = call.args[1] if isinstance(call, dinizero) else sp.Integer(0)
        at_root = {nu: (a + b * (m + h) / s) * jm for nu, (a, b) in known.items()}
    written = expr.xreplace({b: at_root[int(b.args[0])] for b in calls})
    return [sp.numer(sp.together(sp.expand(written)))]


def _odd_even(expr: sp.Expr, one: sp.Expr, square: sp.Expr) -> list[sp.Expr] | None:
    """``expr = E0 + E1*one`` once ``one**2`` is ``square``: ``[E0, E1]``."""
    if not expr.is_polynomial(one):
        return None
    even, odd = sp.Integer(0), sp.Integer(0)
    for (power,), coefficient in sp.Poly(expr, one).terms():
        value = coefficient * square ** (power // 2)
        if power % 2:
            odd += value
        else:
            even += value
    return [sp.numer(sp.together(even)), sp.numer(sp.together(odd))]


def at_the_roots(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each ``cos(s)`` of a Robin root ``s = robinroot(k, a, b, c)`` (``c != 0``) written
    ``-(a - b*s**2)/(c*s)*sin(s)``, its value there: a majorant then sees the cancellation at the roots."""
    swap = {}
    for call in named(expr):
        if isinstance(call, robinroot) and call.args[3] != 0:
            _, a, b, c = call.args
            swap[sp.cos(call)] = -(a - b * call**2) / (c * call) * sp.sin(call)
    return expr.xreplace(swap) if swap else expr


def never_zero_at_roots(factor: sp.Expr, index: sp.Symbol) -> bool:
    """Whether ``factor``, a polynomial in one named function of ``index``, is nonzero at every root: its
    own roots are not zeros of the function's defining equation."""
    calls = [a for a in named(factor) if a.index.has(index)]
    if len(calls) != 1:
        return False
    s = sp.Dummy("s", positive=True)
    poly_in = factor.xreplace({calls[0]: s})
    if not poly_in.is_polynomial(s) or poly_in.free_symbols - {s}:
        return False
    for root in sp.Poly(poly_in, s).real_roots():
        if not root.is_positive:
            continue
        value = sp.N(calls[0].defining_equation(root), 50)
        if not abs(value) > sp.Float("1e-40"):
            return False
    return True


def bessel_at_a_zero(expr: sp.Expr) -> bool:
    """Whether ``expr`` is ``J_nu(s)`` at a zero ``s`` of ``J_m`` (``nu = m +- 1``) or of ``J_m'`` (``nu = m``), which
    is never 0: ``J_m`` and ``J_(m+1)`` have no common positive zero (Watson 15.22; ``J_(m-1)`` by the recurrence
    ``J_(m-1) + J_(m+1) = 2*m*J_m/z``), and a common positive zero of ``J_m`` and ``J_m'`` would make ``J_m``
    vanish identically (Bessel's equation is regular there).  Its size is about ``sqrt(2/(pi*s))``
    (the Hankel asymptotics at McMahon's zeros, Watson 7.21 and 15.53)."""
    if not isinstance(expr, sp.besselj) or not isinstance(expr.args[1], (besseljzero, besseljpzero, dinizero)):
        return False
    nu, zero = expr.args[0], expr.args[1]
    m = zero.args[0]
    if isinstance(zero, besseljzero):
        return bool(nu == m + 1 or (nu == m - 1 and m >= 1))
    return bool(nu == m)        # at a root of s*J_m' + h*J_m, J_m = 0 would make J_m' = 0 too
