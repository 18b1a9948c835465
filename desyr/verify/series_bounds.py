"""Majorants of a series' terms over a region, as sums of monomials in the indices, and their summability.

A monomial ``C * prod k**p_k * prod Q_j**c_j * exp(R)`` stands for a bound that holds, with some constant
``C > 0``, for every index from its lower limit and every point of the region: ``p_k`` a rational power
of index ``k``, ``R`` the supremum of an exponent (a polynomial in the indices, holding ``delta``, the
margin of a compact part), ``Q_j`` a polynomial in several indices with positive coefficients (from a
denominator such as ``m**2 + n**2``).  :func:`upper` bounds ``|expr|`` from above and :func:`lower`
from below (for denominators); both return None where no rule applies, and then nothing is proved.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp

from desyr.symbolic.eigenvalues import EigenvalueFunction
from desyr.verify.series_rates import leading_roots, separated
from desyr.verify.series_roots import bessel_at_a_zero

#: the margin of a compact part of the open domain (any positive number)
DELTA = sp.Symbol("delta", positive=True)
Region = Mapping[sp.Symbol, tuple[sp.Expr, sp.Expr]]
Lowers = Mapping[sp.Symbol, int]
#: the largest integer power multiplied out
MAX_POWER = 8


@dataclass(frozen=True)
class Mono:
    rate: sp.Expr = sp.Integer(0)
    powers: Mapping[sp.Symbol, sp.Expr] = field(default_factory=dict)
    mixed: tuple[tuple[sp.Expr, sp.Expr], ...] = ()

    def times(self, other: Mono) -> Mono:
        powers = dict(self.powers)
        for k, p in other.powers.items():
            powers[k] = powers.get(k, sp.Integer(0)) + p
        return Mono(self.rate + other.rate, powers, self.mixed + other.mixed)

    def scaled(self, e: sp.Expr) -> Mono:
        return Mono(self.rate * e, {k: p * e for k, p in self.powers.items()}, tuple((q, c * e) for q, c in self.mixed))


def _product(a: list[Mono], b: list[Mono]) -> list[Mono]:
    return [x.times(y) for x in a for y in b]


def upper(expr: sp.Expr, region: Region, lowers: Lowers) -> list[Mono] | None:
    """Monomials whose sum bounds ``|expr|`` on ``region`` for every index from its lower limit."""
    if expr.is_number:
        return [] if expr == 0 else [Mono()]
    if isinstance(expr, sp.Symbol):
        if expr in lowers:
            return [Mono(powers={expr: sp.Integer(1)})]
        return [Mono()] if expr in region or expr == DELTA else None
    if isinstance(expr, sp.Add):
        out: list[Mono] = []
        for a in expr.args:
            part = upper(a, region, lowers)
            if part is None:
                return None
            out += part
        return out
    if isinstance(expr, sp.Mul):
        result: list[Mono] | None = [Mono()]
        for a in expr.args:
            part = upper(a, region, lowers)
            if part is None or result is None:
                return None
            result = _product(result, part)
        return result
    if isinstance(expr, sp.Pow):
        return _upper_power(expr, region, lowers)
    if isinstance(expr, sp.exp):
        rate = extreme(expr.args[0], region, lowers, top=True)
        return None if rate is None else [Mono(rate=rate)]
    if isinstance(expr, (sp.sinh, sp.cosh)):
        top = extreme(expr.args[0], region, lowers, top=True)
        bottom = extreme(expr.args[0], region, lowers, top=False)
        return None if top is None or bottom is None else [Mono(rate=top), Mono(rate=-bottom)]
    if isinstance(expr, (sp.sin, sp.cos, sp.tanh, sp.sech)):
        return [Mono()]
    if isinstance(expr, sp.besselj) and expr.args[0].is_integer and expr.args[0].is_nonnegative:
        return [Mono()]
    if isinstance(expr, sp.Abs):
        return upper(expr.args[0], region, lowers)
    if isinstance(expr, EigenvalueFunction):
        return _linear_in_index(expr, lowers)
    return None


def _linear_in_index(call: EigenvalueFunction, lowers: Lowers) -> list[Mono] | None:
    """A named eigenvalue ``s_k`` with ``c1*k <= s_k <= c2*k`` for every k >= 1: the k-th positive zero of
    ``J_nu`` or ``J_nu'`` (McMahon's expansion, ``(k + nu/2 - 1/4)*pi + O(1/k)``, Watson 15.53, with the
    zeros positive and increasing) and the k-th Robin root (in ``((k - 1)*pi, (k + 1/2)*pi)`` for large k,
    :mod:`desyr.symbolic.robin`), all of them positive."""
    k = call.index
    if k in lowers and lowers[k] >= 1:
        return [Mono(powers={k: sp.Integer(1)})]
    return None


def _upper_power(expr: sp.Pow, region: Region, lowers: Lowers) -> list[Mono] | None:
    base, e = expr.args
    if base == -1 and e.free_symbols <= set(lowers):
        return [Mono()]
    if base.is_number and base.is_positive and e.free_symbols:
        return upper(sp.exp(e * sp.log(base)), region, lowers)
    if base.is_number and base.is_negative and e.is_integer and e.free_symbols <= set(lowers):
        return upper(sp.exp(e * sp.log(-base)), region, lowers)     # |b**e| = |b|**e for an integer e
    if e.free_symbols:
        return None
    if e.is_Integer and 0 < e <= MAX_POWER:
        part = upper(base, region, lowers)
        if part is None:
            return None
        out = [Mono()]
        for _ in range(int(e)):
            out = _product(out, part)
        return out
    if e.is_negative:
        found = lower(base, region, lowers)
        return None if found is None else [found.scaled(e)]
    if e.is_Rational and e.is_positive:
        # (a_1 + ... + a_N)**e <= N**max(e - 1, 0) * (a_1**e + ... + a_N**e) for a_i >= 0
        part = upper(base, region, lowers)
        return None if part is None else [m.scaled(e) for m in part]
    return None


def lower(expr: sp.Expr, region: Region, lowers: Lowers) -> Mono | None:
    """One monomial that ``|expr|`` stays above (times a positive constant) on the whole range."""
    if expr.is_number:
        return Mono() if expr != 0 and expr.is_real else None
    if isinstance(expr, sp.Symbol):
        return Mono(powers={expr: sp.Integer(1)}) if lowers.get(expr, 0) >= 1 else None
    if isinstance(expr, sp.Mul):
        out = Mono()
        for a in expr.args:
            part = lower(a, region, lowers)
            if part is None:
                return None
            out = out.times(part)
        return out
    if isinstance(expr, sp.Pow):
        base, e = expr.args
        if base == -1 and e.free_symbols <= set(lowers):
            return Mono()
        if e.free_symbols:
            return None
        if e.is_positive and e.is_Rational:
            part = lower(base, region, lowers)
            return None if part is None else part.scaled(e)
        found = upper(base, region, lowers)
        return found[0].scaled(e) if found is not None and len(found) == 1 else None
    if isinstance(expr, sp.exp):
        rate = extreme(expr.args[0], region, lowers, top=False)
        return None if rate is None else Mono(rate=rate)
    if isinstance(expr, (sp.sinh, sp.cosh)) and not (expr.args[0].free_symbols & set(region)):
        w = expr.args[0]
        sign = sign_for_all(w, lowers) if w.is_polynomial(*lowers) else _root_sign(w, lowers)
        if sign == 0 or sign is None:
            return Mono() if isinstance(expr, sp.cosh) else None
        return Mono(rate=w * sign)          # sinh|cosh(w) >= c*exp(|w|) once |w| >= w0 > 0
    if isinstance(expr, sp.cosh):
        return Mono()                       # cosh >= 1
    if isinstance(expr, EigenvalueFunction):
        linear = _linear_in_index(expr, lowers)
        return linear[0] if linear else None
    if bessel_at_a_zero(expr):
        linear = _linear_in_index(expr.args[1], lowers)          # |J_nu(s_k)| >= c*s_k**(-1/2), s_k >= c*k
        return linear[0].scaled(sp.Rational(-1, 2)) if linear else None
    if isinstance(expr, sp.Add):
        polynomial = _lower_polynomial(expr, lowers)
        if polynomial is None and (all(a.is_nonnegative for a in expr.args) or all(a.is_nonpositive for a in expr.args)):
            return _lower_of_one_signed(expr, region, lowers)
        return polynomial
    return None


def _lower_of_one_signed(expr: sp.Add, region: Region, lowers: Lowers) -> Mono | None:
    """A sum of terms of one sign is at least each of them: the largest of their lower bounds (by power)."""
    found = [m for m in (lower(a, region, lowers) for a in expr.args) if m is not None and m.rate == 0
             and not m.mixed]
    if not found:
        return None
    return max(found, key=lambda m: sum(m.powers.values()))


def _lower_in_named(expr: sp.Expr, lowers: Lowers) -> Mono | None:
    """A polynomial ``p(s)`` in one named eigenvalue ``s = s_k`` (increasing in k) with a positive leading
    coefficient and no real root at or above ``s`` at the first index: ``p(s) >= c*s**deg >= c'*k**deg``."""
    calls = {f for f in expr.atoms(sp.Function) if isinstance(f, EigenvalueFunction)}
    if len(calls) != 1:
        return None
    call = calls.pop()
    k = call.index
    if k not in lowers or lowers[k] < 1:
        return None
    s = sp.Dummy("s", positive=True)
    p = expr.xreplace({call: s})
    if p.free_symbols - {s} or not p.is_polynomial(s):
        return None
    poly = sp.Poly(p, s)
    first = sp.N(call.xreplace({k: lowers[k]}), 30)
    if not poly.LC().is_positive or any(r >= first for r in poly.real_roots()):
        return None
    return Mono(powers={k: sp.Integer(poly.degree())})


def _lower_polynomial(expr: sp.Expr, lowers: Lowers) -> Mono | None:
    """A polynomial in the indices that keeps one sign on the whole range: ``p(k) >= c*k**deg`` (one index),
    or, in several, one with positive coefficients (a mixed factor of the majorant)."""
    if any(isinstance(f, EigenvalueFunction) for f in expr.atoms(sp.Function)):
        return _lower_in_named(expr, lowers)
    indices = [k for k in lowers if expr.has(k)]
    if not indices or not expr.is_polynomial(*indices) or expr.free_symbols - set(indices) - {DELTA}:
        return None
    if sign_for_all(expr, lowers) is None or sign_for_all(expr, lowers) == 0:
        return None
    poly = sp.Poly(expr, *indices)
    if len(indices) == 1:
        lead = poly.LC()
        if not (lead.is_positive or lead.is_negative):
            return None
        return Mono(powers={indices[0]: sp.Integer(poly.degree())})
    if not all(c.is_positive for c in poly.coeffs()) or any(lowers[k] < 1 for k in indices):
        return None
    return Mono(mixed=((sp.expand(expr), sp.Integer(1)),))


def sign_for_all(a: sp.Expr, lowers: Lowers) -> int | None:
    """+1 (or -1) when the polynomial ``a`` in the indices is at least (at most) a positive (negative)
    constant for every index from its lower limit, 0 when it is 0, None when undecided: its coefficients
    after putting ``k = lower + j`` all have that sign."""
    a = sp.expand(a)
    if a == 0:
        return 0
    indices = [k for k in lowers if a.has(k)]
    shifted = sp.expand(a.xreplace({k: lowers[k] + sp.Dummy("j", nonnegative=True) for k in indices}))
    others = [s for s in shifted.free_symbols if isinstance(s, sp.Dummy)]
    if others and not shifted.is_polynomial(*others):
        return None
    coefficients = sp.Poly(shifted, *others).coeffs() if others else [shifted]
    constant = shifted.xreplace({s: 0 for s in others})
    if all(c.is_nonnegative for c in coefficients) and constant.is_positive:
        return 1
    if all(c.is_nonpositive for c in coefficients) and constant.is_negative:
        return -1
    return None


def _root_sign(w: sp.Expr, lowers: Lowers) -> int | None:
    """The sign of ``c*sqrt(P)`` (``P`` a polynomial in the indices at least a positive constant on the range,
    ``c`` a constant), which is then at least ``|c|*sqrt(P_min) > 0`` in size: the frequencies of a box's modes."""
    c, root = w.as_independent(*lowers, as_Add=False)
    if not (isinstance(root, sp.Pow) and root.exp == sp.Rational(1, 2) and root.base.is_polynomial(*lowers)):
        return None
    if sign_for_all(root.base, lowers) != 1 or not (c.is_positive or c.is_negative):
        return None
    return 1 if c.is_positive else -1


def extreme(z: sp.Expr, region: Region, lowers: Lowers, top: bool) -> sp.Expr | None:
    """The supremum (``top``) or infimum of ``z``, affine in the region's variables, over the region, as
    an expression in the indices (each variable at the end its coefficient's sign picks for every index)."""
    z = sp.expand(z)
    variables = [v for v in region if z.has(v)]
    if variables and (not z.is_polynomial(*variables) or sp.Poly(z, *variables).total_degree() > 1):
        return None
    value = z
    for v in variables:
        a = z.coeff(v)
        sign = _sign(a, lowers)
        if sign is None:
            return None
        lo, hi = region[v]
        value = value.xreplace({v: hi if (sign > 0) == top else lo})
    return sp.expand(value)


def _sign(a: sp.Expr, lowers: Lowers) -> int | None:
    """The sign of a coefficient for every index: by the polynomial test, or by SymPy's assumptions (a
    named eigenvalue is positive)."""
    if a.is_positive:
        return 1
    if a.is_negative:
        return -1
    if _named(a):
        return None
    return sign_for_all(a, lowers) if a.is_polynomial(*lowers) else _root_sign(a, lowers)


def _named(expr: sp.Expr) -> list[EigenvalueFunction]:
    return [f for f in expr.atoms(sp.Function) if isinstance(f, EigenvalueFunction)]


def _proxied(rate: sp.Expr) -> sp.Expr | None:
    """``rate`` with each named eigenvalue ``s_k`` written ``k``: ``c1*k <= s_k <= c2*k`` keeps the degree
    and the sign of each monomial, so the leading behaviour, provided the leading monomials of each index
    agree in sign (else None)."""
    calls = _named(rate)
    if not calls:
        return rate
    written = sp.expand(rate.xreplace({c: c.index for c in calls}))
    for k in {c.index for c in calls}:
        if not isinstance(k, sp.Symbol):
            return None
        parts = [t for t in sp.Add.make_args(sp.expand(rate)) if t.has(k) or any(c.index == k and t.has(c) for c in calls)]
        degrees = [sp.degree(t.xreplace({c: c.index for c in calls}), k) for t in parts]
        top = max(degrees, default=0)
        signs = {bool(sp.LC(t.xreplace({c: c.index for c in calls}), k).is_negative)
                 for t, d in zip(parts, degrees) if d == top}
        if len(signs) > 1:
            return None
    return written


def summable(monos: Sequence[Mono], lowers: Lowers) -> bool:
    """Whether the sum over every index of every monomial converges."""
    return all(_summable(m, lowers) for m in monos)


def _summable(m: Mono, lowers: Lowers) -> bool:
    decay: dict[sp.Symbol, int] = {}
    proxied = _proxied(sp.expand(m.rate))
    if proxied is None:
        return False
    rate = sp.expand(leading_roots(proxied, lowers))
    parts: dict[sp.Symbol, sp.Expr] = {k: sp.Integer(0) for k in lowers}
    for whole in sp.Add.make_args(rate):
        split = separated(whole, lowers) if len([k for k in lowers if whole.has(k)]) > 1 else whole
        if split is None:
            return False
        for term in sp.Add.make_args(sp.expand(split)):
            owners = [k for k in lowers if term.has(k)]
            if len(owners) > 1:
                return False
            if owners:
                parts[owners[0]] += term
    for k, part in parts.items():
        if part == 0:
            decay[k] = 0
            continue
        if not part.is_polynomial(k):
            return False
        lead = sp.Poly(part, k).LC()
        decay[k] = -1 if lead.is_negative else 1 if lead.is_positive else 2
    if any(d > 0 for d in decay.values()):
        return False            # growing (or undecided) exponent
    powers = {k: sp.nsimplify(m.powers.get(k, 0)) for k in lowers}
    slow = [k for k in lowers if decay[k] == 0]
    if len(m.mixed) > 1:
        return False
    if not m.mixed:
        return all(powers[k] < -1 for k in slow)
    form, exponent = m.mixed[0]
    if not exponent.is_negative:
        return False
    needs = sp.Integer(0)
    poly = sp.Poly(form, *[k for k in lowers if form.has(k)])
    for k in slow:
        degree = max((mono[poly.gens.index(k)] for mono in poly.monoms()
                      if k in poly.gens and sum(mono) == mono[poly.gens.index(k)]), default=0)
        if powers[k] < -1:
            continue
        if degree == 0:
            return False
        needs += (powers[k] + 1) / (-exponent * degree)
    return bool(needs < 1)
