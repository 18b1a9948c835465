"""Points for mpmath that no formula can single out: the verifier's points moved off the doubles.

Every double is a dyadic rational, so a term such as ``sin(2**80*pi*x)`` is exactly 0 at every double in
[0, 1].  Doubles cannot see that (``2**80*pi`` rounds), but mpmath evaluates the doubles exactly and finds
the term 0 at each of them, so a formula off by such a term everywhere had been measured as exact
(red team 44c).  So where mpmath measures a residual, each coordinate that varies over the points is moved
by a relative ``2**-70`` times a quotient of two random integers, the denominator odd: its binary expansion
does not end, so the moved point has random bits down to the working precision.  The precision is raised
above the bits of the largest number the formula writes (:func:`literal_digits`), so that a multiplier
``2**N`` cannot reach past them.  A true solution holds at the moved points as at any other; a face's coordinate
(a column's least or greatest value) is not moved, so data on a face stay on the face.
"""
from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Sequence

import mpmath
import numpy as np
import sympy as sp

#: the relative size of the move (below a double's resolution of 2**-52)
MOVE_BITS = 70
#: digits kept beyond the bits of the largest number a formula writes
MARGIN = 30
#: past this many digits a formula's numbers are too large to measure: its values are left not finite
MOST_DIGITS = 4000


def literal_digits(exprs: Sequence[sp.Expr]) -> int:
    """The decimal digits of the largest or smallest number the expressions hold (at least 1): their
    literals, and every number a function of them makes (``exp(-300)``, ``1/erfc(20)``, ``exp(exp(6))``):
    a precision that does not reach below ``exp(-300)`` rounds ``1 + x*exp(-300)`` to 1 as doubles do (red
    team 44d).  A number that cannot be sized is taken as beyond :data:`MOST_DIGITS`."""
    return max((_expression_digits(sp.sympify(e)) for e in exprs), default=1)


@functools.lru_cache(maxsize=4096)
def _expression_digits(expr: sp.Expr) -> int:
    largest = 1.0
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Rational):
            largest = max(largest, _digits(int(node.p)), _digits(int(node.q)))
        elif isinstance(node, sp.Float) and node != 0:
            largest = max(largest, _magnitude(mpmath.mpf(node._mpf_)))
        elif node.is_number and not isinstance(node, (sp.Number, sp.NumberSymbol)) and not node.is_Atom:
            largest = max(largest, _sized(node))
    return int(math.ceil(largest))


def _sized(node: sp.Expr) -> float:
    """|log10| of a number-valued expression, or past :data:`MOST_DIGITS` where it cannot be evaluated."""
    try:
        value = mpmath.mpmathify(complex(node.evalf(15))) if node.has(sp.I) else mpmath.mpf(node.evalf(15))
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return float(MOST_DIGITS + 1)
    return _magnitude(abs(value)) if value != 0 else 1.0


def _magnitude(value: mpmath.mpf) -> float:
    if not mpmath.isfinite(value):
        return float(MOST_DIGITS + 1)
    return min(abs(float(mpmath.log10(abs(value)))), float(MOST_DIGITS + 1)) if value != 0 else 1.0


def _digits(n: int) -> float:
    return max(1.0, n.bit_length() * math.log10(2)) if n else 1.0


def working_digits(exprs: Sequence[sp.Expr], digits: int) -> int | None:
    """The digits to evaluate ``exprs`` at, at least ``digits``; None where their numbers need more than
    :data:`MOST_DIGITS`."""
    needed = max(digits, literal_digits(exprs) + MOVE_BITS // 3 + MARGIN)
    return needed if needed <= MOST_DIGITS else None


def varying(X: np.ndarray) -> np.ndarray:
    """Which entries of ``X`` (n, d) are moved: those of a column that takes more than one value, except at
    the column's least and greatest values (a face's coordinate, on the face's points or beside another
    face's in one constraint, stays on the face: ``sqrt(1 - x)`` at x = 1 is 0, just beyond it not real)."""
    if X.shape[0] < 2:
        return np.zeros(X.shape, dtype=bool)
    lo, hi = X.min(axis=0), X.max(axis=0)
    return np.asarray((X != lo) & (X != hi))


def moved_rows(X: np.ndarray, move: np.ndarray) -> list[list[mpmath.mpf]]:
    """The rows of ``X`` as mpf at the current precision, the entries ``move`` (same shape) says moved by a relative
    ``2**-MOVE_BITS * a/b`` (``b`` odd), drawn from a generator seeded by the points themselves: the same
    points give the same moves (``desyr verify --seed`` replays), and fresh points fresh ones."""
    if not np.any(move):
        return [[mpmath.mpf(float(v)) for v in row] for row in X]
    seed = int.from_bytes(hashlib.sha256(np.ascontiguousarray(X, dtype=float).tobytes()).digest()[:8], "little")
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 2 ** 61, size=X.shape)
    b = rng.integers(2 ** 59, 2 ** 60, size=X.shape) * 2 + 1
    scale = mpmath.mpf(2) ** -MOVE_BITS
    rows = []
    for i in range(X.shape[0]):
        rows.append([mpmath.mpf(float(v)) * (1 + scale * mpmath.mpf(int(a[i, c])) / mpmath.mpf(int(b[i, c])))
                     if move[i, c] else mpmath.mpf(float(v)) for c, v in enumerate(X[i])])
    return rows
