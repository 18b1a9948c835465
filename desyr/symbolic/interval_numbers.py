"""Numbers as intervals (``mpmath.iv``, outward rounding): an exact number enclosed, the working precision,
whether an interval holds 0. What the enclosure of expressions (:mod:`desyr.symbolic.enclosure`) and the
isolation of ``robinroot``'s roots (:mod:`desyr.symbolic.robin`) both build on."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

import mpmath
import sympy as sp
from mpmath import iv

#: the default working precision of an interval computation, in bits
PREC = 80


class Unenclosed(Exception):
    """The number or expression cannot be enclosed (on these intervals)."""


@contextlib.contextmanager
def interval_precision(bits: int = PREC) -> Iterator[None]:
    """``mpmath.iv`` works at ``bits`` of precision inside the block (the precision before is restored)."""
    before = iv.prec
    iv.prec = bits
    try:
        yield
    finally:
        iv.prec = before


def number(value: sp.Expr) -> iv.mpf:
    """An interval holding the exact number ``value``."""
    if value.is_Integer:
        return iv.mpf(int(value))
    if value.is_Rational:
        return iv.mpf(int(value.p)) / iv.mpf(int(value.q))
    if value is sp.pi:
        return iv.pi
    if value is sp.E:
        return iv.e
    if isinstance(value, sp.Float):
        return iv.mpf(mpmath.mpf(value._mpf_))
    if value.is_number:
        mid = mpmath.mpf(str(sp.N(value, 40)))
        if not mpmath.isfinite(mid):
            raise Unenclosed(f"{value} is not finite")
        spread = abs(mid) * mpmath.mpf(2) ** -100 + mpmath.mpf(2) ** -300
        return iv.mpf([mid - spread, mid + spread])
    raise Unenclosed(f"{value} is not a number")


def excludes_zero(value: iv.mpf) -> bool:
    """Whether the interval holds no 0."""
    return bool(value.a > 0 or value.b < 0)


def ends(value: iv.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An interval's ends as plain numbers."""
    low, high = value._mpi_
    return mpmath.mpf(low), mpmath.mpf(high)
