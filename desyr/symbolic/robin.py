"""The positive roots of ``f(s) = (a - b*s**2)*sin(s) + c*s*cos(s)``, each in a bracket proved to hold
exactly one root, where ``f'`` cannot vanish: what ``robinroot(k, a, b, c)`` evaluates.

The brackets, for exact real ``a, b, c`` not all 0:

1. **Far out, one root per known interval.**  With ``b != 0`` the roots of ``f`` with ``cos(s) != 0`` are
   those of ``F(s) = tan(s) - g(s)``, ``g(s) = c*s/(b*s**2 - a)``.  For ``s**2 >= 2|a/b|`` and ``s**2 >
   6|c/b|``, ``|b*s**2 - a| >= |b|*s**2/2`` and ``|g'(s)| = |c|*|b*s**2 + a|/(b*s**2 - a)**2 < 1 <=
   sec(s)**2``, so ``F`` increases strictly from -oo to +oo on each ``((m - 1/2)*pi, (m + 1/2)*pi)``
   above that point: exactly one root there, and none at its ends, where ``f = +-(a - b*s**2) != 0``.
   With ``b = 0, c != 0`` the same holds for ``cot(s) + a/(c*s)`` on ``(m*pi, (m + 1)*pi)`` once
   ``s**2 > |a/c|``, where ``f(m*pi) = c*m*pi*(-1)**m != 0``.
2. **Below that point, isolated by interval arithmetic** (``mpmath.iv``, outward rounding): near 0,
   ``f(s)/s`` is its Taylor polynomial (degree 8) plus the alternating series' remainder, whose lowest
   non-zero coefficient dominates the rest on ``(0, delta]``: no root there.  On ``[delta, start]`` the
   interval is split until each piece either encloses ``f`` away from 0 (no root) or encloses ``f'``
   away from 0 with ``f`` of opposite signs at its ends (exactly one, simple, root).

The k-th root is then found in its bracket by a bracketing solver at the precision asked; the value
returned is checked to lie in its bracket.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp
from mpmath import iv

from desyr.symbolic.interval_numbers import excludes_zero, interval_precision, number

PREC = 120                 # bits of the interval layout
PIECES = 20000             # pieces the isolation may examine
MAX_START = 20000.0        # the layout's start (in units of pi) beyond which the roots are not laid out
TAYLOR = 4                 # f(s)/s's Taylor polynomial in s**2: degree 2*TAYLOR


@dataclass(frozen=True)
class Layout:
    """Where each root lies: ``low`` brackets the roots in ``(0, start]``; beyond, root
    ``len(low) + i`` (i = 1, 2, ...) lies in the ``i``-th known interval from ``first``."""

    low: tuple[tuple[mpmath.mpf, mpmath.mpf], ...]
    first: int
    kind: str              # "tan": ((m - 1/2)*pi, (m + 1/2)*pi); "cot": (m*pi, (m + 1)*pi)

    def interval(self, k: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        """The bracket of the k-th root (k >= 1), at the current mpmath precision."""
        if k <= len(self.low):
            return self.low[k - 1]
        m = self.first + (k - len(self.low) - 1)
        if self.kind == "tan":
            return (m - mpmath.mpf(1) / 2) * mpmath.pi, (m + mpmath.mpf(1) / 2) * mpmath.pi
        return m * mpmath.pi, (m + 1) * mpmath.pi


def _exact(constants: Sequence[sp.Expr]) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    a, b, c = (sp.sympify(x) for x in constants)
    for x in (a, b, c):
        if not x.is_number or x.is_real is not True or x.has(sp.Float):
            raise ValueError(f"robinroot's constants must be exact real numbers, got {x}")
    if a.is_zero and b.is_zero and c.is_zero:
        raise ValueError("robinroot's constants a, b, c are all 0: every s is a root")
    return a, b, c


@functools.lru_cache(maxsize=64)
def layout(constants: tuple[sp.Expr, sp.Expr, sp.Expr]) -> Layout:
    """The brackets of the roots for exact ``(a, b, c)`` (:class:`ValueError` where they cannot be laid out)."""
    a, b, c = _exact(constants)
    with interval_precision(PREC), mpmath.workprec(PREC):
        A, B, C = (number(x) for x in (a, b, c))
        if not b.is_zero:
            kind, square = "tan", max((2 * abs(A / B)).b, (6 * abs(C / B)).b)
            start_at = float(mpmath.sqrt(square)) * 1.01 / math.pi + 0.5
        elif not c.is_zero:
            kind, square = "cot", abs(A / C).b
            start_at = float(mpmath.sqrt(square)) * 1.01 / math.pi
        else:
            return Layout((), 1, "tan")            # a*sin(s): the roots k*pi, each alone in its interval
        if start_at > MAX_START:
            raise ValueError(f"robinroot{(a, b, c)}: the roots are regular only beyond {start_at:.3g}*pi; "
                             f"scale the problem")
        first = max(1, math.ceil(start_at))
        start = mpmath.pi * (first - (mpmath.mpf(1) / 2 if kind == "tan" else 0))
        low = _isolate(A, B, C, _clear_of_zero(a, b, c), start)
    return Layout(tuple(low), first, kind)


def _clear_of_zero(a: sp.Expr, b: sp.Expr, c: sp.Expr) -> mpmath.mpf:
    """A ``delta > 0`` with no root of ``f`` in ``(0, delta]``, from ``f(s)/s``'s Taylor polynomial
    ``sum_j (-1)**j*(a/(2j+1)! + b/(2j-1)! + c/(2j)!)*s**(2j)`` and its alternating remainder."""
    coefficients = [(-1) ** j * (a / sp.factorial(2 * j + 1) + (b / sp.factorial(2 * j - 1) if j else 0)
                                 + c / sp.factorial(2 * j)) for j in range(TAYLOR + 1)]
    lowest = next((j for j, q in enumerate(coefficients) if not number(q).a <= 0 <= number(q).b), None)
    if lowest is None or any(sp.simplify(q).is_zero is not True for q in coefficients[:lowest]):
        raise ValueError(f"robinroot{(a, b, c)}: the roots near 0 cannot be told apart")
    remainder = (abs(number(a)) / math.factorial(2 * TAYLOR + 3) + abs(number(b)) / math.factorial(2 * TAYLOR + 1)
                 + abs(number(c)) / math.factorial(2 * TAYLOR + 2))
    head = abs(number(coefficients[lowest]))
    delta = mpmath.mpf(1)
    for _ in range(80):
        rest = sum((abs(number(q)) * iv.mpf(delta) ** (2 * (j - lowest))
                    for j, q in enumerate(coefficients) if j > lowest), iv.mpf(0))
        rest += remainder * iv.mpf(delta) ** (2 * TAYLOR + 2 - 2 * lowest)
        if head.a > rest.b:
            return delta
        delta /= 2
    raise ValueError(f"robinroot{(a, b, c)}: no root-free neighbourhood of 0 found")


def _f(A: iv.mpf, B: iv.mpf, C: iv.mpf, s: iv.mpf) -> iv.mpf:
    return (A - B * s * s) * iv.sin(s) + C * s * iv.cos(s)


def _df(A: iv.mpf, B: iv.mpf, C: iv.mpf, s: iv.mpf) -> iv.mpf:
    return (A + C - B * s * s) * iv.cos(s) - (2 * B + C) * s * iv.sin(s)


def _isolate(A: iv.mpf, B: iv.mpf, C: iv.mpf, delta: mpmath.mpf,
             start: mpmath.mpf) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Brackets, in order, of every root in ``[delta, start]``, each proved to hold exactly one."""
    pieces: list[tuple[mpmath.mpf, mpmath.mpf]] = [(delta, start)]
    found: list[tuple[mpmath.mpf, mpmath.mpf]] = []
    for _ in range(PIECES):
        if not pieces:
            return sorted(found)
        lo, hi = pieces.pop()
        whole = iv.mpf([lo, hi])
        if excludes_zero(_f(A, B, C, whole)):
            continue
        ends = _f(A, B, C, iv.mpf(lo)), _f(A, B, C, iv.mpf(hi))
        if excludes_zero(_df(A, B, C, whole)) and all(excludes_zero(e) for e in ends):
            if (ends[0].b < 0) != (ends[1].b < 0):
                found.append((lo, hi))
            continue
        middle = mpmath.ldexp(mpmath.floor(mpmath.ldexp(lo + hi, 40) / 2), -40)     # a binary point inside
        if not lo < middle < hi:
            break
        pieces += [(middle, hi), (lo, middle)]
    raise ValueError("robinroot: the roots below the regular range could not be isolated")


def _constants_mp(constants: Sequence[sp.Expr]) -> tuple[mpmath.mpf, ...]:
    return tuple(mpmath.mpf(str(sp.N(x, mpmath.mp.dps + 10))) for x in _exact(constants))


def root(constants: Sequence[sp.Expr], k: int, prec: int) -> mpmath.mpf:
    """The k-th positive root at ``prec`` bits."""
    return _root(tuple(sp.sympify(x) for x in constants), int(k), int(prec))


@functools.lru_cache(maxsize=4096)
def _root(constants: tuple[sp.Expr, ...], k: int, prec: int) -> mpmath.mpf:
    if k < 1:
        raise ValueError(f"robinroot: the index must be a positive integer, got {k}")
    bracket = layout(tuple(sp.sympify(x) for x in constants))
    with mpmath.workprec(prec):
        a, b, c = _constants_mp(constants)
        lo, hi = bracket.interval(k)
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)

        def f(s: mpmath.mpf) -> mpmath.mpf:
            return (a - b * s * s) * mpmath.sin(s) + c * s * mpmath.cos(s)
        # the bracket holds one simple root: the solver's own test of |f| (which scales with s**2) is left out,
        # and the answer is checked to lie in the bracket
        value = mpmath.findroot(f, (lo, hi), solver="illinois", tol=mpmath.mpf(2) ** (-2 * prec), maxsteps=400,
                                verify=False)
        if not lo <= value <= hi:
            raise ArithmeticError(f"robinroot: the solver left the bracket of root {k}")
        return value


def roots_float(constants: tuple[sp.Expr, ...], count: int) -> np.ndarray:
    """The first ``count`` roots as doubles: the ones below the regular range through :func:`root`, the
    rest by bisection of their known intervals, vectorised."""
    bracket = layout(tuple(sp.sympify(x) for x in constants))
    few = min(count, len(bracket.low))
    head = [float(root(constants, k, 64)) for k in range(1, few + 1)]
    if count <= few:
        return np.array(head, dtype=float)
    a, b, c = (float(x) for x in _exact(constants))
    m = bracket.first + np.arange(count - few, dtype=float)
    shift = 0.5 if bracket.kind == "tan" else 0.0
    lo, hi = (m - shift) * np.pi, (m + 1 - shift) * np.pi

    def f(s: np.ndarray) -> np.ndarray:
        return np.asarray((a - b * s * s) * np.sin(s) + c * s * np.cos(s))
    at_lo = np.sign(f(lo))
    for _ in range(64):
        middle = (lo + hi) / 2
        same = np.sign(f(middle)) == at_lo
        lo, hi = np.where(same, middle, lo), np.where(same, hi, middle)
    return np.concatenate([np.array(head, dtype=float), (lo + hi) / 2])
