"""Primitive spatial shapes: disk, ellipse, annulus, polygon, ball, cylinder and box.

Each shape knows its bounding box, a level function (negative inside, zero on the boundary,
positive outside: CSG combines them with min and max), its boundary as named *patches*, and a
quadrature rule.  A patch samples points uniformly by its own measure (arc length or area),
gives its outward unit normal as a SymPy expression of the coordinates, and a parametrisation
that the proof substitutes, so a constraint on a circle is proved on the whole circle.

Coordinates are plain arrays (n, d) in the shape's own axis order; the problem maps its spatial
variables onto them (:mod:`desyr.model.geometry`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from desyr.model.patches import Patch, number_text


def _pair(values: np.ndarray) -> str:
    """Coordinates as the shape's text writes them: every digit (two shapes that differ read differently)."""
    return ", ".join(number_text(v) for v in values)


class ShapeError(ValueError):
    """A shape that cannot be built as written (one line, said where in the config by the caller)."""


# ------------------------------------------------------------------------ primitives
class Shape:
    """A region of R^d: subclasses give ``dim``, ``lo``/``hi`` (bounding box), ``level`` and ``patches``."""

    dim: int
    text: str

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def level(self, P: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def patches(self) -> tuple[Patch, ...]:
        raise NotImplementedError

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray] | None:
        """Nodes and weights integrating smooth functions over the shape (None: no rule)."""
        return None

    def fill(self) -> float | None:
        """The share of its bounding box the shape fills, where a formula gives it (None: sample it)."""
        return None

    def primitives(self) -> list[Shape]:
        return [self]

    def __str__(self) -> str:
        return self.text

    # a shape is its text (the canonical form of every number): two readings of one config are equal
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Shape) and type(other) is type(self) and other.text == self.text

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.text))


def _gauss(order: int, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    x, w = np.polynomial.legendre.leggauss(order)
    return a + (x + 1) * (b - a) / 2, w * (b - a) / 2


class Disk(Shape):
    """A disk (``disk(center=(x0, y0), radius=r)``): its centre ``c`` and radius ``r``."""

    def __init__(self, center: Sequence[float], radius: float) -> None:
        self.c, self.r, self.dim = np.array(center, float), float(radius), 2
        self.text = f"disk(center=({_pair(self.c)}), radius={number_text(self.r)})"

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.c - self.r, self.c + self.r

    def level(self, P: np.ndarray) -> np.ndarray:
        return np.asarray((np.sum((P - self.c) ** 2, axis=1) - self.r**2) / self.r)

    def patches(self) -> tuple[Patch, ...]:
        return (Patch("circle", "arc", (*self.c, self.r, 1.0), 2 * np.pi * self.r, 2),)

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return _polar_rule(self.c, 0.0, self.r, order, rng)


class Annulus(Shape):
    """An annulus (``annulus(center=..., inner=r0, outer=r1)``): its centre ``c`` and radii ``r0 < r1``."""

    def __init__(self, center: Sequence[float], inner: float, outer: float) -> None:
        self.c, self.r0, self.r1, self.dim = np.array(center, float), float(inner), float(outer), 2
        if not 0 < self.r0 < self.r1:
            raise ShapeError(f"annulus needs 0 < inner < outer, got inner={inner:g}, outer={outer:g}")
        self.text = f"annulus(center=({_pair(self.c)}), inner={number_text(self.r0)}, outer={number_text(self.r1)})"

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.c - self.r1, self.c + self.r1

    def fill(self) -> float:
        return float(np.pi * (self.r1 - self.r0) * (self.r1 + self.r0) / (4 * self.r1**2))

    def level(self, P: np.ndarray) -> np.ndarray:
        rho = np.sqrt(np.sum((P - self.c) ** 2, axis=1))
        return np.asarray(np.maximum(rho - self.r1, self.r0 - rho))

    def patches(self) -> tuple[Patch, ...]:
        return (Patch("inner", "arc", (*self.c, self.r0, -1.0), 2 * np.pi * self.r0, 2),
                Patch("outer", "arc", (*self.c, self.r1, 1.0), 2 * np.pi * self.r1, 2))

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return _polar_rule(self.c, self.r0, self.r1, order, rng)


def _polar_rule(c: np.ndarray, r0: float, r1: float, order: int, rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray]:
    # Gauss in the radius, the trapezoid rule in the angle (spectral for periodic integrands),
    # turned by a random angle so that two draws never share nodes
    rho, wr = _gauss(order, r0, r1)
    m = 2 * order
    th = rng.uniform(0, 2 * np.pi) + 2 * np.pi * np.arange(m) / m
    RR, TT = np.meshgrid(rho, th, indexing="ij")
    W = (wr * rho)[:, None] * np.full(m, 2 * np.pi / m)[None, :]
    return np.column_stack([c[0] + (RR * np.cos(TT)).ravel(), c[1] + (RR * np.sin(TT)).ravel()]), W.ravel()


class Ellipse(Shape):
    def __init__(self, center: Sequence[float], semi_axes: Sequence[float]) -> None:
        self.c, self.ab, self.dim = np.array(center, float), np.array(semi_axes, float), 2
        self.text = f"ellipse(center=({_pair(self.c)}), semi_axes=({_pair(self.ab)}))"

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.c - self.ab, self.c + self.ab

    def level(self, P: np.ndarray) -> np.ndarray:
        # in length units (about the distance near the rim, never more): tolerances are lengths
        return np.asarray((np.sum(((P - self.c) / self.ab) ** 2, axis=1) - 1) * float(np.min(self.ab)) / 2)

    def patches(self) -> tuple[Patch, ...]:
        a, b = self.ab
        h = ((a - b) / (a + b)) ** 2         # Ramanujan's perimeter: a sampling share, not a result
        perimeter = np.pi * (a + b) * (1 + 3 * h / (10 + np.sqrt(4 - 3 * h)))
        return (Patch("ellipse", "ellipse", (*self.c, a, b), float(perimeter), 2),)

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        P, W = _polar_rule(np.zeros(2), 0.0, 1.0, order, rng)
        return self.c + P * self.ab, W * float(np.prod(self.ab))


class Polygon(Shape):
    def __init__(self, vertices: Sequence[Sequence[float]]) -> None:
        V = np.array(vertices, float)
        if V.ndim != 2 or V.shape[1] != 2 or len(V) < 3:
            raise ShapeError("polygon needs at least 3 vertices [[x, y], ...]")
        self.V, self.dim = V, 2
        _check_simple(V)
        area2 = float(np.sum(V[:, 0] * np.roll(V[:, 1], -1) - np.roll(V[:, 0], -1) * V[:, 1]))
        if abs(area2) <= 1e-12 * float(np.ptp(V)) ** 2:
            raise ShapeError("polygon has zero area (its vertices lie on a line)")
        self.orientation = 1.0 if area2 > 0 else -1.0
        self.text = "polygon(vertices=[" + ", ".join(f"({number_text(x)}, {number_text(y)})" for x, y in V) + "])"

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.V.min(axis=0), self.V.max(axis=0)

    def fill(self) -> float:
        lo, hi = self.bounding_box()
        return float(abs(np.sum(self.V[:, 0] * np.roll(self.V[:, 1], -1) - np.roll(self.V[:, 0], -1) * self.V[:, 1]))
                     / 2 / np.prod(hi - lo))

    def level(self, P: np.ndarray) -> np.ndarray:
        # one edge at a time: (n, edges) temporaries made this the slowest level of all
        x, y = P[:, 0], P[:, 1]
        nearest = np.full(len(P), np.inf)
        winding = np.zeros(len(P), dtype=np.int64)
        for (ax, ay), (bx, by) in zip(self.V, np.roll(self.V, -1, axis=0)):
            ex, ey = bx - ax, by - ay
            t = np.clip(((x - ax) * ex + (y - ay) * ey) / (ex * ex + ey * ey), 0.0, 1.0)
            dx, dy = x - ax - t * ex, y - ay - t * ey
            np.minimum(nearest, dx * dx + dy * dy, out=nearest)
            cross = ex * (y - ay) - (x - ax) * ey
            winding += ((ay <= y) & (by > y) & (cross > 0)).astype(np.int64)
            winding -= ((ay > y) & (by <= y) & (cross < 0)).astype(np.int64)
        dist = np.sqrt(nearest)
        return np.asarray(np.where(winding != 0, -dist, dist))

    def patches(self) -> tuple[Patch, ...]:
        out = []
        for i, (p, q) in enumerate(zip(self.V, np.roll(self.V, -1, axis=0))):
            out.append(Patch(f"edge {i}", "segment", (*p, *q, self.orientation), float(np.linalg.norm(q - p)), 2))
        return tuple(out)

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        nodes, weights = [], []
        for tri in ear_clip(self.V if self.orientation > 0 else self.V[::-1]):
            P, W = _triangle_rule(tri, order)
            nodes.append(P)
            weights.append(W)
        return np.vstack(nodes), np.concatenate(weights)


def _winding(P: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    up = (A[None, :, 1] <= P[:, None, 1]) & (B[None, :, 1] > P[:, None, 1])
    down = (A[None, :, 1] > P[:, None, 1]) & (B[None, :, 1] <= P[:, None, 1])
    cross = (B[None, :, 0] - A[None, :, 0]) * (P[:, None, 1] - A[None, :, 1]) - \
            (P[:, None, 0] - A[None, :, 0]) * (B[None, :, 1] - A[None, :, 1])
    return np.asarray(np.sum(up & (cross > 0), axis=1) - np.sum(down & (cross < 0), axis=1))


def _check_simple(V: np.ndarray) -> None:
    """Refuse a polygon that repeats a vertex or whose edges cross (each edge against all the others at
    once: a polygon of 1000 vertices is half a million pairs)."""
    n = len(V)
    _, first, counts = np.unique(V, axis=0, return_index=True, return_counts=True)
    if np.any(counts > 1):
        k = int(first[np.argmax(counts > 1)])
        again = int(np.flatnonzero(np.all(V == V[k], axis=1))[1])
        raise ShapeError(f"polygon repeats the vertex ({number_text(V[k][0])}, {number_text(V[k][1])}) "
                         f"(vertices {k} and {again}): each vertex once")
    A, B = V, np.roll(V, -1, axis=0)
    for i in range(n - 2):
        j = np.arange(i + 2, n - 1 if i == 0 else n)   # neighbours share a vertex
        if not j.size:
            continue
        if np.any(_segments_meet(A[i], B[i], A[j], B[j])):
            raise ShapeError(f"polygon is self-intersecting: edge {i} crosses edge "
                             f"{int(j[np.argmax(_segments_meet(A[i], B[i], A[j], B[j]))])}")


def _segments_meet(p: np.ndarray, q: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Whether segment pq meets each segment r[k]s[k] (crossing, or touching along a line)."""
    def orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        a, b, c = np.atleast_2d(a), np.atleast_2d(b), np.atleast_2d(c)
        return np.asarray((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))

    def within(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        a, b, c = np.atleast_2d(a), np.atleast_2d(b), np.atleast_2d(c)
        return np.asarray(np.all((np.minimum(a, b) <= c) & (c <= np.maximum(a, b)), axis=1))

    d1, d2, d3, d4 = orient(r, s, p), orient(r, s, q), orient(p, q, r), orient(p, q, s)
    out = (d1 * d2 < 0) & (d3 * d4 < 0)
    for d, a, b, c in ((d1, r, s, p), (d2, r, s, q), (d3, p, q, r), (d4, p, q, s)):
        out |= (d == 0) & within(a, b, c)
    return np.asarray(out)


def ear_clip(V: np.ndarray) -> list[np.ndarray]:
    """Triangles of a simple counter-clockwise polygon (vertices on a straight stretch dropped first:
    they bound no triangle, and an ear through them is never clear of them)."""
    V = _without_straight_vertices(V)
    idx, out = list(range(len(V))), []
    while len(idx) > 3:
        for k in range(len(idx)):
            a, b, c = V[idx[k - 1]], V[idx[k]], V[idx[(k + 1) % len(idx)]]
            if (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) <= 0:
                continue
            tri = np.array([a, b, c])
            others = [V[i] for i in idx if i not in (idx[k - 1], idx[k], idx[(k + 1) % len(idx)])]
            if others and np.any(_winding(np.array(others), tri, np.roll(tri, -1, axis=0)) != 0):
                continue
            out.append(tri)
            idx.pop(k)
            break
        else:  # pragma: no cover - a simple polygon always has an ear
            raise ShapeError("polygon could not be triangulated")
    out.append(V[idx])
    return out


def _without_straight_vertices(V: np.ndarray) -> np.ndarray:
    keep = list(range(len(V)))
    changed = True
    while changed and len(keep) > 3:
        changed = False
        for k in range(len(keep)):
            a, b, c = V[keep[k - 1]], V[keep[k]], V[keep[(k + 1) % len(keep)]]
            if (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) == 0:
                keep.pop(k)
                changed = True
                break
    return V[keep]


def _triangle_rule(tri: np.ndarray, order: int) -> tuple[np.ndarray, np.ndarray]:
    # the collapsed square (Duffy): Gauss x Gauss on [0, 1]^2 mapped onto the triangle
    u, wu = _gauss(order, 0, 1)
    U, V = np.meshgrid(u, u, indexing="ij")
    W = np.outer(wu, wu) * (1 - U)
    a, b, c = tri
    P = a + np.outer(U.ravel(), b - a) + np.outer(((1 - U) * V).ravel(), c - a)
    area2 = abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    return P, W.ravel() * area2


class Ball(Shape):
    def __init__(self, center: Sequence[float], radius: float) -> None:
        self.c, self.r, self.dim = np.array(center, float), float(radius), 3
        self.text = f"ball(center=({_pair(self.c)}), radius={number_text(self.r)})"

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.c - self.r, self.c + self.r

    def level(self, P: np.ndarray) -> np.ndarray:
        return np.asarray((np.sum((P - self.c) ** 2, axis=1) - self.r**2) / self.r)

    def patches(self) -> tuple[Patch, ...]:
        return (Patch("sphere", "sphere", (*self.c, self.r), 4 * np.pi * self.r**2, 3),)

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        rho, wr = _gauss(order, 0, self.r)
        mu, wm = _gauss(order, -1, 1)
        m = 2 * order
        ph = rng.uniform(0, 2 * np.pi) + 2 * np.pi * np.arange(m) / m
        RR, MM, PP = np.meshgrid(rho, mu, ph, indexing="ij")
        W = (wr * rho**2)[:, None, None] * wm[None, :, None] * np.full(m, 2 * np.pi / m)[None, None, :]
        s = np.sqrt(1 - MM**2)
        P = np.column_stack([(RR * s * np.cos(PP)).ravel(), (RR * s * np.sin(PP)).ravel(), (RR * MM).ravel()])
        return self.c + P, W.ravel()


class Cylinder(Shape):
    """A disk in the first two coordinates times an interval in the third."""

    def __init__(self, center: Sequence[float], radius: float, z: Sequence[float]) -> None:
        self.c, self.r, self.z, self.dim = np.array(center, float), float(radius), np.array(z, float), 3
        if self.c.shape != (2,) or self.z.shape != (2,) or not self.z[0] < self.z[1]:
            raise ShapeError("cylinder needs center=(x, y), radius and z=(lo, hi) with lo < hi")
        self.text = f"cylinder(center=({_pair(self.c)}), radius={number_text(self.r)}, z=({_pair(self.z)}))"

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return np.r_[self.c - self.r, self.z[0]], np.r_[self.c + self.r, self.z[1]]

    def level(self, P: np.ndarray) -> np.ndarray:
        radial = (np.sum((P[:, :2] - self.c) ** 2, axis=1) - self.r**2) / self.r
        mid, half = self.z.mean(), (self.z[1] - self.z[0]) / 2
        return np.asarray(np.maximum(radial, np.abs(P[:, 2] - mid) - half))

    def patches(self) -> tuple[Patch, ...]:
        area = np.pi * self.r**2
        return (Patch("side", "side", (*self.c, self.r, *self.z), 2 * np.pi * self.r * (self.z[1] - self.z[0]), 3),
                Patch("bottom", "cap", (*self.c, self.r, self.z[0], -1.0), area, 3),
                Patch("top", "cap", (*self.c, self.r, self.z[1], 1.0), area, 3))

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        P, W = _polar_rule(self.c, 0.0, self.r, order, rng)
        z, wz = _gauss(order, *self.z)
        return (np.column_stack([np.repeat(P, len(z), axis=0), np.tile(z, len(P))]),
                np.repeat(W, len(z)) * np.tile(wz, len(W)))


class Box(Shape):
    def __init__(self, lo: Sequence[float] | np.ndarray, hi: Sequence[float] | np.ndarray) -> None:
        self.lo, self.hi = np.array(lo, float), np.array(hi, float)
        if self.lo.shape != self.hi.shape or self.lo.ndim != 1 or not 1 <= self.lo.size <= 3 \
                or not np.all(self.lo < self.hi):
            raise ShapeError("box needs lo=(...) and hi=(...) of the same length with lo < hi")
        self.dim = self.lo.size
        self.text = f"box(lo=({_pair(self.lo)}), hi=({_pair(self.hi)}))"

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.lo.copy(), self.hi.copy()

    def level(self, P: np.ndarray) -> np.ndarray:
        mid, half = (self.lo + self.hi) / 2, (self.hi - self.lo) / 2
        # a column at a time: a maximum along rows of three is numpy's slowest reduction
        out = np.abs(P[:, 0] - mid[0]) - half[0]
        for i in range(1, self.dim):
            np.maximum(out, np.abs(P[:, i] - mid[i]) - half[i], out=out)
        return np.asarray(out)

    def patches(self) -> tuple[Patch, ...]:
        out = []
        widths = self.hi - self.lo
        for axis in range(self.dim):
            for at, sign, side in ((self.lo[axis], -1.0, "lo"), (self.hi[axis], 1.0, "hi")):
                measure = float(np.prod(np.delete(widths, axis))) if self.dim > 1 else 1.0
                bounds = tuple(v for pair in zip(self.lo, self.hi) for v in pair)
                out.append(Patch(f"face {axis} {side}", "face", (axis, at, sign, *bounds), measure, self.dim))
        return tuple(out)

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        rules = [_gauss(order, a, b) for a, b in zip(self.lo, self.hi)]
        grids = np.meshgrid(*[r[0] for r in rules], indexing="ij")
        weights = np.ones_like(grids[0])
        for axis, (_, w) in enumerate(rules):
            shape = [1] * self.dim
            shape[axis] = -1
            weights = weights * w.reshape(shape)
        return np.column_stack([g.ravel() for g in grids]), weights.ravel()
