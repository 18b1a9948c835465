"""Where a constraint's set lies, exactly: the variables as functions of the set's parameters, and the
parameters' ranges as the exact numbers the set has, for the proofs and the branch conditions.

A constraint on part of a circle holds on that arc, not on the whole circle: ``u = sqrt(1 - x**2)``
on the upper half of the unit circle is ``u = y`` there and ``u = -y`` on the lower half, so a proof
that asks for the whole circle refuses the true solution ``y``.  So each set is written as
*spans*: the substitution of its parametrisation (``x = cos(s), y = sin(s)`` for an arc, the fixed
values for a face), and for each piece the exact range of each remaining symbol (the arc's ``s``, a
face's free variables, time, parameters).  On a plane curve the ends of a piece are where another
primitive's curve, or a predicate (``circle where y > 0``), cuts it; they are computed exactly
(a polynomial in the edge's parameter, or in cos and sin of the arc's), and each float end of the
piece must match exactly one of them, else the whole patch's range is used: a range that holds the
part is always sound to prove on, a smaller one never.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
import sympy as sp

from desyr.model.geometry import Part
from desyr.model.patches import Q, R, S
from desyr.model.problem import Face, Problem
from desyr.model.signs import sign
from desyr.symbolic.time_limit import OutOfTime, time_limit
from desyr.verify.regions import domain_bounds

#: wall time for the exact cuts of one part
SECONDS = 3.0
#: a float end of a piece matches an exact cut this close (relative to the parameter's range)
SNAP = 1e-6
_C, _S = sp.Dummy("c", real=True), sp.Dummy("s", real=True)     # cos and sin of an arc's angle


@dataclass(frozen=True)
class Span:
    """A piece of a set: ``values`` put in the variables (a face's exact numbers, a patch's parametrisation),
    ``bounds`` the exact range of every symbol left (parameters, the free variables, time)."""

    values: dict[sp.Symbol, sp.Expr]
    bounds: dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]


def spans(problem: Problem, where: Face | Part) -> list[Span] | None:
    """The pieces of a set, exactly (None: a face whose values are not exact numbers)."""
    symbols = problem.vocabulary.var_symbols
    box = domain_bounds(problem)
    if isinstance(where, Face):
        values = {symbols[name]: _exact(problem, value) for name, value in where.fixed}
        return [Span(values, {s: b for s, b in box.items() if s not in values})]
    assert problem.geometry is not None
    patch = where.piece.patch
    space = [symbols[v] for v in problem.geometry.space]
    values = dict(zip(space, patch.parametrisation()))
    rest = {s: b for s, b in box.items() if s not in values}
    return [Span(values, {**rest, **ranges}) for ranges in _parameter_ranges(problem, where)]


def _exact(problem: Problem, value: float) -> sp.Expr:
    from desyr.model.written import exact_number
    return exact_number(value, problem.numbers)


# ------------------------------------------------------------------ a patch's parameters
def _parameter_ranges(problem: Problem, part: Part) -> list[dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]]:
    """The exact ranges of the patch's parameters on each piece of the part (the whole patch's where the
    piece's ends are not matched exactly: a range that holds the part)."""
    patch = part.piece.patch
    e = patch.exact_data()
    whole = _whole(patch.kind, e)
    if patch.dim != 2 or patch.kind not in ("arc", "ellipse", "segment", "face"):
        return [whole]
    try:
        with time_limit(SECONDS):
            pieces = _curve_pieces(problem, part)
    except OutOfTime:
        pieces = None
    if pieces is None:
        return [whole]
    if patch.kind != "face":
        return [{S: piece} for piece in pieces]
    axis = int(patch.data[0])
    lo, hi = e[3 + 2 * (1 - axis)], e[4 + 2 * (1 - axis)]       # the face's free coordinate
    return [{S: (lo + a * (hi - lo), lo + b * (hi - lo))} for a, b in pieces]


def _whole(kind: str, e: tuple[sp.Expr, ...]) -> dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]:
    """Every parameter's range over the whole patch (angles over a whole turn, as the witnesses' atan2)."""
    turn = (-sp.pi, sp.pi)
    if kind in ("arc", "ellipse"):
        return {S: (sp.Integer(0), 2 * sp.pi)}
    if kind == "segment":
        return {S: (sp.Integer(0), sp.Integer(1))}
    if kind == "sphere":
        return {S: turn, R: (sp.Integer(0), sp.pi)}
    if kind == "side":
        return {S: turn, R: (e[3], e[4])}
    if kind == "cap":
        return {S: turn, R: (sp.Integer(0), e[2])}
    axis, dims = int(float(e[0])), (len(e) - 3) // 2
    free = iter([S, R, Q])
    return {next(free): (e[3 + 2 * i], e[4 + 2 * i]) for i in range(dims) if i != axis}


# ------------------------------------------------------------------ plane curves: exact cuts
def _curve_pieces(problem: Problem, part: Part) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """The part's parameter intervals on its curve (an arc's angle in [0, 2 pi], an edge's fraction in
    [0, 1]), their ends exact, or None."""
    patch = part.piece.patch
    conic = patch.kind in ("arc", "ellipse")
    start, stop = (sp.Integer(0), 2 * sp.pi) if conic else (sp.Integer(0), sp.Integer(1))
    point = _curve_point(patch.kind, patch.exact_data(), conic)
    cuts = [start, stop]
    piece = part.piece
    if piece.whole is not None:
        for j, prim in enumerate(piece.whole.primitives()):
            if j == piece.index:
                continue
            for other in prim.patches():
                found = _cuts(point, _implicit(other.kind, _numbers(problem, other)), conic)
                if found is None:
                    return None
                cuts += found
    runs = list(piece.intervals) if piece.intervals is not None else [(float(start), float(stop))]
    exact = [_snapped(run, cuts, float(stop - start)) for run in runs]
    if any(r is None for r in exact):
        return None
    intervals = [r for r in exact if r is not None]
    if part.condition is None:
        return intervals
    return _kept(problem, part, point, intervals, conic)


def _numbers(problem: Problem, patch: object) -> tuple[sp.Expr, ...]:
    from dataclasses import replace

    from desyr.model.patches import Patch
    assert isinstance(patch, Patch)
    return replace(patch, numbers=problem.geometry.numbers if problem.geometry else ()).exact_data()


def _curve_point(kind: str, e: tuple[sp.Expr, ...], conic: bool) -> tuple[sp.Expr, sp.Expr]:
    """The curve's point: in cos and sin of its angle (a conic), or in its parameter in [0, 1]."""
    if kind == "arc":
        return e[0] + e[2] * _C, e[1] + e[2] * _S
    if kind == "ellipse":
        return e[0] + e[2] * _C, e[1] + e[3] * _S
    if kind == "segment":
        return e[0] + _S * (e[2] - e[0]), e[1] + _S * (e[3] - e[1])
    axis = int(float(e[0]))
    lo, hi = [e[3], e[5]], [e[4], e[6]]
    lo[axis] = hi[axis] = e[1]
    return lo[0] + _S * (hi[0] - lo[0]), lo[1] + _S * (hi[1] - lo[1])


def _implicit(kind: str, e: tuple[sp.Expr, ...]) -> sp.Expr:
    """Another patch's supporting line or conic as an equation F(x, y) = 0 in the dummies (X, Y)."""
    X, Y = _XY
    if kind == "face":
        return (X, Y)[int(float(e[0]))] - e[1]
    if kind == "segment":
        return (e[2] - e[0]) * (Y - e[1]) - (e[3] - e[1]) * (X - e[0])
    if kind == "arc":
        return (X - e[0]) ** 2 + (Y - e[1]) ** 2 - e[2] ** 2
    return ((X - e[0]) / e[2]) ** 2 + ((Y - e[1]) / e[3]) ** 2 - 1


_XY = (sp.Dummy("X", real=True), sp.Dummy("Y", real=True))


def _cuts(point: tuple[sp.Expr, sp.Expr], implicit: sp.Expr, conic: bool) -> list[sp.Expr] | None:
    """The curve's parameters where ``implicit`` vanishes, exactly (none where the curve lies on it)."""
    F = sp.expand(implicit.xreplace(dict(zip(_XY, point))))
    if not conic:
        if F == 0:
            return []
        roots = sp.Poly(F, _S).all_roots() if F.is_polynomial(_S) and _rational(F) else sp.solve(F, _S)
        return [r for r in roots if r.is_real is not False and sign(sp.im(r)) == 0]
    if sp.expand(F.subs(_S**2, 1 - _C**2)) == 0:
        return []                                   # the same circle: no cut
    try:
        solutions = sp.solve([F, _C**2 + _S**2 - 1], [_C, _S], dict=True)
    except NotImplementedError:
        return None
    out = []
    for sol in solutions:
        c, s = sol.get(_C), sol.get(_S)
        if c is None or s is None or sign(sp.im(c)) != 0 or sign(sp.im(s)) != 0:
            continue
        angle = sp.atan2(s, c)
        out.append(angle + 2 * sp.pi if sign(angle) == -1 else angle)
    return out


def _rational(F: sp.Expr) -> bool:
    return all(c.is_Rational for c in sp.Poly(F, _S).coeffs())


def _snapped(run: tuple[float, float], cuts: Sequence[sp.Expr], span: float) -> tuple[sp.Expr, sp.Expr] | None:
    """A float interval of a piece as exact cuts: each end matches exactly one cut (None otherwise)."""
    ends = []
    for end in run:
        near: list[sp.Expr] = []
        for c in cuts:
            if abs(float(c) - end) <= SNAP * span and not any(sign(c - d) == 0 for d in near):
                near.append(c)
        if len(near) != 1:
            return None
        ends.append(near[0])
    return (ends[0], ends[1]) if sign(ends[1] - ends[0]) == 1 else None


def _kept(problem: Problem, part: Part, point: tuple[sp.Expr, sp.Expr], intervals: list[tuple[sp.Expr, sp.Expr]],
          conic: bool) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """The intervals cut further where the predicate's margins vanish, kept where it holds (checked at
    each piece's middle, at 30 digits, clear of 0)."""
    assert part.condition is not None and problem.geometry is not None
    symbols = [problem.vocabulary.var_symbols[v] for v in problem.geometry.space]
    margins = list(part.condition.args) if isinstance(part.condition, sp.Min) else [part.condition]
    cuts: list[sp.Expr] = []
    for m in margins:
        if not m.is_polynomial(*symbols):
            return None
        found = _cuts(point, m.xreplace(dict(zip(symbols, _XY))), conic)
        if found is None:
            return None
        cuts += found
    at = _angle_point(point, conic)
    kept: list[tuple[sp.Expr, sp.Expr]] = []
    for lo, hi in intervals:
        inner = sorted({c for c in cuts if sign(c - lo) == 1 and sign(hi - c) == 1}, key=float)
        edges = [lo, *inner, hi]
        for a, b in zip(edges, edges[1:]):
            middle = [coordinate.xreplace({_T: (a + b) / 2}) for coordinate in at]
            values = [m.xreplace(dict(zip(symbols, middle))) for m in margins]
            with mpmath.workdps(30):
                sizes = [sp.N(v, 30) for v in values]
            if any(abs(v) < 1e-20 for v in sizes):
                return None
            if all(v > 0 for v in sizes):
                kept.append((a, b))
    return _merged(kept)


_T = sp.Dummy("t", real=True)


def _angle_point(point: tuple[sp.Expr, sp.Expr], conic: bool) -> tuple[sp.Expr, sp.Expr]:
    """The curve's point in one parameter ``_T``: the angle for a conic, the fraction for a line."""
    swap = {_C: sp.cos(_T), _S: sp.sin(_T)} if conic else {_S: _T}
    return point[0].xreplace(swap), point[1].xreplace(swap)


def _merged(intervals: list[tuple[sp.Expr, sp.Expr]]) -> list[tuple[sp.Expr, sp.Expr]]:
    out: list[tuple[sp.Expr, sp.Expr]] = []
    for a, b in intervals:
        if out and sp.expand(out[-1][1] - a) == 0:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out
