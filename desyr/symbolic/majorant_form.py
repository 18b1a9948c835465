"""The form of a series' term's majorant, ``C * n**(-p) * exp(alpha*n**2 + beta*n + gamma)`` from the
index ``start`` on, with its sum, product and tail (:mod:`desyr.symbolic.majorant` reads a term into one;
:mod:`desyr.symbolic.exponent` its exponential factors)."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import sympy as sp

from desyr.symbolic.eigen_bounds import Unbounded
from desyr.symbolic.interval_numbers import Unenclosed


class NoMajorant(Exception):
    """No majorant of this form could be shown."""


#: what a majorant cannot be shown through (the next start is tried)
FAILURES = (NoMajorant, Unenclosed, Unbounded, ValueError, TypeError, ZeroDivisionError, sp.PolynomialError,
            OverflowError)
T = TypeVar("T")
#: the readings of a term's parts that do not depend on the box (signs in the index, the algebraic part's
#: quotient in ``w``, the exponent's groups), by part, index and start: a run bounds the same sum on
#: hundreds of boxes (desyr.symbolic.numeric splits its points), and only the enclosures differ
_READ: dict[tuple[object, ...], tuple[bool, object]] = {}
READ_KEPT = 4096


def remembered(kind: str, key: tuple[object, ...], read: Callable[[], T]) -> T:
    """``read()``, or what it returned (or raised) for the same ``kind`` and ``key`` before."""
    full = (kind, *key)
    if full not in _READ:
        if len(_READ) >= READ_KEPT:
            _READ.clear()
        try:
            _READ[full] = (True, read())
        except FAILURES as exc:
            _READ[full] = (False, exc)
    done, value = _READ[full]
    if not done:
        assert isinstance(value, Exception)
        raise type(value)(*value.args)
    return value  # type: ignore[return-value]


@dataclass(frozen=True)
class Majorant:
    """``C * n**(-p) * exp(alpha*n**2 + beta*n + gamma)`` bounds the term for ``n >= start``."""

    C: float
    p: float
    alpha: float = 0.0
    beta: float = 0.0
    gamma: float = 0.0
    start: int = 1

    def times(self, other: Bound) -> Bound:
        if isinstance(other, (Majorants, Lesser)):
            return other.times(self)
        C, gamma = product_up(self.C, other.C), self.gamma + other.gamma
        if self.C and other.C and not 1e-250 < C < 1e250:
            # kept as a logarithm in the exponent: a product of two tiny constants is 0 in doubles (44n)
            logs = math.log(self.C) + math.log(other.C)
            C, gamma = 1.0, gamma + logs + abs(logs) * 1e-12 + 1e-12
        return Majorant(C, self.p + other.p, self.alpha + other.alpha, self.beta + other.beta, gamma,
                        max(self.start, other.start))

    def plus(self, other: Bound) -> Bound:
        """A majorant of the sum: both forms, each kept (:class:`Majorants`)."""
        if isinstance(other, Lesser):
            return other.plus(self)
        return summed((self, *parts_of(other)))

    def merged(self, other: Majorant) -> Majorant:
        """One form bounding both: the smaller power, the larger exponent coefficients (``n, n**2 >= 1``)."""
        start, p = max(self.start, other.start), min(self.p, other.p)
        C = sum(m.C * start ** (p - m.p) * math.exp(m.gamma - max(self.gamma, other.gamma)) for m in (self, other))
        return Majorant(product_up(C, 1 + 1e-12), p, max(self.alpha, other.alpha), max(self.beta, other.beta),
                        max(self.gamma, other.gamma), start)

    def at(self, n: float) -> float:
        """The majorant at ``n``, from its logarithm (a constant of 1e301 times ``exp(-762)`` is about 1, and 0
        as two doubles multiplied: 44n); rounded up."""
        if self.C == 0:
            return 0.0
        log = math.log(self.C) - self.p * math.log(n) + self.alpha * n * n + self.beta * n + self.gamma
        if not log < 709:
            return math.inf
        return float(math.exp(log + abs(log) * 1e-12 + 1e-12))

    def tail(self, first: int) -> float:
        """A bound of ``sum_{n >= first}`` of the majorant (inf where none holds from ``first``)."""
        first = max(first, 1)
        if first < self.start:
            return math.inf
        if self.alpha < 0 or (self.alpha == 0 and self.beta < 0):
            ratio = self._ratio(first)
            if ratio < 1:
                return self.at(first) / (1 - ratio) * (1 + 1e-12)
            return self._peaked(first) if self.alpha < 0 else math.inf
        if self.alpha == 0 and self.beta == 0 and self.p > 1:
            if self.C == 0:
                return 0.0
            log = math.log(self.C) + self.gamma - self.p * math.log(first) + math.log1p(first / (self.p - 1))
            return float(math.exp(log + abs(log) * 1e-12 + 1e-12)) if log < 700 else math.inf
        return math.inf

    def _ratio(self, n: int) -> float:
        """A bound of the ratio of consecutive majorants from ``n`` on (it falls with ``n``, ``alpha <= 0``)."""
        growth = ((n + 1) / n) ** max(-self.p, 0.0)
        step = self.alpha * (2 * n + 1) + self.beta      # exp(-1000*(n - 40)**2) grows until n = 40
        return growth * math.exp(step) if step < 700 else math.inf

    def _peaked(self, first: int) -> float:
        """The tail of a majorant that still grows at ``first`` (``exp(-(n - 4500)**2)`` from 4000 on, red
        team 44l): the indices up to the one ``m`` from which the ratio is at most 1/2, each at most the
        peak, then ``2*at(m)``."""
        target = -math.log(2) - max(-self.p, 0.0) * math.log((first + 1) / first)
        last = ((target - self.beta) / self.alpha - 1) / 2
        if not last < 1e15:             # an exponent so flat that its peak is as good as never passed
            return math.inf
        m = max(first, math.ceil(last))
        while self._ratio(m) > 0.5:        # the rounding of the line above
            m += 1
        top = self.gamma - self.beta * self.beta / (4 * self.alpha)
        log = math.log(self.C) - self.p * math.log(first if self.p >= 0 else m) + top if self.C else -math.inf
        if not log < 700:
            return math.inf
        peak = math.exp(log + abs(log) * 1e-12 + 1e-12)
        return float(((m - first) * peak + 2 * self.at(m)) * (1 + 1e-12))


@dataclass(frozen=True)
class Majorants:
    """A sum of majorants, each form kept: ``0.26/n**3 + 1e-6/n**2`` leaves a tail of about 1e-10 past 4000 terms,
    where one form with the smaller power and the summed constants (:meth:`Majorant.merged`) leaves 6e-5, and
    a wrong series' slower part had passed inside that allowance (red team 44j's s09)."""

    parts: tuple[Majorant, ...]

    @property
    def start(self) -> int:
        return max(m.start for m in self.parts)

    def times(self, other: Bound) -> Bound:
        if isinstance(other, Lesser):
            return other.times(self)
        return summed([a.times(b) for a in self.parts for b in parts_of(other)])

    def plus(self, other: Bound) -> Bound:
        if isinstance(other, Lesser):
            return other.plus(self)
        return summed((*self.parts, *parts_of(other)))

    def at(self, n: float) -> float:
        return float(math.fsum(m.at(n) for m in self.parts) * (1 + 1e-12))

    def tail(self, first: int) -> float:
        return float(math.fsum(m.tail(first) for m in self.parts) * (1 + 1e-12))


@dataclass(frozen=True)
class Lesser:
    """The lesser of two bounds of the same term, each proved: the algebraic part's one form (tight where its
    polynomial cancels, ``(2 - w**2)**2``) and its powers of the index kept apart (tight for large indices)."""

    first: Majorant | Majorants
    second: Majorant | Majorants

    @property
    def start(self) -> int:
        return max(self.first.start, self.second.start)

    def times(self, other: Bound) -> Bound:
        a, b = _sides(other)          # min(p, q)*min(r, s) <= p*r and q*s
        return Lesser(_plain(self.first.times(a)), _plain(self.second.times(b)))

    def plus(self, other: Bound) -> Bound:
        a, b = _sides(other)
        return Lesser(_plain(self.first.plus(a)), _plain(self.second.plus(b)))

    def at(self, n: float) -> float:
        return min(self.first.at(n), self.second.at(n))

    def tail(self, first: int) -> float:
        return min(self.first.tail(first), self.second.tail(first))


Bound = Majorant | Majorants | Lesser
#: the most forms a sum keeps (a product of sums multiplies them); past it they are merged into one
MOST_PARTS = 32


def parts_of(bound: Bound) -> tuple[Majorant, ...]:
    if isinstance(bound, Lesser):
        raise TypeError("the lesser of two bounds has no parts of one form")
    return bound.parts if isinstance(bound, Majorants) else (bound,)


def _sides(bound: Bound) -> tuple[Bound, Bound]:
    return (bound.first, bound.second) if isinstance(bound, Lesser) else (bound, bound)


def _plain(bound: Bound) -> Majorant | Majorants:
    """The first side of nested lessers (a product of two lessers of lessers keeps one side's choices)."""
    while isinstance(bound, Lesser):
        bound = bound.first
    return bound


def summed(parts: Sequence[Bound]) -> Majorant | Majorants:
    """The sum of ``parts``: forms that differ only in their constant added, the rest kept apart (merged into one
    past :data:`MOST_PARTS`)."""
    kept: dict[tuple[float, float, float, float, int], float] = {}
    for m in (f for part in parts for f in parts_of(part)):
        key = (m.p, m.alpha, m.beta, m.gamma, m.start)
        kept[key] = kept.get(key, 0.0) + m.C
    forms = [Majorant(product_up(C, 1 + 1e-12) if C else 0.0, *key) for key, C in kept.items()]
    if len(forms) > MOST_PARTS:
        one = forms[0]
        for m in forms[1:]:
            one = one.merged(m)
        forms = [one]
    return forms[0] if len(forms) == 1 else Majorants(tuple(forms))


def product_up(a: float, b: float) -> float:
    """``a*b`` rounded up (a relative 1e-15 above), 0 when either is (and the other finite: ``0*inf`` bounds
    nothing)."""
    if not (a and b):
        return math.inf if math.isinf(a) or math.isinf(b) else 0.0
    return a * b * (1 + 1e-15)
