"""A numeric witness for every residual SymPy reduces to 0: its value at a few points, at high precision.

SymPy's ``expand`` and ``simplify`` decide the proof, and a bug in either would forge Proved; so a
residual they reduce to 0 must also vanish numerically where the proof needs it (interior points
for an equation, points of the set for a constraint).  The residual is evaluated with mpmath at
:data:`LOW` and at :data:`HIGH` digits: an identity's value is round-off, which shrinks by about
``10**(HIGH - LOW)`` between the two, while a residual that is not 0 keeps its value.  A point where
the residual cannot be evaluated (a pole that cancels symbolically) is passed over; with no point
left the residual is not witnessed, so not proved.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from desyr.model.geometry import Part
from desyr.model.patches import Q, R, S
from desyr.model.points import interior_points, latin_hypercube
from desyr.model.problem import Face, Problem
from desyr.model.sets import shape_set_points
from desyr.symbolic.special import MPMATH

LOW, HIGH = 30, 60
#: the high-precision value may be at most this fraction of the low one (round-off shrinks by 1e-30)
SHRINK = 1e-15
#: or at most this, absolutely (an exact 0 at LOW digits, round-off at HIGH digits)
FLOOR = 1e-45
POINTS = 3

Point = Mapping[sp.Symbol, float]


def vanishes(expr: sp.Expr, points: Sequence[Point]) -> bool:
    """Whether ``expr`` is 0 to round-off at ``points`` (each gives a value to every free symbol)."""
    free = sorted(expr.free_symbols, key=sp.default_sort_key)
    if not free:
        points = [{}]
    try:
        g = sp.lambdify(free, expr, modules=[MPMATH, "mpmath"])
    except Exception:  # noqa: BLE001 - an expression lambdify cannot print is not witnessed, never a crash
        return False
    judged = 0
    for point in points:
        if any(s not in point for s in free):
            return False
        low, high = magnitude(g, [point[s] for s in free], LOW), magnitude(g, [point[s] for s in free], HIGH)
        if low is None or high is None:
            continue
        judged += 1
        if not high <= max(SHRINK * low, FLOOR):
            return False
    return judged > 0


def magnitude(g: object, args: list[float], digits: int) -> float | None:
    """|g(args)| at ``digits`` digits (as a float; None where it cannot be evaluated or is not finite)."""
    try:
        with mpmath.workdps(digits):
            value = mpmath.mpmathify(g(*[mpmath.mpf(float(a)) for a in args]))  # type: ignore[operator]
            size = float(abs(value)) if mpmath.isfinite(value) else math.inf
    except (ArithmeticError, ValueError, TypeError, NameError, AttributeError):
        return None
    return size if math.isfinite(size) else None


def interior(problem: Problem, rng: np.random.Generator) -> list[Point]:
    """A few points of the domain, every variable given."""
    return _rows(problem, interior_points(problem, POINTS, rng, latin_hypercube))


def on_set(problem: Problem, where: Face | Part, rng: np.random.Generator) -> list[Point]:
    """A few points of a constraint's set: the variables and, on a boundary part, the parameters of its
    patch (the proof's residual there is a function of those)."""
    if problem.geometry is None:
        assert isinstance(where, Face)
        X = _face_points(problem, where, rng)
    else:
        X = shape_set_points(problem, [where], POINTS, rng, latin_hypercube)
    rows = _rows(problem, X)
    if isinstance(where, Part):
        columns = [problem.variable_names.index(v) for v in problem.geometry.space]  # type: ignore[union-attr]
        for row, p in zip(rows, X[:, columns]):
            row.update(_parameters(where.piece.patch.kind, where.piece.patch.data, p))  # type: ignore[attr-defined]
    return rows


def in_box(bounds: Mapping[sp.Symbol, tuple[sp.Expr, sp.Expr]], rng: np.random.Generator) -> list[Point]:
    """A few points of a box given by exact ranges (a set's span, :mod:`desyr.verify.spans`), inside it."""
    symbols = sorted(bounds, key=sp.default_sort_key)
    ends = [(float(lo), float(hi)) for lo, hi in (bounds[s] for s in symbols)]
    cube = latin_hypercube(rng, POINTS, len(symbols)) if symbols else np.zeros((POINTS, 0))
    return [{s: lo + 0.02 * (hi - lo) + 0.96 * (hi - lo) * u for s, (lo, hi), u in zip(symbols, ends, row)}
            for row in cube]


def _rows(problem: Problem, X: np.ndarray) -> list[Point]:
    return [{s: float(v) for s, v in zip(problem.symbols, row)} for row in X]


def _face_points(problem: Problem, face: Face, rng: np.random.Generator) -> np.ndarray:
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    X: np.ndarray = lo + latin_hypercube(rng, POINTS, problem.dim) * (hi - lo)
    for name, value in face.fixed:
        X[:, problem.variable_names.index(name)] = value
    return X


def _parameters(kind: str, d: tuple[float, ...], p: np.ndarray) -> dict[sp.Symbol, float]:
    """The patch parameters (:data:`S`, :data:`R`, :data:`Q`) of a point ``p`` on it (the inverse of its
    parametrisation; any value is a point of the whole patch, which is what the proof claims)."""
    if kind in ("arc", "side", "cap", "sphere"):
        s = math.atan2(p[1] - d[1], p[0] - d[0])
        if kind == "arc":
            return {S: s}
        if kind == "side":
            return {S: s, R: float(p[2])}
        if kind == "cap":
            return {S: s, R: math.hypot(p[0] - d[0], p[1] - d[1])}
        return {S: s, R: math.acos(max(-1.0, min(1.0, (p[2] - d[2]) / d[3])))}
    if kind == "ellipse":
        return {S: math.atan2((p[1] - d[1]) / d[3], (p[0] - d[0]) / d[2])}
    if kind == "segment":
        a, b = np.array(d[0:2]), np.array(d[2:4])
        return {S: float(np.dot(p[:2] - a, b - a) / np.dot(b - a, b - a))}
    axis = int(d[0])     # a face: its free coordinates in order
    free = [float(v) for i, v in enumerate(p) if i != axis]
    return dict(zip([S, R, Q], free))
