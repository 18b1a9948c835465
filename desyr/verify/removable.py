"""Fields written with a root that is analytic all the same: their values and derivatives where the root's
argument is 0.

``cos(sqrt(x))`` is the series ``1 - x/2 + x**2/24 - ...``, analytic at x = 0, but its derivative as
SymPy writes it, ``-sin(sqrt(x))/(2*sqrt(x))``, is 0/0 there; ``besselj(0, sqrt(x**2 + y**2))`` is
smooth at the origin, and its ``u_x``, ``-x*besselj(1, r)/r``, is 0/0 there too.  A derivative
constraint at such a point was refused ("not finite"), and the true solution with it.  The
regularity rule already allows a root only as ``F(c*sqrt(q))`` with ``F`` even and analytic
(:func:`desyr.verify.regularity`): then ``F(c*sqrt(q))`` is a power series in ``c**2*q``, written here
as the hypergeometric function it is (``cos(z) = 0F1(; 1/2; -z**2/4)``, ``J_2m(z) = (z**2/4)**m/(2m)! *
0F1(; 2m + 1; -z**2/4)``), exactly, with no root left.  Its derivatives are again ``0F1`` (SymPy
differentiates them), finite where ``q`` is 0: the value of a derivative there is its limit, taken
exactly, and a ``0F1`` at 0 is 1.  The proof of a constraint uses this form where the field as written
does not reduce, and the numbers use it wherever the root's argument reaches 0 on the domain.  A
root that is not inside such an ``F`` (``sqrt(x)`` itself, ``sin(sqrt(x))``) is never rewritten: its
derivative at 0 is infinite, and the regularity rule refuses it as before.  An odd ``G`` over the root,
``G(c*sqrt(q))/sqrt(q)`` (``sin(sqrt(x))/sqrt(x)``), is ``c*G(w)/w``, even and analytic, and is written as
its series the same way (``sin(z)/z = 0F1(; 3/2; -z**2/4)``).
"""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from desyr.verify.intervals import Bounds, sign_on
from desyr.verify.regions import Region

HALF = sp.Rational(1, 2)


def even_analytic(call: sp.Basic) -> bool:
    """Whether ``call`` is an even function analytic on the real line: cos, cosh, sech, and the Bessel J
    and I of an even integer order."""
    if isinstance(call, (sp.cos, sp.cosh, sp.sech)):
        return True
    return isinstance(call, (sp.besselj, sp.besseli)) and call.args[0].is_integer and call.args[0].is_even


def rooted(call: sp.Basic) -> bool:
    """Whether ``call`` is ``F(c*sqrt(q))`` with ``F`` even and analytic (``c`` free of that root)."""
    return even_analytic(call) and root_of(call) is not None


def root_of(call: sp.Basic) -> sp.Pow | None:
    """The one ``sqrt(q)`` of a call's argument ``c*sqrt(q)`` (``c`` free of it), or None."""
    argument = call.args[-1]
    roots = [f for f in sp.Mul.make_args(argument) if isinstance(f, sp.Pow) and f.exp == HALF]
    return roots[0] if len(roots) == 1 and not (argument / roots[0]).has(roots[0]) else None


def odd_analytic(call: sp.Basic) -> bool:
    """Whether ``call`` is an odd function analytic on the real line with a 0F1 series: sin, sinh, and the
    Bessel J and I of an odd integer order."""
    if isinstance(call, (sp.sin, sp.sinh)):
        return True
    return isinstance(call, (sp.besselj, sp.besseli)) and call.args[0].is_integer and call.args[0].is_odd


def odd_quotient(term: sp.Basic) -> tuple[sp.Function, sp.Expr] | None:
    """``(call, p)`` where ``term`` is a product holding ``F(c*p)`` (``F`` odd and analytic, ``c`` free of
    ``p``) and ``1/p``: ``F(w)/w`` is even and analytic, so ``sin(sqrt(x))/sqrt(x)`` is a series in ``x``
    and ``sin(k*x)/k`` one in ``k**2``."""
    if not isinstance(term, sp.Mul):
        return None
    factors = sp.Mul.make_args(term)
    for call in factors:
        if isinstance(call, sp.Function) and odd_analytic(call):
            argument = call.args[-1]
            for p in sp.Mul.make_args(argument):
                if not p.is_number and sp.Pow(p, -1) in factors and not (argument / p).has(p):
                    return call, p
    return None


def quotients_hidden(expr: sp.Expr, p: sp.Expr) -> sp.Expr | None:
    """``expr`` with each ``F(c*p)/p`` (``F`` odd and analytic) replaced by a fresh symbol and every other
    factor of its product kept, or None where there is none: what is left must not hold ``1/p`` (or
    ``p``) to be finite where ``p`` is 0.  Hiding the whole product had hidden its other factors too, so
    ``exp(1/x)*sin(x)/x`` and ``atan(1/x)*sin(x)/x`` passed as removable (red team 44c)."""
    hidden = {}
    for term in sp.preorder_traversal(expr):
        found = odd_quotient(term)
        if found is not None and found[1] == p:
            hidden[term] = sp.Dummy() * (term / (found[0] * sp.Pow(p, -1)))
    return expr.xreplace(hidden) if hidden else None


def analytic(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each ``F(c*sqrt(q))`` (F even and analytic), and each ``F(c*sqrt(q))/sqrt(q)`` (F odd
    and analytic), written as its series in ``c**2*q``."""
    return expr.replace(lambda e: odd_quotient(e) is not None, _quotient).replace(rooted, _series)


def _quotient(term: sp.Mul) -> sp.Expr:
    found = odd_quotient(term)
    assert found is not None
    call, p = found
    rest = term / (call * sp.Pow(p, -1))
    c = call.args[-1] / p                         # F(c*p)/p = c * F(w)/w, w = c*p
    z2 = sp.expand(call.args[-1] ** 2)
    if isinstance(call, sp.sin):
        even = sp.hyper([], [3 * HALF], -z2 / 4)
    elif isinstance(call, sp.sinh):
        even = sp.hyper([], [3 * HALF], z2 / 4)
    else:                                         # J_n(w)/w = (w**2/4)**m/(2*n!) * 0F1(; n + 1; -w**2/4), n = 2m + 1
        order = int(call.args[0])
        n = abs(order)
        sign = -1 if isinstance(call, sp.besselj) else 1
        flip = -1 if isinstance(call, sp.besselj) and order < 0 else 1     # J_(-n) = -J_n for an odd n
        even = flip * (z2 / 4) ** ((n - 1) // 2) / (2 * sp.factorial(n)) * sp.hyper([], [n + 1], sign * z2 / 4)
    return rest * c * even


def _has_removable(e: sp.Expr) -> bool:
    return any(rooted(c) for c in e.atoms(sp.Function)) or any(
        odd_quotient(t) is not None for t in sp.preorder_traversal(e) if isinstance(t, sp.Mul))


def at_zero(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every ``0F1(; b; 0)`` read as 1 (SymPy leaves it unevaluated)."""
    return expr.replace(lambda e: isinstance(e, sp.hyper) and e.argument == 0,
                        lambda e: sp.Integer(1))


def analytic_fields(exprs: Mapping[str, sp.Expr]) -> dict[str, sp.Expr] | None:
    """Every field in that form, or None when no field has such a root (nothing to rewrite)."""
    if not any(e.atoms(sp.Function) and _has_removable(e) for e in exprs.values()):
        return None
    return {name: analytic(e) for name, e in exprs.items()}


def _series(call: sp.Function) -> sp.Expr:
    z2 = sp.expand(call.args[-1] ** 2)             # (c*sqrt(q))**2 = c**2*q: no root left
    if isinstance(call, sp.cos):
        return sp.hyper([], [HALF], -z2 / 4)
    if isinstance(call, sp.cosh):
        return sp.hyper([], [HALF], z2 / 4)
    if isinstance(call, sp.sech):
        return 1 / sp.hyper([], [HALF], z2 / 4)
    m = abs(int(call.args[0])) // 2                 # J_(-n) = J_n and I_(-n) = I_n for an integer n
    sign = -1 if isinstance(call, sp.besselj) else 1
    return (z2 / 4) ** m / sp.factorial(2 * m) * sp.hyper([], [2 * m + 1], sign * z2 / 4)


def where_needed(exprs: Mapping[str, sp.Expr], bounds: Bounds, region: Region | None) -> dict[str, sp.Expr]:
    """The fields to evaluate: in the series form where some ``F(c*sqrt(q))`` has ``q`` reaching 0 on the
    closed domain (not proved positive there), as written elsewhere (the numbers stay as they were)."""
    out = dict(exprs)
    for name, e in exprs.items():
        roots = [c.args[-1] ** 2 for c in e.atoms(sp.Function) if rooted(c)]
        roots += [found[0].args[-1] ** 2 for t in sp.preorder_traversal(e) if isinstance(t, sp.Mul)
                  for found in [odd_quotient(t)] if found is not None]
        if any(sign_on(sp.expand(q), bounds, strict=True, region=region) != "positive" for q in roots):
            out[name] = analytic(e)
    return out
