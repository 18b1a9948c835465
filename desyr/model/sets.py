"""Points of constraint sets on a shape, and the quadrature of integral constraints.

Faces (``"x = -1"``, ``"initial"``) keep the points of the face that lie in the shape; boundary
parts sample their piece uniformly and keep the points a predicate selects.  A constraint's points
are shared between its sets: a point gets one, the other sets equal shares, the boundary parts
together one share, spread over them by measure (each at least :data:`MIN_PART_POINTS`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from desyr.model.csg import quadrature_rule
from desyr.model.geometry import EmptySet, Part, part_share, rejection
from desyr.model.shapes import Box

if TYPE_CHECKING:  # pragma: no cover
    from desyr.model.problem import Face, Problem

#: (rng, n, d) -> n points in the unit cube
UnitSampler = Callable[[np.random.Generator, int, int], np.ndarray]
#: Gauss order of integral constraints' rules by spatial dimension, and the time levels they are taken at
ORDER = {1: 48, 2: 24, 3: 12}
TIME_LEVELS = 8
_PROBE = PROBE = 65536
#: the fewest points a boundary part of a constraint gets, however small its share of the measure
MIN_PART_POINTS = 8
#: a face point counts as in the shape this close to its boundary (faces of a box lie on it)
_ON = 1e-9


def shape_set_points(problem: Problem, sets: Sequence[Face | Part], n: int, rng: np.random.Generator,
                     sampler: UnitSampler) -> np.ndarray:
    parts = [s for s in sets if isinstance(s, Part)]
    faces = [s for s in sets if not isinstance(s, Part)]
    spread = [f for f in faces if len(f.fixed) < problem.dim]
    groups = len(spread) + (1 if parts else 0)
    base, extra = divmod(n, max(groups, 1))
    out = []
    k = 0
    for face in faces:
        if len(face.fixed) == problem.dim:
            count = 1
        else:
            count, k = max(1, base + (k < extra)), k + 1
        out.append(_face_points(problem, face, count, rng, sampler))
    if parts:
        share = max(1, base + (len(spread) < extra))
        weights = np.array([part_share(p) for p in parts])
        # by measure, but never fewer than MIN_PART_POINTS: a hole of radius 1e-3 is checked too
        counts = [max(k, MIN_PART_POINTS) for k in _apportion(share, weights)]
        out += [part_points(problem, p, k, rng) for p, k in zip(parts, counts)]
    return np.vstack(out)


def _apportion(n: int, weights: np.ndarray) -> list[int]:
    quota = n * weights / weights.sum()
    counts = np.floor(quota).astype(int)
    for k in np.argsort(counts - quota)[: n - int(counts.sum())]:
        counts[k] += 1
    return [int(c) for c in counts]


def _face_points(problem: Problem, face: Face, n: int, rng: np.random.Generator, sampler: UnitSampler) -> np.ndarray:
    geometry = problem.geometry
    assert geometry is not None
    if len(face.fixed) == problem.dim:
        return _face_draw(problem, face, rng, sampler)(n)
    return rejection(_face_draw(problem, face, rng, sampler), _in_shape(problem), n, f"the set {face.describe()}")


def _face_draw(problem: Problem, face: Face, rng: np.random.Generator, sampler: UnitSampler
               ) -> Callable[[int], np.ndarray]:
    names = problem.variable_names
    free = [i for i, v in enumerate(names) if v not in dict(face.fixed)]

    def draw(m: int) -> np.ndarray:
        P = np.empty((m, problem.dim))
        for name, value in face.fixed:
            P[:, names.index(name)] = value
        if free:
            lo, hi = problem.bounds[free, 0], problem.bounds[free, 1]
            unit = rng.random((m, 1)) if len(free) == 1 else sampler(rng, m, len(free))
            P[:, free] = lo + unit * (hi - lo)
        return P

    return draw


def _in_shape(problem: Problem) -> Callable[[np.ndarray], np.ndarray]:
    geometry = problem.geometry
    assert geometry is not None
    space = [problem.variable_names.index(v) for v in geometry.space]
    tolerance = _ON * float(max(1.0, np.max(np.abs(problem.bounds))))
    return lambda P: np.asarray(geometry.shape.level(P[:, space]) <= tolerance)


def face_share(problem: Problem, face: Face) -> float:
    """The fraction of ``face`` (a face of the bounding box) that lies in the shape."""
    P = _face_draw(problem, face, np.random.default_rng(0), lambda r, m, d: r.random((m, d)))(
        1 if len(face.fixed) == problem.dim else _PROBE)
    return float(np.mean(_in_shape(problem)(P)))


def part_points(problem: Problem, part: Part, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` points on ``part`` (times uniform in the time interval): uniform, but on a curve cut by a
    predicate, up to one in eight crowd towards the ends the predicate makes, at random distances from
    1e-2 to 1e-12 of the curve (a value off only on the last 1e-4 of the part was Verified)."""
    P = rejection(_part_draw(problem, part, rng), _part_accept(problem, part), n, f"the set {part.describe()}")
    near = _near_cuts(problem, part, min(n // 8, NEAR_CUTS), rng) if n >= 8 else np.empty((0, problem.dim))
    if len(near):
        P[len(P) - len(near):] = near
    return P


#: the most points of one part placed near the ends its predicate makes (:func:`part_points`)
NEAR_CUTS = 32
#: parameter steps along a curve on which the predicate's ends are looked for
_CUT_PROBE = 2048


def _near_cuts(problem: Problem, part: Part, m: int, rng: np.random.Generator) -> np.ndarray:
    """Up to ``m`` points of a curve part close to where its predicate turns (none for a surface, or a
    predicate that does not turn on the probe)."""
    from desyr.model.membership import Curve

    condition = _condition(problem, part)
    if condition is None or part.piece.patch.dim != 2 or m < 1 or problem.geometry is None:
        return np.empty((0, problem.dim))
    curve = Curve(part.piece.patch)
    runs = part.piece.intervals or (curve.range,)
    names = problem.variable_names
    space = [names.index(v) for v in problem.geometry.space]
    others = [i for i in range(problem.dim) if i not in space]
    level = problem.bounds[others, 0] + rng.random(len(others)) * (problem.bounds[others, 1] - problem.bounds[others, 0])

    def inside(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        P = np.empty((len(t), problem.dim))
        P[:, space] = curve.point(t)
        P[:, others] = level
        with np.errstate(all="ignore"):
            return np.asarray(condition(P) > 0), P

    cuts: list[tuple[float, float]] = []           # (parameter of the end, direction into the part)
    for lo, hi in runs:
        t = np.linspace(lo, hi, _CUT_PROBE)
        keep, _ = inside(t)
        for i in np.flatnonzero(keep[:-1] != keep[1:])[:8]:
            a, b = float(t[i]), float(t[i + 1])
            a_in = bool(keep[i])
            for _ in range(60):
                mid = (a + b) / 2
                if bool(inside(np.array([mid]))[0][0]) == a_in:
                    a = mid
                else:
                    b = mid
            cuts.append(((a if a_in else b), (-1.0 if a_in else 1.0) * (hi - lo)))
    if not cuts:
        return np.empty((0, problem.dim))
    chosen = rng.integers(0, len(cuts), m)
    t = np.array([cuts[k][0] + cuts[k][1] * 10 ** -rng.uniform(2, 12) for k in chosen])
    keep, P = inside(t)
    return np.asarray(P[keep])


def predicate_share(problem: Problem, part: Part) -> float:
    """The fraction of the part's piece that its predicate keeps (all of it, without one: no draw)."""
    if part.condition is None:
        return 1.0
    P = _part_draw(problem, part, np.random.default_rng(0))(_PROBE)
    return float(np.mean(_part_accept(problem, part)(P)))


def predicate_touches(problem: Problem, part: Part) -> bool:
    """Whether the predicate holds at an end of the part's piece (where parts meet, and where a predicate
    that keeps a sliver too thin for :func:`predicate_share`'s sample keeps it), at a few times."""
    from desyr.model.membership import Curve

    patch = part.piece.patch
    if part.condition is None or patch.dim != 2:
        return False
    intervals = part.piece.intervals or (Curve(patch).range,)
    ends = Curve(part.piece.patch).point(np.array([t for run in intervals for t in run]))
    names = problem.variable_names
    space = [names.index(v) for v in problem.geometry.space] if problem.geometry else []
    others = [i for i in range(problem.dim) if i not in space]
    rows = []
    for level in (0.0, 0.5, 1.0):
        P = np.empty((len(ends), problem.dim))
        P[:, space] = ends
        for i in others:
            lo, hi = problem.bounds[i]
            P[:, i] = lo + level * (hi - lo)
        rows.append(P)
    condition = _condition(problem, part)
    assert condition is not None
    with np.errstate(all="ignore"):
        return bool(np.any(condition(np.vstack(rows)) > 0))


def _part_draw(problem: Problem, part: Part, rng: np.random.Generator) -> Callable[[int], np.ndarray]:
    geometry = problem.geometry
    assert geometry is not None
    names = problem.variable_names
    space = [names.index(v) for v in geometry.space]
    others = [i for i in range(problem.dim) if i not in space]

    def draw(m: int) -> np.ndarray:
        P = np.empty((m, problem.dim))
        P[:, space] = part.piece.sample(rng, m)
        if others:
            lo, hi = problem.bounds[others, 0], problem.bounds[others, 1]
            P[:, others] = lo + rng.random((m, len(others))) * (hi - lo)
        return P

    return draw


def _part_accept(problem: Problem, part: Part) -> Callable[[np.ndarray], np.ndarray]:
    condition = _condition(problem, part)

    def accept(P: np.ndarray) -> np.ndarray:        # drawn on the piece: only the predicate remains
        if condition is None:
            return np.ones(len(P), dtype=bool)
        with np.errstate(all="ignore"):
            return np.asarray(condition(P) > 0)

    return accept


def _condition(problem: Problem, part: Part) -> Callable[[np.ndarray], np.ndarray] | None:
    if part.condition is None:
        return None
    from desyr.symbolic.numeric import broadcast, columns, lambdify

    function = lambdify(problem.symbols, [part.condition])      # once: lambdify costs milliseconds
    return lambda P: np.asarray(broadcast(function(*columns(P))[0], len(P)), dtype=float)


def _held_levels(problem: Problem, space: list[str], nodes: np.ndarray, weights: np.ndarray,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The rule repeated at TIME_LEVELS random values of time and a family's parameters together: the
    integral over space holds for each member of the family at each time."""
    names = problem.variable_names
    held = [v for v in names if v == problem.time or v in problem.parameters]
    X = np.empty((len(nodes) * TIME_LEVELS, problem.dim))
    G = np.zeros((TIME_LEVELS, len(X)))
    for k in range(TIME_LEVELS):
        rows = slice(k * len(nodes), (k + 1) * len(nodes))
        for j, v in enumerate(space):
            X[rows, names.index(v)] = nodes[:, j]
        for v in held:
            lo, hi = problem.bounds[names.index(v)]
            X[rows, names.index(v)] = lo + rng.random() * (hi - lo)
        G[k, rows] = weights
    return X, G


def integral_rule(problem: Problem, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Quadrature nodes (n, d) over the domain and weights (m, n): m = 1 for a steady problem, one row
    per time level for a time-dependent one, each row integrating over space at its time."""
    names = problem.variable_names
    if problem.geometry is not None:
        shape, space = problem.geometry.shape, list(problem.geometry.space)
    else:
        space = [v for v in names if v != problem.time and v not in problem.parameters]
        idx = [names.index(v) for v in space]
        shape = Box(problem.bounds[idx, 0], problem.bounds[idx, 1])
    order = ORDER.get(len(space), 8) + int(rng.integers(0, 4))     # two draws rarely share a rule
    rule = quadrature_rule(shape, order, rng, problem.numbers)
    if rule is None:
        raise EmptySet(f"the shape {shape.text} has no quadrature rule")
    nodes, weights = rule
    if problem.parameters:
        return _held_levels(problem, space, nodes, weights, rng)
    times = [None]
    if problem.time is not None:
        t = problem.variables[names.index(problem.time)]
        times = list(np.sort(t.lo + rng.random(TIME_LEVELS) * (t.hi - t.lo)))
    X = np.empty((len(nodes) * len(times), problem.dim))
    G = np.zeros((len(times), len(X)))
    for k, when in enumerate(times):
        rows = slice(k * len(nodes), (k + 1) * len(nodes))
        for j, v in enumerate(space):
            X[rows, names.index(v)] = nodes[:, j]
        if when is not None:
            X[rows, names.index(problem.time)] = when
        G[k, rows] = weights
    return X, G
