"""The leading behaviour of a majorant's exponent where it holds roots of the indices (part of
:mod:`desyr.verify.series_bounds`): a root of several indices bounded by one index per term, and a root of one
index by its leading part."""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

Lowers = Mapping[sp.Symbol, int]


def separated(term: sp.Expr, lowers: Lowers) -> sp.Expr | None:
    """An exponent's term ``-c*sqrt(q_1*k_1**2 + ... + q_d*k_d**2 + q_0)`` (``c > 0``) bounded above by
    ``-c*(sqrt(q_1)*k_1 + ... + sqrt(q_d)*k_d)/sqrt(d)`` (``sqrt(sum x_i**2) >= sum x_i/sqrt(d)``): one index
    per term (None where the term is not of that form)."""
    c, root = term.as_independent(*lowers, as_Add=False)
    if not (c.is_negative and isinstance(root, sp.Pow) and root.exp == sp.Rational(1, 2)):
        return None
    indices = [k for k in lowers if root.base.has(k)]
    poly = sp.Poly(root.base, *indices) if root.base.is_polynomial(*indices) else None
    if poly is None or any(not v.is_nonnegative for v in poly.coeffs()):
        return None
    pieces = []
    for monomial, q in poly.terms():
        if sum(monomial) == 0:
            continue
        if sorted(monomial) != [0] * (len(monomial) - 1) + [2]:
            return None
        pieces.append(sp.sqrt(q) * indices[monomial.index(2)])
    return c * sp.Add(*pieces) / sp.sqrt(len(pieces))


def leading_roots(rate: sp.Expr, lowers: Lowers) -> sp.Expr:
    """Each ``sqrt(q2*k**2 + q1*k + q0)`` of one index (``q2 > 0``: a Helmholtz mode's frequency) written
    ``sqrt(q2)*k``: the two differ by a bounded amount for large ``k``, a constant factor of the term, so the
    decay and summability read from the leading part are the root's."""
    def leading(root: sp.Expr) -> sp.Expr:
        (k,) = root.base.free_symbols
        poly = sp.Poly(root.base, k)
        return sp.sqrt(poly.LC()) * k

    def is_root(e: sp.Expr) -> bool:
        if not (isinstance(e, sp.Pow) and e.exp == sp.Rational(1, 2)):
            return False
        symbols = e.base.free_symbols
        if len(symbols) != 1 or not symbols <= set(lowers):
            return False
        (k,) = symbols
        return bool(e.base.is_polynomial(k) and sp.degree(e.base, k) == 2 and sp.Poly(e.base, k).LC().is_positive)
    return rate.replace(is_root, leading)
