"""Which parts of a primitive's patch bound a CSG shape, decided without a step along the normal.

At a point of primitive k's patch every other primitive is inside or outside (the sign of its
level function), or has a patch on the same surface there (a face two boxes share: found from the
patches' data, not from a tolerance). The shape just behind the patch (k inside) and just ahead
(k outside) follows from the CSG tree, however thin the feature: a slit 1e-12 wide keeps both of
its faces, and a hole of radius 1e-9 its circle. (A step along the normal, as before, read a
feature thinner than the step as interior on both sides.)

In the plane the patches are curves and their pieces are exact: every other primitive's curves
cut the patch at parameters found as polynomial roots, and each interval between cuts is
classified at its midpoint. A piece is a list of parameter intervals, sampled directly, so a
piece of any length gets points. In 3-D the pieces are classified at sample points.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import sympy as sp

from desyr.model.patches import Patch
from desyr.model.shapes import Shape
from desyr.model.signs import cross, sign

TWO_PI = 2 * np.pi
#: cuts closer than this share of a patch's parameter range are one cut (a tangency's double root)
CLUSTER = 1e-11
CURVES = ("arc", "ellipse", "segment")


# ------------------------------------------------------------------------- surfaces
def surface(patch: Patch) -> tuple[str, np.ndarray, float]:
    """The surface a patch lies on (kind and numbers) and the sign of its normal against the surface's own."""
    d, kind = patch.data, patch.kind
    if kind == "face" or kind == "cap":
        axis, at, sign = (int(d[0]), d[1], d[2]) if kind == "face" else (2, d[3], d[4])
        if patch.dim == 2:
            n = np.eye(2)[axis]
            return "line", np.r_[n, at], sign
        return "plane", np.r_[np.eye(patch.dim)[axis], at], sign
    if kind == "segment":
        p, q = np.array(d[0:2]), np.array(d[2:4])
        n = np.array([q[1] - p[1], p[0] - q[0]]) * (1 if d[4] > 0 else -1)
        n = n / np.hypot(*n)
        canonical = n if (n[0] > 0 or (n[0] == 0 and n[1] > 0)) else -n
        return "line", np.r_[canonical, canonical @ p], float(np.sign(n @ canonical))
    if kind == "arc":
        return "conic", np.array([d[0], d[1], d[2], d[2]]), float(np.sign(d[3]))
    if kind == "ellipse":
        return "conic", np.array(d[0:4]), 1.0
    if kind == "sphere":
        return "sphere", np.array(d[0:4]), 1.0
    return "cylinder", np.array(d[0:3]), 1.0          # a cylinder's side


def same_surface(a: Patch, b: Patch) -> int:
    """+1 if ``b`` lies on ``a``'s surface with the same normal, -1 with the opposite one, 0 if not on it:
    decided on the numbers the config wrote (``a.numbers``), after a loose float test rules most pairs out.
    Two faces 1e-13 apart are two faces (a slit between them), not one."""
    (ka, va, sa), (kb, vb, sb) = surface(a), surface(b)
    if ka != kb or va.shape != vb.shape:
        return 0
    scale = max(1.0, float(np.max(np.abs(va))), float(np.max(np.abs(vb))))
    if not np.allclose(va, vb, rtol=0, atol=1e-9 * scale):
        return 0
    return int(sa * sb) if _exactly_same(a, b, ka) else 0


def _exactly_same(a: Patch, b: Patch, kind: str) -> bool:
    """Whether the two patches' surfaces (of one kind) are one, on their exact numbers."""
    b = replace(b, numbers=a.numbers)
    if kind == "line":
        p, q = _line_points(a)
        return all(sign(cross(p, q, r)) == 0 for r in _line_points(b))
    (_, ea), (_, eb) = _surface_numbers(a), _surface_numbers(b)
    return len(ea) == len(eb) and all(sign(x - y) == 0 for x, y in zip(ea, eb))


def _line_points(patch: Patch) -> tuple[tuple[sp.Expr, sp.Expr], tuple[sp.Expr, sp.Expr]]:
    """Two points of a 2-D face's or an edge's line, exactly."""
    e = patch.exact_data()
    if patch.kind == "segment":
        return (e[0], e[1]), (e[2], e[3])
    axis, at = int(patch.data[0]), e[1]
    return ((at, sp.Integer(0)), (at, sp.Integer(1))) if axis == 0 else ((sp.Integer(0), at), (sp.Integer(1), at))


def _surface_numbers(patch: Patch) -> tuple[str, tuple[sp.Expr, ...]]:
    """A plane's axis and place, a conic's centre and semi-axes, a sphere's or a cylinder's centre and
    radius, as exact numbers."""
    e, kind = patch.exact_data(), patch.kind
    if kind in ("face", "cap"):
        axis, at = (int(patch.data[0]), e[1]) if kind == "face" else (2, e[3])
        return "plane", (sp.Integer(axis), at)
    if kind == "arc":
        return "conic", (e[0], e[1], e[2], e[2])
    if kind in ("ellipse", "sphere"):
        return kind, e[0:4]
    return "cylinder", e[0:3]


# ------------------------------------------------------------------------- the CSG tree
def evaluate(shape: Shape, values: dict[int, np.ndarray]) -> np.ndarray:
    """Whether points are in ``shape``, from each primitive's answer (keyed by ``id``)."""
    op = getattr(shape, "op", None)
    if op is None:
        return values[id(shape)]
    a, b = evaluate(shape.a, values), evaluate(shape.b, values)      # type: ignore[attr-defined]
    if op == "union":
        return np.asarray(a | b)
    if op == "intersection":
        return np.asarray(a & b)
    return np.asarray(a & ~b)


def sides(whole: Shape, k: int, P: np.ndarray, on: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Just behind and just ahead of primitive ``k``'s patch at ``P``, and where an earlier primitive shares
    the patch's surface. ``on[j]`` is +1/-1 where primitive j has a patch on the same surface (same or
    opposite normal), 0 elsewhere; there j's side is the patch's side, elsewhere its level's sign."""
    prims = whole.primitives()
    behind: dict[int, np.ndarray] = {}
    ahead: dict[int, np.ndarray] = {}
    shared = np.zeros(len(P), dtype=bool)
    near = _near(prims, P)
    for j, prim in enumerate(prims):
        if j == k:
            behind[id(prim)], ahead[id(prim)] = np.ones(len(P), bool), np.zeros(len(P), bool)
            continue
        # a primitive whose box misses the points' box holds none of them: no level to evaluate (a union
        # of 64 boxes in 3-D had tested every probe point of every face against every box)
        inside = prim.level(P) < 0 if near[j] else np.zeros(len(P), bool)
        c = on.get(j, np.zeros(len(P)))
        behind[id(prim)] = np.where(c > 0, True, np.where(c < 0, False, inside))
        ahead[id(prim)] = np.where(c > 0, False, np.where(c < 0, True, inside))
        if j < k:
            shared |= c != 0
    return evaluate(whole, behind), evaluate(whole, ahead), shared


def _near(prims: Sequence[Shape], P: np.ndarray) -> list[bool]:
    """Whether each primitive's bounding box (widened by 1e-9 of its size, as the floats that make it
    round) meets the box of the points ``P``: one that does not holds none of them."""
    if not len(P):
        return [False] * len(prims)
    lo, hi = P.min(axis=0), P.max(axis=0)
    out = []
    for prim in prims:
        a, b = prim.bounding_box()
        pad = 1e-9 * max(1.0, float(np.max(np.abs(np.r_[a, b]))))
        out.append(bool(np.all(a - pad <= hi) and np.all(lo <= b + pad)))
    return out


# ------------------------------------------------------------------------- curves (2-D)
class Curve:
    """A 2-D patch as a curve of one parameter: [0, 1] along a segment, [0, 2 pi] round a conic."""

    def __init__(self, patch: Patch) -> None:
        d, self.patch = patch.data, patch
        if patch.kind in ("arc", "ellipse"):
            self.conic = True
            self.c = np.array(d[0:2])
            self.ab = np.array([d[2], d[2]] if patch.kind == "arc" else d[2:4])
            self.range = (0.0, TWO_PI)
        else:
            self.conic = False
            if patch.kind == "face":
                axis, at, lo, hi = int(d[0]), d[1], np.array(d[3::2]), np.array(d[4::2])
                self.p, self.q = lo.copy(), hi.copy()
                self.p[axis] = self.q[axis] = at
            else:
                self.p, self.q = np.array(d[0:2]), np.array(d[2:4])
            self.range = (0.0, 1.0)

    def point(self, t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, float)
        if self.conic:
            return np.column_stack([self.c[0] + self.ab[0] * np.cos(t), self.c[1] + self.ab[1] * np.sin(t)])
        return np.asarray(self.p + t[:, None] * (self.q - self.p))

    def parameter(self, P: np.ndarray) -> np.ndarray:
        if self.conic:
            return np.asarray(np.mod(np.arctan2((P[:, 1] - self.c[1]) / self.ab[1], (P[:, 0] - self.c[0]) / self.ab[0]),
                                     TWO_PI))
        e = self.q - self.p
        return np.asarray((P - self.p) @ e / (e @ e))

    def speed(self, t: np.ndarray) -> np.ndarray:
        if self.conic:
            return np.asarray(np.hypot(self.ab[0] * np.sin(t), self.ab[1] * np.cos(t)))
        return np.full(np.shape(t), float(np.hypot(*(self.q - self.p))))

    def length(self, a: float, b: float) -> float:
        x, w = np.polynomial.legendre.leggauss(32)
        t = a + (x + 1) * (b - a) / 2
        return float(w @ self.speed(t) * (b - a) / 2)

    def cuts(self, other: Patch) -> np.ndarray:
        """Parameters where this curve meets ``other``'s supporting line or conic (roots of a polynomial)."""
        kind, v, _ = surface(other)
        implicit: Callable[[np.ndarray], np.ndarray]
        if kind == "line":
            implicit = lambda X: X @ v[:2] - v[2]                                    # noqa: E731
        else:
            implicit = lambda X: np.sum(((X - v[:2]) / v[2:4]) ** 2, axis=1) - 1    # noqa: E731
        if not self.conic:       # a quadratic in t: fitted through three values, exactly up to round-off
            t = np.array([0.0, 0.5, 1.0])
            coeffs = np.polyfit(t, implicit(self.point(t)), 2)
            roots = np.roots(coeffs) if np.any(coeffs) else np.array([])
            return np.real(roots[np.abs(np.imag(roots)) <= 1e-6])
        # a trigonometric polynomial of degree 2: its five Fourier coefficients, a quartic in z = exp(i t)
        t = TWO_PI * np.arange(5) / 5
        c = np.fft.fft(implicit(self.point(t))) / 5              # c[k] for k = 0, 1, 2, -2, -1
        poly = np.array([c[2], c[1], c[0], c[4], c[3]])          # z**4 ... z**0 of z**2 * f
        if np.max(np.abs(poly)) <= 1e-14 * max(1.0, float(np.max(np.abs(v)))):
            return np.array([])
        roots = np.roots(poly)
        roots = roots[np.abs(np.abs(roots) - 1) <= 1e-3]
        return np.asarray(np.mod(np.angle(roots), TWO_PI))

    def extent(self, other: Patch) -> tuple[float, float]:
        """The parameter range of a collinear segment ``other`` on this (straight) curve."""
        ends = self.parameter(Curve(other).point(np.array([0.0, 1.0])))
        return float(ends.min()), float(ends.max())

    def sample(self, rng: np.random.Generator, n: int, intervals: Sequence[tuple[float, float]]) -> np.ndarray:
        """``n`` points uniform by length on the intervals."""
        lengths = np.array([self.length(a, b) for a, b in intervals])
        which = rng.choice(len(intervals), size=n, p=lengths / lengths.sum())
        A, B = np.array(intervals).T
        t = A[which] + rng.random(n) * (B - A)[which]
        if self.conic:        # uniform by arc length: accept with probability speed / max speed
            top = float(np.max(self.ab))
            bad = rng.random(n) * top > self.speed(t)
            while bad.any():
                w = rng.choice(len(intervals), size=int(bad.sum()), p=lengths / lengths.sum())
                t[bad] = A[w] + rng.random(w.size) * (B - A)[w]
                which[bad] = w
                bad[bad] = rng.random(w.size) * top > self.speed(t[bad])
        return self.point(t)


def curve_pieces(whole: Shape, k: int, patch: Patch) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """The parameter intervals where ``patch`` (of primitive ``k``) bounds ``whole`` with its normal, and
    with the opposite one."""
    curve = Curve(patch)
    t0, t1 = curve.range
    cuts = [t0, t1]
    coincident: list[tuple[int, int, tuple[float, float] | None]] = []
    for j, prim in enumerate(whole.primitives()):
        if j == k:
            continue
        for other in prim.patches():
            if other.kind not in CURVES and not (other.kind == "face" and other.dim == 2):
                continue
            side = same_surface(patch, other)
            if side and not curve.conic:
                span = curve.extent(other)
                cuts += list(span)
                coincident.append((j, side, span))
            elif side:
                coincident.append((j, side, None))
            else:
                cuts += list(curve.cuts(other))
    edges = _clustered(np.clip(np.array(cuts), t0, t1), (t1 - t0) * CLUSTER)
    mid = (edges[:-1] + edges[1:]) / 2
    P = curve.point(mid)
    on: dict[int, np.ndarray] = {}
    for j, side, extent in coincident:
        hit = np.ones(len(mid), bool) if extent is None else (mid > extent[0]) & (mid < extent[1])
        on[j] = np.where(hit, side, on.get(j, np.zeros(len(mid))))
    behind, ahead, shared = sides(whole, k, P, on)
    keep = ~shared
    return _runs(edges, keep & behind & ~ahead), _runs(edges, keep & ahead & ~behind)


def _clustered(cuts: np.ndarray, gap: float) -> np.ndarray:
    cuts = np.sort(cuts)
    out = [cuts[0]]
    for c in cuts[1:]:
        if c - out[-1] > gap:
            out.append(c)
    out[-1] = cuts[-1]
    return np.array(out)


def _runs(edges: np.ndarray, mask: np.ndarray) -> list[tuple[float, float]]:
    """Adjacent kept intervals joined."""
    out: list[tuple[float, float]] = []
    for a, b, kept in zip(edges[:-1], edges[1:], mask):
        if not kept:
            continue
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], float(b))
        else:
            out.append((float(a), float(b)))
    return out


def point_sides(whole: Shape, k: int, patch: Patch, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where points ``P`` of ``patch`` (of primitive ``k``) bound ``whole`` with its normal, and with the
    opposite one, point by point (3-D patches, and 1-D points)."""
    lo, hi = whole.bounding_box()
    tol = 1e-9 * max(1.0, float(np.max(np.abs(np.r_[lo, hi]))))
    on: dict[int, np.ndarray] = {}
    for j, prim in enumerate(whole.primitives()):
        if j == k:
            continue
        for other in prim.patches():
            side = same_surface(patch, other)
            if side:
                near = np.abs(prim.level(P)) <= tol
                on[j] = np.where(near, side, on.get(j, np.zeros(len(P))))
    behind, ahead, shared = sides(whole, k, P, on)
    return ~shared & behind & ~ahead, ~shared & ahead & ~behind
