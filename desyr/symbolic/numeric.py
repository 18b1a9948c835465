"""Turning sympy expressions into vectorised numpy functions: :func:`lambdify` sends a sum-free expression
to :func:`desyr.symbolic.numpy_form.numpy_lambdify` (the names NumPy lacks, the numeric form) and one with
sums to its series evaluation here.

An expression with sums (a series) is evaluated at points vectorised as well (:class:`SeriesFunction`,
:func:`evaluate_series`): each sum's terms are computed for a block of indices at every point at once
(an array of indices times points), and summed.

How many terms: the fewest for which the proved tail bound over the points' box
(:func:`desyr.symbolic.series.sum_bound`) is within the tolerance, relative to the size of the sum's
first terms; at most the cap.  Where no bound holds (coefficients ~ 1/n at t = 0), the cap, and the
report says that no bound was reached.  Where the points' box needs many terms, the points are split
into smaller boxes (cut along one variable at its median, or an eighth from each end, while that saves
work), each with its own number of terms: a Laplace series on a square needs 2000 terms next to its data's
side and a few dozen elsewhere.  Every call records what it did in :class:`SeriesReport`.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from desyr.symbolic.numpy_form import numpy_lambdify
from desyr.symbolic.series import merge_sums, outer_sums, stable_term, sum_bound


def lambdify(args: Sequence[sp.Symbol], exprs: Sequence[sp.Expr]) -> Callable[..., Any]:
    """One numpy function returning every expression, sharing subexpressions.

    ``zoo`` (from ``1/0``, ``log(0)``, ``1/(x-x)``) becomes nan, so such expressions
    evaluate to non-finite values; an expression numpy cannot express at all is an
    :class:`~desyr.symbolic.expressions.ExpressionError` (one line), never a ``KeyError``.
    """
    if any(isinstance(e, sp.Basic) and e.has(sp.Sum) for e in exprs):
        return SeriesFunction(args, exprs)
    return numpy_lambdify(args, exprs)


def columns(X: np.ndarray) -> list[np.ndarray]:
    """The columns of a 2-D point array, one per variable (what a lambdified function takes)."""
    return [X[:, j] for j in range(X.shape[1])]


def broadcast(values: Any, n: int) -> np.ndarray:
    """Lambdified constants come back as scalars; make every output length n, real
    (a complex value, e.g. sqrt of a negative number, counts as non-finite)."""
    arr = np.asarray(values)
    if np.iscomplexobj(arr):
        arr = np.where(arr.imag == 0, arr.real, np.nan)
    arr = arr.astype(float, copy=False)
    return np.broadcast_to(arr, (n,)) if arr.ndim == 0 else arr


def evaluate(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray) -> np.ndarray:
    """Values of ``expr`` at the rows of ``X`` (columns in ``symbols`` order)."""
    fn = lambdify(symbols, [expr])
    with np.errstate(all="ignore"):
        try:
            values = fn(*columns(X))[0]
        except (ArithmeticError, TypeError):
            # e.g. a constant too large for a double (OverflowError), or an exact
            # integer that numpy cannot convert; the expression is not finite here
            return np.full(X.shape[0], np.nan)
        return broadcast(values, X.shape[0]).astype(float, copy=True)


# ---------------------------------------------------------------------------------------------- series
#: the tolerance of a truncation, relative to the size of the sum's first terms at the points
TOLERANCE = 1e-12
#: the most terms kept of each sum (per index)
CAP = 2000
#: ... of a double or triple sum, per index (their terms multiply)
NESTED_CAP = {2: 200, 3: 40}
#: index-by-point values computed at once
BLOCK = 1_000_000
#: the points are split into smaller boxes only where their box needs more terms than this, and more
#: terms times points than this (a bound costs milliseconds, about as much as this many terms) ...
FEW_TERMS = 40
SPLIT_WORK = 200_000
#: ... along one variable, at its points' median, or in three (an eighth at each end and the middle: a
#: Laplace series on a square whose data are on two opposite sides needs many terms next to both),
CUTS = ((0.5,), (0.125, 0.875))
#: ... while a part holds at least this many points, at most this many splits deep,
LEAST_PART = 16
SPLIT_DEPTH = 10
#: ... and where the split leaves at most this share of the work (terms times points)
SPLIT_GAIN = 0.7


@dataclass(frozen=True)
class SumReport:
    """What one evaluation of a sum did."""

    text: str
    terms: int
    bound: float | None          # the proved bound of the remainder at that many terms (None: no bound)
    tolerance: float
    capped: bool                 # the cap was reached before the bound met the tolerance

    def describe(self) -> str:
        reached = (f"tail bound {self.bound:.2g}" if self.bound is not None and np.isfinite(self.bound)
                   else "no tail bound holds on these points")
        cap = " (the cap)" if self.capped else ""
        return f"{self.terms} terms{cap}, {reached}"


@dataclass(frozen=True)
class SeriesReport:
    """The truncations of the last evaluation, one per sum."""

    sums: tuple[SumReport, ...]

    @property
    def terms(self) -> int:
        return max((s.terms for s in self.sums), default=0)

    @property
    def bound(self) -> float | None:
        """The sum of the sums' tail bounds, None where one has none."""
        if any(s.bound is None for s in self.sums):
            return None
        return float(sum(s.bound for s in self.sums if s.bound is not None))

    @property
    def capped(self) -> bool:
        return any(s.capped for s in self.sums)

    def describe(self) -> str:
        return "; ".join(s.describe() for s in self.sums)


class SeriesFunction:
    """What :func:`desyr.symbolic.numeric.lambdify` returns for expressions with sums: called with the
    arguments' values, returns the list of values; :attr:`report` says how each sum was truncated."""

    def __init__(self, args: Sequence[sp.Symbol], exprs: Sequence[sp.Expr], tolerance: float = TOLERANCE,
                 cap: int = CAP, remember: bool = True) -> None:
        merged = [merge_sums(e) for e in exprs]
        found: list[sp.Sum] = []
        for e in merged:
            found += [s for s in outer_sums(e) if s not in found]
        stand_ins = [sp.Dummy(f"series{i}", real=True) for i in range(len(found))]
        self.args = list(args)
        self.outer = lambdify([*args, *stand_ins], [e.xreplace(dict(zip(found, stand_ins))) for e in merged])
        self.sums = [SumEvaluator(s, args, tolerance, cap, remember) for s in found]
        self.report = SeriesReport(())

    def __call__(self, *values: Any) -> list[Any]:
        sums = [evaluator(values) for evaluator in self.sums]
        self.report = SeriesReport(tuple(e.last for e in self.sums if e.last is not None))
        return list(self.outer(*values, *sums))


class SumEvaluator:
    """The values of one sum at points (its outermost index here; inner ones by recursion)."""

    def __init__(self, total: sp.Sum, args: Sequence[sp.Symbol], tolerance: float, cap: int,
                 remember: bool = True) -> None:
        self.total, self.args, self.tolerance, self.cap, self.remember = total, list(args), tolerance, cap, remember
        *inner, (index, lower, upper) = total.limits
        self.index, self.lower = index, int(lower)
        self.count = None if upper is sp.oo else int(upper) - int(lower) + 1
        term = sp.Sum(total.function, *inner) if inner else total.function
        self.used = [a for a in args if a in total.free_symbols]
        if inner:               # the inner sums at every outer index at once, with the nested sum's cap
            self.cap = min(cap, NESTED_CAP.get(len(total.limits), 20))
            self.term: Callable[..., Any] = SeriesFunction([index, *args], [term], tolerance, self.cap, remember=False)
        else:
            self.term = _term_function(term, index, self.lower, tuple(args))
        self.last: SumReport | None = None

    def __call__(self, values: Sequence[Any]) -> np.ndarray:
        arrays = np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in values]) if values else []
        if not self.remember or sum(a.size for a in arrays) > REMEMBER_SIZE:
            return self._values(arrays)
        key = (self.total, tuple(self.args), self.tolerance, self.cap,
               tuple((a.shape, hashlib.sha1(np.ascontiguousarray(a).tobytes()).digest()) for a in arrays))
        if key not in _VALUES:
            if len(_VALUES) >= VALUES_KEPT:
                _VALUES.pop(next(iter(_VALUES)))
            _VALUES[key] = (self._values(arrays), self.last)
        values_here, self.last = _VALUES[key]
        return values_here.copy()

    def _values(self, arrays: Sequence[np.ndarray]) -> np.ndarray:
        shape = arrays[0].shape if arrays else ()
        first = self._block(self.lower, min(self.lower + 3, self._top(1)), arrays, shape)
        scale = float(np.max(np.abs(first), initial=0.0)) if np.all(np.isfinite(first)) else 1.0
        tolerance = self.tolerance * (scale if scale > 0 else 1.0)
        whole = self._choose(arrays, tolerance)
        flat = [a.reshape(-1) for a in arrays]
        parts = self._parts(flat, np.arange(int(np.prod(shape))), whole, tolerance, 0) if arrays else []
        if len(parts) <= 1:
            terms, bound = whole
            total = self._block(self.lower, self.lower + terms, arrays, shape)
        else:
            out = np.zeros(int(np.prod(shape)))
            for rows, (terms_here, _) in parts:
                out[rows] = self._block(self.lower, self.lower + terms_here, [a[rows] for a in flat], (len(rows),))
            total = out.reshape(shape)
            terms = max(t for _, (t, _) in parts)
            bounds = [b for _, (_, b) in parts]
            bound = None if any(b is None for b in bounds) else max(b for b in bounds if b is not None)
        capped = self.count is None and (bound is None or bound > tolerance)
        self.last = SumReport(str(self.total)[:120], terms, 0.0 if self.count is not None else bound, tolerance, capped)
        return total

    def _parts(self, flat: Sequence[np.ndarray], rows: np.ndarray, chosen: tuple[int, float | None],
               tolerance: float, depth: int) -> list[tuple[np.ndarray, tuple[int, float | None]]]:
        """The points ``rows`` as parts, each with its terms and bound: cut along one variable (see
        :data:`CUTS`) where the parts' own bounds save work (:data:`SPLIT_GAIN`), recursively."""
        terms = chosen[0]
        if self.count is not None or terms <= FEW_TERMS or len(rows) * terms < SPLIT_WORK or \
                len(rows) < 2 * LEAST_PART or depth >= SPLIT_DEPTH:
            return [(rows, chosen)]
        best: tuple[float, list[tuple[np.ndarray, tuple[int, float | None]]]] | None = None
        for a, v in zip(self.args, flat):
            if a not in self.used:
                continue
            here = v[rows]
            for quantiles in CUTS:
                sides = np.searchsorted(np.quantile(here, quantiles), here, side="left")
                pieces = [rows[sides == k] for k in range(len(quantiles) + 1)]
                if min(len(h) for h in pieces) < LEAST_PART:
                    continue
                picked = [(h, self._choose([w[h] for w in flat], tolerance)) for h in pieces]
                work = float(sum(len(h) * c[0] for h, c in picked))
                if best is None or work < best[0]:
                    best = (work, picked)
        if best is None or best[0] > SPLIT_GAIN * len(rows) * terms:
            return [(rows, chosen)]
        return [part for h, c in best[1] for part in self._parts(flat, h, c, tolerance, depth + 1)]

    def _top(self, at_least: int) -> int:
        return self.lower + (self.count if self.count is not None else max(at_least, 1))

    def _choose(self, arrays: Sequence[np.ndarray], tolerance: float) -> tuple[int, float | None]:
        if self.count is not None:
            return self.count, 0.0
        box = {a: _outward(float(np.min(v)), float(np.max(v))) for a, v in zip(self.args, arrays)
               if a in self.used and v.size}
        if not all(np.isfinite(lo) and np.isfinite(hi) for lo, hi in box.values()):
            return self.cap, None
        tolerance = 10.0 ** (math.floor(2 * math.log10(tolerance)) / 2) if tolerance > 0 else tolerance
        key = (self.total, self.cap, tuple(sorted((str(a), lo, hi) for a, (lo, hi) in box.items())), tolerance)
        if key not in _CHOSEN:
            bound = sum_bound(self.total, box)
            terms = None if bound is None else bound.terms_for(tolerance, self.cap)
            if len(_CHOSEN) >= CHOSEN_KEPT:
                _CHOSEN.clear()
            _CHOSEN[key] = ((self.cap, None if bound is None else bound.after(self.cap)) if terms is None
                            else (terms, bound.after(terms) if bound is not None else None))
        return _CHOSEN[key]

    def _block(self, start: int, stop: int, arrays: Sequence[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
        total = np.zeros(shape)
        size = max(int(np.prod(shape)), 1)
        step = max(1, BLOCK // size)
        with np.errstate(all="ignore"):
            for low in range(start, stop, step):
                ns = np.arange(low, min(low + step, stop), dtype=float).reshape((-1,) + (1,) * len(shape))
                values = np.asarray(self.term(ns, *[a[None, ...] for a in arrays])[0], dtype=float)
                values = np.broadcast_to(values, (len(ns),) + shape)
                total = total + values.sum(axis=0)
        return total


def _term_function(term: sp.Expr, index: sp.Symbol, lower: int, args: tuple[sp.Symbol, ...]) -> Callable[..., Any]:
    """The compiled term of a sum (its stable form, :func:`~desyr.symbolic.series.stable_term`), compiled once
    for every evaluation of the same sum: a run lambdifies its answer's sums several times (tens of ms each)."""
    key = (term, index, lower, args)
    if key not in _COMPILED:
        if len(_COMPILED) >= CHOSEN_KEPT:
            _COMPILED.clear()
        _COMPILED[key] = lambdify([index, *args], [stable_term(term, {index: (float(lower), math.inf)})])
    return _COMPILED[key]


_COMPILED: dict[tuple[object, ...], Callable[..., Any]] = {}


#: the values of a sum at points (and what its evaluation did), by sum, tolerance, cap and the points' bytes:
#: a run measures its answer on the same verification points for its gauge, its residuals, its errors
#: against a reference that is the same series and its truncation record (a wave's 2000 terms at 2000
#: points each time), and draws the answer and the reference on the same grid
_VALUES: dict[tuple[object, ...], tuple[np.ndarray, SumReport | None]] = {}
VALUES_KEPT = 16
#: ... of an outermost sum only (an inner one is evaluated at blocks of indices), at few enough points
REMEMBER_SIZE = 100_000

#: the terms chosen (and the bound they reach) for a sum, a cap, a box and a tolerance: every evaluation
#: of the same sum on the same points (a run measures its answer several times) shares its bounds
_CHOSEN: dict[tuple[object, ...], tuple[int, float | None]] = {}
CHOSEN_KEPT = 4096


def _outward(lo: float, hi: float) -> tuple[float, float]:
    """``[lo, hi]`` widened outward to 4 significant digits: a bound over the wider box holds on the
    narrower one, and a refit whose constants move a little reuses it."""
    def grid(value: float, up: bool) -> float:
        if value == 0 or not math.isfinite(value):
            return value
        step = 10.0 ** (math.floor(math.log10(abs(value))) - 3)
        return (math.ceil(value / step) if up else math.floor(value / step)) * step
    return grid(lo, False), grid(hi, True)


@dataclass(frozen=True)
class SeriesValues:
    """Values of an expression with sums at points, and how its sums were truncated."""

    values: np.ndarray
    report: SeriesReport

    @property
    def terms(self) -> int:
        return self.report.terms

    @property
    def bound(self) -> float | None:
        return self.report.bound

    @property
    def capped(self) -> bool:
        return self.report.capped


def evaluate_series(expr: sp.Expr, variables: Sequence[sp.Symbol], points: np.ndarray,
                    tolerance: float | None = None, cap: int | None = None) -> SeriesValues:
    """Values of ``expr`` at the rows of ``points``, each sum cut where its proved tail bound over the
    points' box is within ``tolerance`` (relative to the size of its first terms), at most ``cap`` terms."""
    function = SeriesFunction(variables, [expr], TOLERANCE if tolerance is None else tolerance,
                              CAP if cap is None else cap)
    X = np.asarray(points, dtype=float).reshape(len(points), -1)
    with np.errstate(all="ignore"):
        values = broadcast(function(*columns(X))[0], X.shape[0]).astype(float, copy=True)
    return SeriesValues(values, function.report)


def evaluate_series_many(exprs: Sequence[sp.Expr], variables: Sequence[sp.Symbol], points: np.ndarray,
                         tolerance: float, cap: int) -> list[np.ndarray]:
    """:func:`evaluate_series` for several expressions at once (their sums truncated together)."""
    function = SeriesFunction(variables, list(exprs), tolerance, cap)
    X = np.asarray(points, dtype=float).reshape(len(points), -1)
    with np.errstate(all="ignore"):
        return [broadcast(v, X.shape[0]).astype(float, copy=True) for v in function(*columns(X))]
