"""The exponential factors of a series' term gathered into one exponent, bounded above by a quadratic in
the index (part of :mod:`desyr.symbolic.majorant`, whose docstring states the inequalities used)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import sympy as sp

from desyr.symbolic.eigen_bounds import Linear, linear
from desyr.symbolic.eigenvalues import EigenvalueFunction
from desyr.symbolic.enclosure import Intervals, magnitude, supremum
from desyr.symbolic.majorant_form import Majorant, NoMajorant, remembered


class Reader(Protocol):
    """What the exponent's bound reads of a term's reader (:class:`desyr.symbolic.majorant.Reader`): the
    index, the box's intervals, the first index the majorant holds from, and two questions about a factor."""

    n: sp.Symbol
    intervals: Intervals
    start: int

    def absolute(self, expr: sp.Expr) -> sp.Expr: ...

    def sign(self, expr: sp.Expr) -> int: ...


#: relative margin added to each bounded coefficient (the products below are rounded to doubles)
_MARGIN = 1e-12


def exponent_bound(reader: Reader, factors: list[sp.Expr]) -> Majorant:
    """A majorant of the product of the exponential ``factors``. Their constants (``1/2`` per ``sinh``) are
    kept as a logarithm in the exponent: ``0.5**1100`` is 0 in doubles, and a majorant of 0 had bounded a
    term that is 1 at n = 4500 (red team 44n)."""
    exponent, log_scale = sp.Integer(0), 0.0
    for factor in factors:
        base, power = (factor.base, factor.exp) if isinstance(factor, sp.Pow) else (factor, sp.Integer(1))
        if isinstance(base, sp.exp):
            exponent += power * base.args[0]
        elif isinstance(base, (sp.sinh, sp.cosh)):
            k = int(power)
            size = reader.absolute(base.args[0])
            exponent += k * size
            if k > 0:
                log_scale += -k * math.log(2) if isinstance(base, sp.sinh) else 0.0
            elif isinstance(base, sp.cosh):
                log_scale += -k * math.log(2)
            else:
                log_scale += -k * math.log(_reciprocal_sinh(reader, size))
        elif isinstance(base, sp.factorial):
            exponent += power * _factorial_exponent(reader, base.args[0])
        else:                                   # base**g, the base free of the index
            term, factor_scale = _power(reader, base, power)
            if factor_scale == 0:
                return Majorant(0.0, 0.0, start=reader.start)
            exponent += term
        if not math.isfinite(log_scale):
            raise NoMajorant("an unbounded factor")
    alpha, beta, gamma = quadratic_top(reader, exponent)
    return Majorant(1 + _MARGIN, 0.0, alpha, beta, gamma + log_scale + abs(log_scale) * _MARGIN, reader.start)


#: ``1/k! <= exp(FACTORIAL_GAMMA - FACTORIAL_RATE*k)`` for every integer ``k >= 0``: ``(A/e)**k/k! <= exp(A/e)``
#: with ``A = e**4`` (terms ``y**n/n!`` are bounded for ``|y| < e**3``)
FACTORIAL_RATE, FACTORIAL_GAMMA = 3, sp.exp(3)


def _factorial_exponent(reader: Reader, k: sp.Expr) -> sp.Expr:
    """``E`` with ``log(k!) >= E``, for ``k = a*n + b`` (integers, ``a >= 1``) not negative from the start on."""
    poly = sp.Poly(k, reader.n) if k.is_polynomial(reader.n) else None
    if poly is None or poly.degree() != 1 or not all(c.is_Integer for c in poly.all_coeffs()):
        raise NoMajorant(f"factorial({k}) is not of an integer linear function of the index")
    a, b = (int(c) for c in poly.all_coeffs())
    if a < 1 or a * reader.start + b < 0:
        raise NoMajorant(f"factorial({k}) of a negative number")
    # rounded down: log(k!) is at least this, and e**3 above e**3's double
    return FACTORIAL_RATE * k - sp.Float(float(FACTORIAL_GAMMA) * (1 + _MARGIN))


def _reciprocal_sinh(reader: Reader, size: sp.Expr) -> float:
    """``2/(1 - exp(-2*b))`` with ``b`` the least of ``|B|`` from the start on (``|B| >= b(n)``, ``b``
    nondecreasing and positive at the start)."""
    a2, a1, a0 = (-c for c in quadratic_top(reader, -size))
    start = reader.start
    least = a2 * start * start + a1 * start + a0
    if not (least > 0 and a2 >= 0 and 2 * a2 * start + a1 >= 0):
        raise NoMajorant("1/sinh of a quantity not shown to grow away from 0")
    return 2 / (1 - math.exp(-2 * least)) * (1 + _MARGIN)


def _power(reader: Reader, base: sp.Expr, power: sp.Expr) -> tuple[sp.Expr, float]:
    """``|base|**power <= exp(term)``: ``power`` of one sign from the start on, ``|base|`` enclosed."""
    top = magnitude(base, reader.intervals)
    if reader.sign(power) > 0:
        if top == 0:
            return sp.Integer(0), 0.0
        return power * sp.Float(math.log(top) + abs(math.log(top)) * _MARGIN), 1.0
    least = -supremum(-sp.Abs(base), reader.intervals)
    if least <= 0:
        raise NoMajorant(f"a negative power of {base}, which may vanish")
    return power * sp.Float(math.log(least) - abs(math.log(least)) * _MARGIN), 1.0


def quadratic_top(reader: Reader, exponent: sp.Expr) -> tuple[float, float, float]:
    """``(alpha, beta, gamma)`` with ``exponent <= alpha*n**2 + beta*n + gamma`` over the box and for
    every index from the start on."""
    plan = remembered("exponent", (exponent, reader.n, reader.start), lambda: _exponent_plan(reader, exponent))
    # each group's share of each monomial kept, summed with a margin of their sizes (_sum_up)
    shares: dict[tuple[int, ...], list[float]] = {}
    for group in plan.groups:
        top = supremum(group.h, reader.intervals) if group.sign > 0 else -supremum(-group.h, reader.intervals)
        for monomial, coefficient in group.terms:
            shares.setdefault(monomial, []).append(coefficient * top)
    parts: list[list[float]] = [[], [], []]
    for monomial, share in shares.items():
        power, eigen = monomial[0], monomial[1:]
        top = _sum_up(share)          # at least the monomial's coefficient
        if top == 0:
            continue
        if sum(eigen) == 0 and power <= 2:
            parts[power].append(top)
            continue
        if sum(eigen) not in (1, 2) or power + sum(eigen) > 2 or max(eigen) != sum(eigen):
            raise NoMajorant("an exponent beyond a quadratic in the index")
        b = plan.bounds[eigen.index(max(eigen))]
        c0, c1 = (b.hi0, b.hi1) if top > 0 else (b.lo0, b.lo1)      # lo(n) > 0 from the start on
        if sum(eigen) == 1:
            parts[power] += [top * c0]
            parts[power + 1] += [top * c1]
        else:
            parts[0] += [top * c0 * c0]
            parts[1] += [top * 2 * c0 * c1]
            parts[2] += [top * c1 * c1]
    gamma, beta, alpha = (_sum_up(p) for p in parts)
    return alpha, beta, gamma


def _sum_up(parts: list[float]) -> float:
    """``sum(parts)`` rounded up by more than the round-off of every product and sum that made it: relative
    to the parts' sizes, not the sum's (parts of 4.4e13 that cancel to 1e-3 had been summed to -3e-3, and a
    term of 1 at n = 10**6 was bounded by 4.7e-191; red team 44m)."""
    if not all(math.isfinite(c) for c in parts):
        raise NoMajorant("an unbounded exponent")
    total = math.fsum(parts)
    return total + abs(total) * _MARGIN + math.fsum(abs(c) for c in parts) * _MARGIN


@dataclass(frozen=True)
class _Group:
    """The exponent's terms ``g(n)*h(x)`` of one index factor ``g``: ``h`` (their factors free of the index,
    added), the sign of ``g`` from the start on, and ``g``'s monomials in the index and the eigenvalues."""

    h: sp.Expr
    sign: int
    terms: tuple[tuple[tuple[int, ...], float], ...]


@dataclass(frozen=True)
class _Plan:
    """How an exponent is bounded over any box: its groups and the eigenvalues' linear bounds."""

    groups: tuple[_Group, ...]
    bounds: tuple[Linear, ...]


def _exponent_plan(reader: Reader, exponent: sp.Expr) -> _Plan:
    """:func:`_plan_of` the exponent as written, else multiplied out: ``-(n - 4500)**2`` has no sign shown
    as one group (it vanishes at n = 4500), but its monomials do (a term that peaks past the kept terms,
    red team 44l); the written form is tried first, as its groups enclose tighter."""
    try:
        return _plan_of(reader, exponent)
    except NoMajorant:
        expanded = sp.expand(exponent)
        if expanded == exponent:
            raise
        return _plan_of(reader, expanded)


def _plan_of(reader: Reader, exponent: sp.Expr) -> _Plan:
    """The exponent's supremum over a box is, as a polynomial in the index (and the eigenvalues) with
    number coefficients, the sum over its groups of ``g(n)*sup(h)`` where ``g >= 0``, else ``g(n)*inf(h)``
    (the ``h`` of equal ``g`` added first, so that ``n*pi*|y| - n*pi`` is ``n*pi*(|y| - 1)``, whose top is
    0).  Only the enclosures of ``h`` depend on the box: the rest is read once per exponent."""
    gathered: dict[sp.Expr, list[sp.Expr]] = {}
    for term in sp.Add.make_args(exponent):
        index_part: list[sp.Expr] = []
        rest: list[sp.Expr] = []
        for factor in sp.Mul.make_args(term):
            (index_part if reader.n in factor.free_symbols else rest).append(factor)
        g, h = sp.Mul(*index_part), sp.Mul(*rest)
        if h.free_symbols & g.free_symbols or g.free_symbols - {reader.n}:
            raise NoMajorant(f"the exponent's term {term} does not separate")
        gathered.setdefault(g, []).append(h)
    nodes = sorted(set().union(*[g.atoms(EigenvalueFunction) for g in gathered]), key=sp.default_sort_key)
    names = [sp.Dummy(f"lambda{i}", positive=True) for i in range(len(nodes))]
    bounds = tuple(linear(node, reader.n) for node in nodes)
    if any(b.start > reader.start for b in bounds):
        raise NoMajorant("an eigenvalue's bounds start later")
    groups = []
    for g, parts in gathered.items():
        poly = sp.Poly(g.xreplace(dict(zip(nodes, names))), reader.n, *names)
        terms = tuple((monomial, float(c)) for monomial, c in poly.terms() if c != 0)
        groups.append(_Group(sp.factor(sp.Add(*parts)), 1 if g == 1 else reader.sign(g), terms))
    return _Plan(tuple(groups), bounds)
