"""Fourier-Bessel integrals on a disk, done exactly: ``integral(r**p * J_m(a*r), r, 0, R)``.

SymPy's ``integrate`` gives hypergeometric functions or gives up (or takes half a minute) on
``r**3*J_2(a*r)``; the reduction ``integral(r**mu*J_nu(a*r)) = r**mu*J_{nu+1}(a*r)/a
- (mu - nu - 1)/a*integral(r**(mu - 1)*J_{nu+1}(a*r))`` ends after ``(mu - nu - 1)/2`` steps where
``mu - nu`` is odd, which holds for every angular mode ``m`` of data polynomial in ``x, y``: the mode's
radial part is ``r**m`` times a polynomial in ``r**2``, times the weight ``r``.  At the eigenvalue's
root the Bessel functions of other orders are then written through ``J_{m+1}`` (``J_m(j_{m,k}) = 0``)
or ``J_m`` (``J_m'(j'_{m,k}) = 0``, so ``J_{m+1} = m*J_m/j'``) by the three-term recurrence.
"""
from __future__ import annotations

import sympy as sp

from desyr_sympy.series.layout import Declined


def integral(g: sp.Expr, r: sp.Symbol, order: int, a: sp.Expr, radius: sp.Expr) -> sp.Expr:
    """``integral(g(r) * J_order(a*r), r, 0, radius)`` for ``g`` a polynomial in ``r`` (coefficients may
    hold other symbols)."""
    g = sp.expand(g)
    if g == 0:
        return sp.Integer(0)
    try:
        poly = sp.Poly(g, r)
    except sp.PolynomialError:
        raise Declined("a Fourier-Bessel integral of data that are not polynomial in the radius (the "
                       "coefficient-law path does not take named eigenvalues yet)") from None
    total = sp.Integer(0)
    for (power,), coefficient in poly.terms():
        if (power - order) % 2 == 0:
            raise Declined("a Fourier-Bessel integral with no closed form (the power's parity)")
        total += coefficient * _power(power, order, a, radius)
    return total


def _power(mu: int, nu: int, a: sp.Expr, radius: sp.Expr) -> sp.Expr:
    """``integral(r**mu * J_nu(a*r), r, 0, radius)``, ``mu - nu`` odd and at least 1."""
    if mu - nu < 1:
        raise Declined("a Fourier-Bessel integral that diverges at the centre")
    value = radius**mu * sp.besselj(nu + 1, a * radius) / a
    if mu - nu - 1 == 0:
        return value
    return value - sp.Integer(mu - nu - 1) / a * _power(mu - 1, nu + 1, a, radius)


def at_root(expr: sp.Expr, root: sp.Expr, order: int, h: sp.Expr | None) -> sp.Expr:
    """``expr`` with every ``J_nu(root)`` (integer ``nu``) written through the one function left at the
    root: ``J_{m+1}`` where ``J_m(root) = 0`` (``h`` None), ``J_m`` where ``root*J_m'(root) + h*J_m(root) = 0``
    (so ``J_{m+1} = (m + h)*J_m/root``; ``h = 0``: ``J_m'(root) = 0``)."""
    calls = [c for c in expr.atoms(sp.besselj) if c.args[1] == root and c.args[0].is_Integer]
    if not calls:
        return expr
    low, high = sp.besselj(order, root), sp.besselj(order + 1, root)
    if h is None:
        low = sp.Integer(0)
    else:
        high = (order + h) * low / root
    table = {order: low, order + 1: high}
    wanted = {int(c.args[0]) for c in calls}
    for nu in range(order + 1, max(wanted) + 1):         # J_{nu+1} = 2*nu/z*J_nu - J_{nu-1}
        table[nu + 1] = sp.expand(2 * nu / root * table[nu] - table[nu - 1])
    for nu in range(order, min(wanted) - 1, -1):          # J_{nu-1} = 2*nu/z*J_nu - J_{nu+1}
        table[nu - 1] = sp.expand(2 * nu / root * table[nu] - table[nu + 1])
    return expr.xreplace({c: table[int(c.args[0])] for c in calls})
