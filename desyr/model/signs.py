"""Signs of exact numbers: the comparisons every exact geometric decision rests on.

An exact number here is a SymPy rational, or a polynomial in pi (and square roots of such numbers)
built from the numbers a config wrote.  Its sign is decided exactly where it is rational or expands
to 0, else by evaluation to :data:`DIGITS` digits once it is clear of 0; closer than that it is *not
decided* (None), and callers give no proof.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

#: digits to which a number that is not 0 (a polynomial in pi) is evaluated for its sign
DIGITS = 60


def cross(a: Any, b: Any, c: Any) -> Any:
    """Twice the signed area of the triangle a, b, c (positive: a left turn)."""
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def at_most(base: sp.Expr, scale: sp.Expr, square: sp.Expr, bound: sp.Expr) -> bool | None:
    """Whether ``base + scale*sqrt(square) <= bound`` (``scale`` and ``square`` at least 0), decided on the
    squares where the root is irrational: a disk tangent to a slanted edge is decided exactly."""
    gap = sign(bound - base)            # must be at least scale*sqrt(square), which is at least 0
    if gap is None:
        return None
    if gap < 0:
        return False
    return le(scale**2 * square, (bound - base) ** 2)


def sign(x: sp.Expr) -> int | None:
    """The sign of an exact real number: -1, 0 or 1, or None where it cannot be decided (a number that is
    not 0 by expansion and too close to 0 for :data:`DIGITS` digits)."""
    x = sp.expand(x)
    if x.is_Rational:
        return 1 if x.p > 0 else -1 if x.p < 0 else 0
    if x == 0:
        return 0
    try:
        value = x.evalf(DIGITS, strict=True)
    except Exception:  # noqa: BLE001 - SymPy's precision ran out, or not a number: undecided
        return None
    if not value.is_Float or abs(value) < sp.Float(10) ** (10 - DIGITS):
        return None
    return 1 if value > 0 else -1


def le(a: sp.Expr | None, b: sp.Expr | None) -> bool | None:
    if a is None or b is None:
        return None
    s = sign(b - a)
    return None if s is None else s >= 0


def lt(a: sp.Expr | None, b: sp.Expr | None) -> bool | None:
    if a is None or b is None:
        return None
    s = sign(b - a)
    return None if s is None else s > 0


def max_of(values: Sequence[sp.Expr | None]) -> sp.Expr | None:
    """The largest of exact numbers (None: two could not be compared)."""
    best = values[0]
    for v in values[1:]:
        if best is None or v is None:
            return None
        s = sign(v - best)
        if s is None:
            return None
        best = v if s > 0 else best
    return best


def min_of(values: Sequence[sp.Expr | None]) -> sp.Expr | None:
    worst = max_of([None if v is None else -v for v in values])
    return None if worst is None else -worst


def all_of(answers: Sequence[bool | None]) -> bool | None:
    """True when every answer is True, False when one is False, else None."""
    if False in answers:
        return False
    return True if all(a is True for a in answers) else None
