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
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from desyr.symbolic.special import MPMATH

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


def working_digits(exprs: Sequence[sp.Expr], digits: int, measured: int = 1) -> int | None:
    """The digits to evaluate ``exprs`` at, at least ``digits``; None where their numbers (or the ``measured``
    digits of their values, :func:`measured_digits`) need more than :data:`MOST_DIGITS`."""
    needed = max(digits, max(literal_digits(exprs), measured) + MOVE_BITS // 3 + MARGIN)
    return needed if needed <= MOST_DIGITS else None


def measured_digits(exprs: Sequence[sp.Expr], symbols: Sequence[sp.Symbol], X: np.ndarray, scale: float = 0.0) -> int:
    """The decimal digits the values of ``exprs`` at up to :data:`SIZING_ROWS` rows of ``X`` need (at least 1; a
    series' sums left out): those of the largest value a part depending on the variables takes, and for each sum
    among them how far its smallest summand is below its largest; and how far the largest part is above
    ``10**scale``, the size the values are judged against (what a sum loses below its summands matters where it
    is not far below that size: ``cosh(exp(-150)*x)*cos(exp(-150)*y) - 1`` is 2.6e-131*(x**2 - y**2), and on a
    problem written at 1e-130 that is its whole error; red team 44f).  Literals do not
    show every magnitude: ``1000*exp(230 + x/10**20)*log(1 + x*exp(-230 - x/10**20))`` writes no number above
    10**20, but is ``1000*x`` only at over 100 digits, and at fewer mpmath rounds it to 0 as doubles do (red team
    44e).  mpmath's exponents are unbounded, so a few digits show each part's size."""
    parts, sums = _varying_parts(tuple(sp.sympify(e) for e in exprs), tuple(symbols))
    if not sums and not parts or not len(X):
        return 1
    fn = _parts_function(tuple(symbols), parts)
    if fn is None:
        return MOST_DIGITS + 1
    rows = X[np.unique(np.linspace(0, len(X) - 1, min(SIZING_ROWS, len(X))).round().astype(int))]
    largest = 1.0
    with mpmath.workdps(SIZING_DIGITS):
        for row in rows:
            try:
                values = dict(zip(parts, fn(*[mpmath.mpf(float(v)) for v in row])))
            except (ArithmeticError, ValueError, TypeError, NameError, AttributeError):
                continue        # not defined there: the values themselves say so where they are measured
            largest = max(largest, _row_digits(values, sums, scale))
    return int(math.ceil(largest))


def _row_digits(values: dict[sp.Expr, Any], sums: tuple[sp.Add, ...], scale: float) -> float:
    sizes = {part: _size(value) for part, value in values.items()}
    largest = max((s - min(scale, 0.0) for s in sizes.values() if s is not None and s > scale), default=0.0)
    for node in sums:
        terms = [sizes.get(arg) for arg in node.args]
        known = [t for t in terms if t is not None]
        if not known:
            continue
        largest = max(largest, max(known) - min(known))
    return min(largest, float(MOST_DIGITS + 1))


#: rows of the points whose parts' values size the precision
SIZING_ROWS = 32
#: digits the parts are evaluated at to read their sizes
SIZING_DIGITS = 20
#: parts beyond this many are not sized one by one: the formula is taken to need more than the most digits
MOST_PARTS = 1500


@functools.lru_cache(maxsize=256)
def _varying_parts(exprs: tuple[sp.Expr, ...], symbols: tuple[sp.Symbol, ...]
                   ) -> tuple[tuple[sp.Expr, ...], tuple[sp.Add, ...]]:
    """The parts of ``exprs`` that depend on ``symbols``, with every summand of their sums, and those sums."""
    wanted = set(symbols)
    parts: dict[sp.Expr, None] = {}
    sums: dict[sp.Add, None] = {}
    for expr in exprs:
        finite = expr.replace(lambda e: isinstance(e, sp.Sum), lambda e: sp.Integer(0))
        for node in sp.preorder_traversal(finite):
            if not node.is_Atom and node.free_symbols & wanted:
                parts.setdefault(node, None)
                if isinstance(node, sp.Add):
                    sums.setdefault(node, None)
                    for arg in node.args:
                        parts.setdefault(arg, None)
    return tuple(parts), tuple(sums)


@functools.lru_cache(maxsize=256)
def _parts_function(symbols: tuple[sp.Symbol, ...], parts: tuple[sp.Expr, ...]) -> Any:
    if len(parts) > MOST_PARTS:
        return None
    try:
        return sp.lambdify(symbols, list(parts), modules=[MPMATH, "mpmath"], cse=True)
    except Exception:  # noqa: BLE001 - a part mpmath cannot print is sized as needing the most digits
        return None


def _size(value: Any) -> float | None:
    """log10 of ``|value|``, None where it is 0 or not finite."""
    try:
        a = abs(mpmath.mpmathify(value))
    except (TypeError, ValueError):
        return None
    if a == 0 or not mpmath.isfinite(a):
        return None
    return float(mpmath.log10(a))


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
    ``2**-MOVE_BITS * a/b`` (``b`` odd), ``a`` and ``b`` drawn from a hash of the row itself: the same point gets the
    same move in every call (``desyr verify --seed`` replays, and a point measured twice is measured alike), and
    fresh points fresh ones."""
    return [_moved_row(row, wanted) if wanted.any() else [mpmath.mpf(float(v)) for v in row]
            for row, wanted in zip(X, move)]


def _moved_row(row: np.ndarray, move: np.ndarray) -> list[mpmath.mpf]:
    # a hash, not a generator per row: a verdict moves thousands of rows, and seeding a generator for each
    # had been most of the verifier's time on some problems
    digest = hashlib.shake_256(np.ascontiguousarray(row, dtype=float).tobytes()).digest(16 * len(row))
    out = []
    for c, v in enumerate(row):
        value = mpmath.mpf(float(v))
        if move[c]:
            a = (int.from_bytes(digest[16 * c:16 * c + 8], "little") >> 3) | 1           # in [1, 2**61)
            b = ((int.from_bytes(digest[16 * c + 8:16 * c + 16], "little") >> 5) | 2 ** 59) * 2 + 1   # odd
            value = value + value * mpmath.mpf(a) / mpmath.mpf(b << MOVE_BITS)
        out.append(value)
    return out
