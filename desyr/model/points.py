"""Seeded, mutually disjoint point sets.

Interior sets (refinement, verification, validation) are Latin hypercube
samples; the structure-search set X_S is uniform in one variable and a Latin
hypercube otherwise (paper §3.2).  Each set has its own seed stream, and any
point that coincides with a point of an earlier set is redrawn, so the sets
are disjoint by construction rather than by probability.
Constraint points are placed on their faces.

Every array is read-only.  Verification draws its own sets
(:func:`make_verification_points`) from separate seed streams after every
component has run, so no component ever sees, or can change, the points that
decide the verdict.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from desyr.model.geometry import Part, sample_shape
from desyr.model.problem import Face, Problem
from desyr.model.sets import integral_rule, shape_set_points

#: (rng, n, d) -> n points in the unit cube
UnitSampler = Callable[[np.random.Generator, int, int], np.ndarray]

INTERIOR_SETS = ("search", "refine", "verify", "validate")
_STREAM = {name: i + 1 for i, name in enumerate(INTERIOR_SETS + ("constraint",))}
_VERIFY_STREAMS = (101, 102)     # interior and constraint streams of the verification sets


@dataclass(frozen=True)
class PointSets:
    """The point sets of one run, each a read-only (n, d) array in the problem's variable order: search
    (X_S), refine, verify, validate, and one array per constraint; frozen (a component reads them, and
    the run refuses a component that changes them, however it does it)."""

    search: np.ndarray                  # X_S
    refine: np.ndarray                  # X_r^f
    verify: np.ndarray                  # X_r^v
    validate: np.ndarray                # teacher physics-validation points
    constraints: tuple[np.ndarray, ...]     # one array per problem constraint
    #: per constraint, None, or for an integral constraint the (m, n) quadrature weights whose
    #: products with the integrand at its points are its m residuals
    reductions: tuple[np.ndarray | None, ...] = ()

    def __post_init__(self) -> None:
        for name in ("search", "refine", "verify", "validate"):
            object.__setattr__(self, name, _locked(getattr(self, name)))
        object.__setattr__(self, "constraints", tuple(_locked(a) for a in self.constraints))
        object.__setattr__(self, "reductions", tuple(None if a is None else _locked(a) for a in self.reductions))


@dataclass(frozen=True)
class VerificationPoints:
    """Independent sets for R_eq, R_con and relative L2, drawn after every component has run."""

    interior: np.ndarray
    constraints: tuple[np.ndarray, ...]
    reductions: tuple[np.ndarray | None, ...] = ()


def _locked(a: np.ndarray) -> np.ndarray:
    """``a`` if it is a read-only array, else a read-only copy (the caller's array keeps its flag)."""
    return a if isinstance(a, np.ndarray) and not a.flags.writeable else _read_only(np.array(a, dtype=float))


def _read_only(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=float)
    a.flags.writeable = False
    return a


def make_point_sets(problem: Problem, seed: int | None = None) -> PointSets:
    seed = problem.points["seed"] if seed is None else seed
    taken: list[np.ndarray] = []
    sets = {}
    for name in INTERIOR_SETS:
        rng = np.random.default_rng([seed, _STREAM[name]])
        uniform_1d = name == "search" and problem.dim == 1
        pts = _fresh(problem, problem.points[name], rng, taken, uniform_1d)
        sets[name] = pts
        taken.append(pts)
    rng = np.random.default_rng([seed, _STREAM["constraint"]])
    constraints, reductions = all_constraint_points(problem, rng)
    return PointSets(constraints=tuple(constraints), reductions=reductions, **{k: _read_only(v) for k, v in sets.items()})


def make_verification_points(problem: Problem, seed: int) -> VerificationPoints:
    """Fresh verification sets from their own seed streams, of the sizes the config asks for."""
    rng = np.random.default_rng([seed, _VERIFY_STREAMS[0]])
    interior = _sample(problem, problem.points["verify"], rng, uniform=False)
    rng = np.random.default_rng([seed, _VERIFY_STREAMS[1]])
    constraints, reductions = all_constraint_points(problem, rng)
    return VerificationPoints(_read_only(interior), tuple(constraints), reductions)


def all_constraint_points(problem: Problem, rng: np.random.Generator, sampler: UnitSampler | None = None,
                          floor: int = 0) -> tuple[list[np.ndarray], tuple[np.ndarray | None, ...]]:
    """Each constraint's points (and an integral constraint's quadrature weights), from one generator; at
    least ``floor`` per constraint (a set that is a point still gets its one point)."""
    points: list[np.ndarray] = []
    reductions: list[np.ndarray | None] = []
    for c in problem.constraints:
        if c.kind == "integral":
            X, G = integral_rule(problem, rng)
        else:
            X = constraint_points(problem, c.faces, max(c.n_points, floor), rng, sampler or scipy_latin_hypercube)
            G = None
        points.append(_read_only(X))
        reductions.append(None if G is None else _read_only(G))
    return points, tuple(reductions)


def _fresh(problem: Problem, n: int, rng: np.random.Generator, taken: list[np.ndarray],
           uniform_1d: bool) -> np.ndarray:
    pts = _sample(problem, n, rng, uniform_1d)
    lo, widths = problem.bounds[:, 0], problem.bounds[:, 1] - problem.bounds[:, 0]
    narrow = bool(np.min(widths) < 1.0)

    def clash_space(a: np.ndarray) -> np.ndarray:
        # points 1e-12 apart count as one; in a box narrower than 1 that distance is measured in units of
        # the box: a fixed 1e-12 would call every point of a 1e-10 wide domain a clash, and squared
        # distances of 1e-160 underflow to 0 (wider boxes keep the plain coordinates, and their points)
        return (a - lo) / widths if narrow else a

    for _ in range(10):
        clash = _clashes(clash_space(pts), [clash_space(t) for t in taken])
        if not clash.any():
            return pts
        pts[clash] = _sample(problem, int(clash.sum()), rng, True)
    raise RuntimeError("could not draw disjoint point sets")  # pragma: no cover


def scipy_latin_hypercube(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """``scipy.stats.qmc.LatinHypercube(d, rng=rng).random(n)``, bit for bit, in numpy alone: importing
    ``scipy.stats`` takes one to three seconds, more than a whole exact-solver run otherwise spends
    drawing points. Like SciPy, it draws from a child of ``rng``'s seed sequence (``rng``'s own stream
    does not move, its seed sequence spawns one child). ``tests/test_points.py`` holds it to SciPy's."""
    bits = rng.bit_generator
    seeds = bits.seed_seq
    assert isinstance(seeds, np.random.SeedSequence), "a generator made by numpy.random.default_rng"
    child = np.random.Generator(type(bits)(seeds.spawn(1)[0]))
    jitter = child.uniform(size=(n, d))
    strata = np.tile(np.arange(1, n + 1), (d, 1))
    for axis in range(d):
        child.shuffle(strata[axis, :])
    sample: np.ndarray = (strata.T - jitter) / n
    return sample


def latin_hypercube(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """A Latin hypercube in numpy alone: one point in each of n strata per axis, jittered."""
    strata = np.stack([rng.permutation(n) for _ in range(d)], axis=1)
    return (strata + rng.random((n, d))) / n


def _sample(problem: Problem, n: int, rng: np.random.Generator, uniform: bool) -> np.ndarray:
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    unit = rng.random((n, problem.dim)) if uniform else scipy_latin_hypercube(rng, n, problem.dim)
    points: np.ndarray = lo + unit * (hi - lo)
    if problem.geometry is not None:       # the other variables (time) keep their stratified values
        points[:, _space_columns(problem)] = sample_shape(problem.geometry.shape, rng, n)
    return points


def interior_points(problem: Problem, n: int, rng: np.random.Generator, sampler: UnitSampler) -> np.ndarray:
    """``n`` points in the domain: ``sampler`` over the box, the shape's own uniform points in space."""
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    points: np.ndarray = lo + sampler(rng, n, problem.dim) * (hi - lo)
    if problem.geometry is not None:
        points[:, _space_columns(problem)] = sample_shape(problem.geometry.shape, rng, n)
    return points


def _space_columns(problem: Problem) -> list[int]:
    assert problem.geometry is not None
    return [problem.variable_names.index(v) for v in problem.geometry.space]


def _clashes(pts: np.ndarray, taken: list[np.ndarray], tol: float = 1e-12) -> np.ndarray:
    """Which of ``pts`` lie within ``tol`` (Euclidean) of a point of ``taken``. In numpy alone:
    ``scipy.spatial`` took a third of a second of CPU to import, on the path of every run.
    A point within ``tol`` of another is within ``tol`` of it in the first coordinate, so only the
    few points of ``other`` in that window (found by sorting) are measured."""
    clash = np.zeros(len(pts), dtype=bool)
    for other in taken:
        if len(other) == 0 or len(pts) == 0:
            continue
        order = np.argsort(other[:, 0], kind="stable")
        first = other[order, 0]
        lo = np.searchsorted(first, pts[:, 0] - tol, side="left")
        hi = np.searchsorted(first, pts[:, 0] + tol, side="right")
        rows = np.flatnonzero(hi > lo)
        counts = (hi - lo)[rows]
        owners = np.repeat(rows, counts)       # each point once per neighbour in its window
        neighbours = order[np.repeat(lo[rows] - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())]
        near = np.sqrt(np.sum((pts[owners] - other[neighbours]) ** 2, axis=1)) <= tol
        clash[owners[near]] = True
    return clash


def constraint_points(problem: Problem, faces: Sequence[Face | Part], n: int, rng: np.random.Generator,
                      sampler: UnitSampler = scipy_latin_hypercube) -> np.ndarray:
    """``n`` points spread over ``faces`` (a point face gets exactly one point; boundary parts of a
    shape share their points by measure)."""
    if problem.geometry is not None:
        return shape_set_points(problem, faces, n, rng, sampler)
    per_face = _split(n, [f for f in faces if isinstance(f, Face) and len(f.fixed) < problem.dim])
    out = []
    for face in faces:
        assert isinstance(face, Face)
        free = [i for i, v in enumerate(problem.variables) if v.name not in dict(face.fixed)]
        count = 1 if not free else per_face[id(face)]
        pts = np.empty((count, problem.dim))
        for name, value in face.fixed:
            pts[:, problem.variable_names.index(name)] = value
        if free:
            lo, hi = problem.bounds[free, 0], problem.bounds[free, 1]
            unit = rng.random((count, 1)) if len(free) == 1 else sampler(rng, count, len(free))
            pts[:, free] = lo + unit * (hi - lo)
        out.append(pts)
    return np.vstack(out)


def _split(n: int, faces: list[Face]) -> dict[int, int]:
    if not faces:
        return {}
    base, extra = divmod(n, len(faces))
    return {id(f): max(1, base + (i < extra)) for i, f in enumerate(faces)}
