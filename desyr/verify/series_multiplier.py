"""The coefficients through the data's denominator: where SymPy cannot integrate the data against the
eigenfunctions (``3/(5 - 4*cos(pi*x))``), the identity is shown for the data times their denominator.

Along one direction whose eigenfunctions are ``X_J = T((J + delta)*theta)`` (``T`` a sine or a cosine,
``theta = omega*(x - lo)``, ``omega`` the spacing of the frequencies: Dirichlet, Neumann, mixed and periodic
ends), let the data left by the finite part be ``rho = N/D`` with ``D`` a polynomial in ``cos(theta)`` and
``N`` integrable by SymPy in a symbolic index.  Then, with ``c_J`` the series' coefficients:

1. ``D`` has no zero on the interval: as a polynomial in ``C = cos(theta)`` it has no root in ``[-1, 1]``
   (Sturm's count, exact), and ``theta`` stays in ``[0, 2*pi]``;
2. ``D*X_J`` is a finite combination of the family's eigenfunctions (``cos(k*theta)*T(a*theta)`` is
   ``(T((a + k)*theta) + T((a - k)*theta))/2``, reflected where ``a - k < 0``), each combination checked as
   an identity in the variable (and the index);
3. ``sum_J' a_J' * c_J' * |X_J'|**2 = <N, X_J>`` for every ``J`` (the combination's coefficients ``a_J'``): an
   identity in the index on each residue class for large ``J``, exact numbers below;
4. ``sum_J |c_J|**2`` converges (a majorant of the coefficients' squares, :mod:`desyr.verify.series_bounds`).

Then ``g = sum c_J X_J`` converges in L2, multiplication by the bounded ``D`` is self-adjoint there, so
``<D*g, X_J> = <g, D*X_J> = sum a_J' c_J' |X_J'|**2 = <N, X_J> = <D*rho, X_J>`` for every ``J``; the family
is complete (part 3 of the proof), so ``D*g = D*rho`` almost everywhere, and ``D != 0`` gives ``g = rho``:
the ``c_J`` are the data's expansion coefficients.  Quadratures at drawn indices confirm them as on the
other route.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from desyr.verify.series_bounds import summable, upper
from desyr.verify.series_expansion import (
    Check,
    Claim,
    Unproved,
    bounded_integral,
    generic_value,
    index_classes,
    quadrature_check,
    special_indices,
)
from desyr.verify.series_identity import zero_for_all
from desyr.verify.series_modes import Progression
from desyr.verify.series_sturm import Branch, Family, J

#: the highest power of cos(theta) in a denominator taken
MAX_ORDER = 12


@dataclass(frozen=True)
class Ladder:
    """A branch as ``T((J + delta)*theta)`` (``trig`` None: the constant zero mode ``level``)."""

    branch: Branch
    trig: type[sp.Function] | None
    delta: sp.Expr
    level: sp.Expr = sp.Integer(1)


Classes = list[tuple[Progression, Claim | None]]


def through_denominator(check: Check, key: bytes, numbers: Mapping[float, sp.Expr]) -> int | None:
    """How many index classes were proved, or None where the route does not apply (no denominator in the
    expansion's variable, several directions, a family that is not a ladder); :class:`Unproved` where it
    applies and fails."""
    families = check.expansion.families
    if len(families) != 1 or check.rest:
        return None
    family = families[0]
    x = family.variable
    numerator, denominator = sp.fraction(sp.cancel(sp.together(check.rho)), exact=True)
    if x not in denominator.free_symbols:
        return None
    found = _ladders(family)
    if found is None:
        return None
    ladders, omega = found
    theta = sp.Dummy("theta")
    d = _cosine_coefficients(denominator.xreplace({x: family.lo + theta / omega}), theta)
    if d is None:
        return None
    classes = {ld.branch.label: _classes(check, ld.branch) for ld in ladders}
    count = 0
    for ladder in ladders:
        mine = classes[ladder.branch.label]
        _square_summable(mine, f"{check.target.name}, {ladder.branch.label}")
        _identities(family, ladder, ladders, classes, d, numerator, key, f"{check.target.name}, {ladder.branch.label}")
        for p, claim in mine:
            ks = [sp.Integer(0)] if p.step == 0 else [claim[1][0] if claim is not None else sp.Dummy("k")]
            quadrature_check(check, (ladder.branch,), [p], ks, claim, key, numbers,
                             f"{check.target.name}, {ladder.branch.label} j = {p.step}*k + {p.offset}")
            count += 1
    return count


def _ladders(family: Family) -> tuple[list[Ladder], sp.Expr] | None:
    """The family's branches as ladders on one angle, and the angle's rate ``omega``; None where it is not
    one (a drift term, Robin ends, shapes other than a sine or a cosine of ``s*(x - lo)``)."""
    if family.beta != 0 or family.measure is not None:       # the route's inner product has weight 1
        return None
    x, lo = family.variable, family.lo
    omega: sp.Expr | None = None
    out = []
    for b in family.branches:
        if b.robin is not None:
            return None
        if b.single:
            if b.shape.has(x) or b.frequency != 0:
                return None
            out.append(Ladder(b, None, sp.Integer(0), b.shape))
            continue
        poly = sp.Poly(b.frequency, J)
        if poly.degree() != 1 or poly.free_symbols - {J}:
            return None
        rate, offset = poly.coeff_monomial(J), poly.coeff_monomial(1)
        if omega is not None and sp.simplify(rate - omega) != 0:
            return None
        omega = rate
        trig = type(b.shape)
        if trig not in (sp.sin, sp.cos) or sp.expand(b.shape.args[0] - b.frequency * (x - lo)) != 0:
            return None
        out.append(Ladder(b, trig, offset / rate))
    return (out, omega) if omega is not None else None


def _cosine_coefficients(expr: sp.Expr, theta: sp.Symbol) -> list[sp.Expr] | None:
    """``expr = sum_k d_k*cos(k*theta)`` with no zero for real ``theta``: ``[d_0, ..., d_K]``; None where it is
    not a polynomial in ``cos(theta)`` with rational coefficients of degree 1 to :data:`MAX_ORDER`, or one
    that vanishes on ``[-1, 1]`` (Sturm's count, exact): the other route's turn."""
    cosine, sine = sp.Dummy("C"), sp.Dummy("S")
    flat = sp.expand(sp.expand_trig(sp.expand(expr))).xreplace({sp.cos(theta): cosine, sp.sin(theta): sine})
    if flat.has(theta):
        return None
    try:
        poly = sp.Poly(flat, cosine, sine)
    except sp.PolynomialError:
        return None
    reduced = sp.Integer(0)
    for (i, j), c in poly.terms():
        if j % 2:
            return None                      # an odd power of the sine: not a polynomial in the cosine
        reduced += c * cosine**i * (1 - cosine**2) ** (j // 2)
    p = sp.Poly(sp.expand(reduced), cosine)
    if not 1 <= p.degree() <= MAX_ORDER or not all(c.is_Rational for c in p.coeffs()) or p.count_roots(-1, 1):
        return None
    d = [sp.Integer(0)] * (p.degree() + 1)
    rest = p.as_expr()
    for k in range(p.degree(), 0, -1):
        d[k] = sp.Poly(rest, cosine).coeff_monomial(cosine**k) / 2 ** (k - 1)
        rest = sp.expand(rest - d[k] * sp.chebyshevt(k, cosine))
    d[0] = rest
    return d


def _classes(check: Check, branch: Branch) -> Classes:
    mine = [(p, r) for p, r in zip(check.expansion.pieces, check.rs) if p.modes[0].branch == branch]
    return [(progs[0], claim) for progs, claim in index_classes((branch,), mine)]


def _square_summable(classes: Classes, where: str) -> None:
    for p, claim in classes:
        if claim is None or p.step == 0:
            continue
        k = claim[1][0]
        monos = upper(claim[0], {}, {k: p.start})
        if monos is None or not summable([a.times(b) for a in monos for b in monos], {k: p.start}):
            raise Unproved(f"the coefficients are not shown square-summable ({where})")


def _identities(family: Family, ladder: Ladder, ladders: Sequence[Ladder], classes: Mapping[str, Classes],
                d: Sequence[sp.Expr], numerator: sp.Expr, key: bytes, where: str) -> None:
    """Part 3 on one branch: exactly below a threshold, as an identity in the index on each residue class above."""
    order = len(d) - 1
    inner, special = _inner(family, ladder, numerator)
    modulus = math.lcm(*[p.step for c in classes.values() for p, _ in c if p.step] or [1])
    firsts = [p.first() if p.step else p.offset for c in classes.values() for p, _ in c]
    threshold = max([ladder.branch.first + order + 2, *(s + 1 for s in special), *(f + order + 1 for f in firsts)])
    for j in range(ladder.branch.first, ladder.branch.first + 1 if ladder.branch.single else threshold):
        left = _combination(family, ladder, ladders, classes, d, sp.Integer(j))
        right = _at(family, ladder, numerator, sp.Integer(j))
        if not zero_for_all(left - right, {}, {}, key, f"denominator {where} {j}"):
            raise Unproved(f"the coefficients times the data's denominator are not its numerator's ({where}, j = {j})")
    if ladder.branch.single:
        return
    m = sp.Symbol("m", integer=True, nonnegative=True)
    for residue in range(modulus):
        index = modulus * m + residue
        left = _combination(family, ladder, ladders, classes, d, index)
        right = inner.xreplace({J: index})
        lowest = -(-(threshold - residue) // modulus)
        if not zero_for_all(left - right, {}, {m: lowest}, key, f"denominator {where} {residue} mod {modulus}"):
            raise Unproved(f"the coefficients times the data's denominator are not its numerator's ({where}, "
                           f"j = {residue} mod {modulus})")


def _inner(family: Family, ladder: Ladder, numerator: sp.Expr) -> tuple[sp.Expr, set[int]]:
    """``<N, X_J>`` for a generic index, and the indices where SymPy's answer is special."""
    if ladder.branch.single:
        return sp.Integer(0), set()
    value = _integral(numerator * ladder.branch.shape, family)
    return generic_value(value), special_indices([value], J)


def _at(family: Family, ladder: Ladder, numerator: sp.Expr, j: sp.Expr) -> sp.Expr:
    return _integral(numerator * ladder.branch.at(j), family)


def _integral(integrand: sp.Expr, family: Family) -> sp.Expr:
    return bounded_integral(integrand, family, "an integral of the data's numerator or a norm")


def _combination(family: Family, ladder: Ladder, ladders: Sequence[Ladder], classes: Mapping[str, Classes],
                 d: Sequence[sp.Expr], j: sp.Expr) -> sp.Expr:
    """``sum a_J' c_J' |X_J'|**2`` over the eigenfunctions of ``D*X_j``, each product checked."""
    image: list[tuple[Ladder, sp.Expr, sp.Expr]] = []
    for k, dk in enumerate(d):
        if dk != 0:
            image += [(ld, jj, dk * a) for ld, jj, a in _product(ladder, ladders, j, k)]
    total = sp.Integer(0)
    for ld, jj, a in image:
        total += a * _claimed(classes[ld.branch.label], jj) * _norm(family, ld, jj)
    return total


def _product(ladder: Ladder, ladders: Sequence[Ladder], j: sp.Expr, k: int) -> list[tuple[Ladder, sp.Expr, sp.Expr]]:
    """``cos(k*theta)*X_j`` as ``(ladder, index, coefficient)`` terms: ``(T((a + k)*theta) + T((a - k)*theta))/2``
    with ``a = j + delta``; a negative frequency reflected (a sine changes sign), a zero one dropped (sine)
    or the constant mode (cosine)."""
    if ladder.trig is None:                  # the constant mode c: c*cos(k*theta) is c times the cosine j = k
        if k == 0:
            return [(ladder, j, sp.Integer(1))]
        cosine = next((ld for ld in ladders if ld.trig is sp.cos and ld.delta == 0), None)
        if cosine is None:
            raise Unproved("the constant mode times the denominator has no cosine to go to")
        return [(cosine, sp.Integer(k), ladder.level)]
    if k == 0:
        return [(ladder, j, sp.Integer(1))]
    out = [(ladder, j + k, sp.Rational(1, 2))]
    a = j + ladder.delta - k
    if not a.is_number or a > 0:
        return [*out, (ladder, j - k, sp.Rational(1, 2))]
    if a == 0:
        if ladder.trig is sp.sin:
            return out
        zero = next((ld for ld in ladders if ld.trig is None), None)
        if ladder.branch.first == 0 or zero is None:
            return [*out, (ladder, sp.Integer(0) - ladder.delta, sp.Rational(1, 2))]
        return [*out, (zero, zero.branch.first, 1 / (2 * zero.level))]
    sign = -1 if ladder.trig is sp.sin else 1
    return [*out, (ladder, -a - ladder.delta, sp.Rational(sign, 2))]


def _claimed(classes: Classes, j: sp.Expr) -> sp.Expr:
    """The series' coefficient at index ``j``: a number, or ``M*m + r`` past every class's first index."""
    for p, claim in classes:
        if j.is_number:
            if not p.contains(int(j)):
                continue
            at = {} if p.step == 0 or claim is None else {claim[1][0]: (int(j) - p.offset) // p.step}
        else:
            if p.step == 0 or any(int(c) % p.step for c in sp.Poly(j - p.offset, *j.free_symbols).coeffs()):
                continue
            at = {} if claim is None else {claim[1][0]: (j - p.offset) / p.step}
        return sp.Integer(0) if claim is None else claim[0].xreplace(at)
    raise Unproved(f"no eigenfunction of index {j} in the family")


def _norm(family: Family, ladder: Ladder, j: sp.Expr) -> sp.Expr:
    if ladder.branch.single:
        return _integral(ladder.branch.shape**2, family)
    if j.is_number:
        return _integral(ladder.branch.at(j) ** 2, family)
    return generic_value(_integral(ladder.branch.shape**2, family)).xreplace({J: j})
