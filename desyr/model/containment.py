"""Whether one shape lies inside another (or meets it), decided on the exact numbers the config wrote.

An integral over ``A - B`` is A's integral minus B's only when B lies inside A.  That was decided on
4096 boundary samples, and a triangle whose apex poked 1e-6 out of a box passed: the rule then took
out the whole triangle, and a wrong constant was Proved.  Here it is decided exactly: each primitive's
numbers are the ones the config wrote (:func:`desyr.model.written.exact_number`: ``0.1`` is 1/10,
``1/3`` one third, ``pi/4`` a quarter of pi), and every comparison is a sign of an exact number (a
rational, or a polynomial in pi decided by evaluation to 60 digits once it is not 0).

The decisions, all exact: a convex shape (box, disk, ball, ellipse, cylinder, convex polygon) is a
list of convex inequalities g <= 0 (half-planes, balls, an ellipse), and ``inner`` lies inside it when
the largest value of each g over ``inner`` is at most 0: at the vertices of a polygon or a box (g is
convex), ``n.c + r|n|`` for a half-plane over a disk, ``(|c - d| + r)**2`` for a ball over a disk, and
so on (compared squared, so a disk tangent to a slanted edge is decided exactly).  When that largest
value is above 0, a point of ``inner`` lies outside, and the answer is a definite no.  An annulus is
its outer disk less the open hole, which ``inner`` must miss; ``A & B`` and ``A - B`` and unions
recurse through their parts (:func:`desyr.model.csg.inside`, :func:`~desyr.model.csg.disjoint`).  What no rule covers (a disk in an ellipse off its centre, a polygon in a polygon that is not
convex) is *not decided* (None): callers then give no proof, never a guess.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import sympy as sp

from desyr.model.shapes import Annulus, Ball, Box, Cylinder, Disk, Ellipse, Polygon, Shape
from desyr.model.signs import all_of, at_most, cross, le, lt, max_of, min_of, sign
from desyr.model.written import Numbers, exact_number

Point = tuple[sp.Expr, ...]
#: a convex inequality g <= 0: ("plane", normal, b) is normal.x <= b; ("ball", centre, r2, axes) is
#: sum over axes of (x_i - c_i)**2 <= r2; ("ellipse", centre, semi-axes) is sum ((x_i - c_i)/a_i)**2 <= 1
Convex = tuple[Any, ...]


def primitive_inside(inner: Shape, outer: Shape, numbers: Numbers | None = None) -> bool | None:
    """True when the primitive ``inner`` is proved to lie in the closed primitive ``outer``, False when a point
    of it is proved to lie outside, None when neither is decided (unions, differences and intersections:
    :func:`desyr.model.csg.inside`)."""
    if isinstance(outer, Annulus):
        whole = primitive_inside(inner, Disk(outer.c.tolist(), outer.r1), numbers)
        if whole is not True:
            return whole
        return _misses_hole(inner, _numbers(outer.c, numbers), exact_number(outer.r0, numbers), numbers)
    convex = _convex(outer, numbers)
    if convex is None:
        return _in_polygon_shape(inner, polygon_vertices(outer, numbers), numbers) if isinstance(outer, Polygon) else None
    return all_of([_within(inner, g, numbers) for g in convex])


def _in_polygon_shape(inner: Shape, polygon: Sequence[Point], numbers: Numbers | None) -> bool | None:
    """Whether a disk or a convex polygon lies in a simple polygon that is not convex: a point of it (the
    centre, the centroid) lies in the polygon and no edge of the polygon meets its interior (which is then
    connected and clear of the boundary, so all inside), decided exactly."""
    if isinstance(inner, Disk):
        c, r = _numbers(inner.c, numbers), exact_number(inner.r, numbers)
        if _in_polygon(c, polygon) is not True:
            return _in_polygon(c, polygon)
        return le(r**2, min_of([_segment_distance2(c, polygon[k - 1], polygon[k]) for k in range(len(polygon))]))
    vertices = _vertices(inner, numbers) if inner.dim == 2 else None
    if vertices is None:
        return None
    if isinstance(inner, Box):
        vertices = [vertices[0], vertices[2], vertices[3], vertices[1]]
    planes = _polygon_planes(vertices)
    if planes is None:
        return None
    centroid = tuple(sum((v[i] for v in vertices), sp.Integer(0)) / len(vertices) for i in (0, 1))
    if _in_polygon(centroid, polygon) is not True:
        return _in_polygon(centroid, polygon)
    meets = [_meets_open(polygon[k - 1], polygon[k], planes) for k in range(len(polygon))]
    return None if None in meets else not any(meets)


def _meets_open(a: Point, b: Point, planes: Sequence[Convex]) -> bool | None:
    """Whether the segment a-b meets the open convex polygon {n.x < beta for each plane}: the parameters t
    in [0, 1] that each plane keeps form an open interval, which must meet [0, 1]."""
    low: list[sp.Expr] = []
    high: list[sp.Expr] = []
    for _, n, beta in planes:
        start, rate = _dot(n, a) - beta, _dot(n, (b[0] - a[0], b[1] - a[1]))     # start + t*rate < 0
        s = sign(rate)
        if s is None:
            return None
        if s == 0:
            if sign(start) is None:
                return None
            if sign(start) >= 0:         # type: ignore[operator]
                return False
            continue
        (high if s > 0 else low).append(-start / rate)
    lo, hi = max_of(low) if low else None, min_of(high) if high else None
    checks = [lt(lo, hi) if low and high else True, lt(lo, sp.Integer(1)) if low else True,
              lt(sp.Integer(0), hi) if high else True]
    return None if None in checks else all(checks)


def primitives_disjoint(a: Shape, b: Shape, numbers: Numbers | None = None) -> bool | None:
    """True when the interiors of the primitives ``a`` and ``b`` are proved not to meet (touching is allowed: it
    has no area), None otherwise (this module proves separation, never overlap; combined shapes:
    :func:`desyr.model.csg.disjoint`)."""
    if isinstance(b, Annulus) and primitive_inside(a, Disk(b.c.tolist(), b.r0), numbers) is True:
        return True
    for one, other in ((a, b), (b, a)):
        if isinstance(other, Annulus):
            other = Disk(other.c.tolist(), other.r1)
        convex = _convex(other, numbers)
        if convex is not None and any(_beyond(one, g, numbers) is True for g in convex):
            return True
    return None


# ------------------------------------------------------------------ the outer shape as inequalities
def _convex(shape: Shape, numbers: Numbers | None) -> list[Convex] | None:
    """``shape`` as convex inequalities that hold exactly on it (None: it is not convex, or not known)."""
    if isinstance(shape, Box):
        lo, hi = _numbers(shape.lo, numbers), _numbers(shape.hi, numbers)
        out: list[Convex] = []
        for i in range(shape.dim):
            unit = tuple(sp.Integer(1 if j == i else 0) for j in range(shape.dim))
            out += [("plane", unit, hi[i]), ("plane", tuple(-u for u in unit), -lo[i])]
        return out
    if isinstance(shape, (Disk, Ball)):
        r = exact_number(shape.r, numbers)
        return [("ball", _numbers(shape.c, numbers), r**2, tuple(range(shape.dim)))]
    if isinstance(shape, Ellipse):
        return [("ellipse", _numbers(shape.c, numbers), _numbers(shape.ab, numbers))]
    if isinstance(shape, Cylinder):
        r, (z0, z1) = exact_number(shape.r, numbers), _numbers(shape.z, numbers)
        zero = sp.Integer(0)
        return [("ball", (*_numbers(shape.c, numbers), zero), r**2, (0, 1)),
                ("plane", (zero, zero, sp.Integer(1)), z1), ("plane", (zero, zero, sp.Integer(-1)), -z0)]
    if isinstance(shape, Polygon):
        return _polygon_planes(polygon_vertices(shape, numbers))
    return None


def polygon_vertices(shape: Polygon, numbers: Numbers | None = None) -> list[Point]:
    """The polygon's vertices as the config wrote them, counter-clockwise."""
    vertices = [(exact_number(x, numbers), exact_number(y, numbers)) for x, y in shape.V]
    return vertices if shape.orientation > 0 else vertices[::-1]


def _polygon_planes(vertices: Sequence[Point]) -> list[Convex] | None:
    """A counter-clockwise polygon's edges as half-planes, when it is convex (every turn left or straight)."""
    n = len(vertices)
    turns = [sign(cross(vertices[k - 1], vertices[k], vertices[(k + 1) % n])) for k in range(n)]
    if any(t is None or t < 0 for t in turns):
        return None
    out: list[Convex] = []
    for k in range(n):
        (ax, ay), (bx, by) = vertices[k], vertices[(k + 1) % n]
        normal = (by - ay, ax - bx)                   # outward: the right of a counter-clockwise edge
        out.append(("plane", normal, normal[0] * ax + normal[1] * ay))
    return out


# ------------------------------------------------------------------ the inner shape against one inequality
def _within(inner: Shape, g: Convex, numbers: Numbers | None) -> bool | None:
    """Whether the largest value of ``g`` over ``inner`` is at most 0 (False: above 0)."""
    vertices = _vertices(inner, numbers)
    if vertices is not None:
        return all_of([_holds(g, v) for v in vertices])
    kind = g[0]
    if isinstance(inner, Annulus):
        inner = Disk(inner.c.tolist(), inner.r1)        # the same convex hull: the same largest values
    if isinstance(inner, (Disk, Ball)):
        c, r = _numbers(inner.c, numbers), exact_number(inner.r, numbers)
        if kind == "plane":
            _, n, b = g
            return at_most(_dot(n, c), r, _dot(n, n), b)
        if kind == "ball":
            _, d, r2, axes = g
            return at_most(r, sp.Integer(1), _distance2(c, d, axes), sp.sqrt(r2))
        return None
    if isinstance(inner, Ellipse):
        c, ab = _numbers(inner.c, numbers), _numbers(inner.ab, numbers)
        if kind == "plane":
            _, n, b = g
            return at_most(_dot(n, c), sp.Integer(1), (n[0] * ab[0]) ** 2 + (n[1] * ab[1]) ** 2, b)
        if kind == "ball" and all(sign(c[i] - g[1][i]) == 0 for i in (0, 1)):
            return le(max_of([ab[0] ** 2, ab[1] ** 2]), g[2])
        if kind == "ellipse" and all(sign(c[i] - g[1][i]) == 0 for i in (0, 1)):
            return le(max_of([(ab[0] / g[2][0]) ** 2, (ab[1] / g[2][1]) ** 2]), sp.Integer(1))
        return None
    if isinstance(inner, Cylinder):
        c, r, zs = _numbers(inner.c, numbers), exact_number(inner.r, numbers), _numbers(inner.z, numbers)
        if kind == "plane":
            _, n, b = g
            return all_of([at_most(n[0] * c[0] + n[1] * c[1] + n[2] * z, r, n[0] ** 2 + n[1] ** 2, b) for z in zs])
        if kind == "ball":
            _, d, r2, axes = g
            height = max_of([(z - d[2]) ** 2 for z in zs]) if 2 in axes else sp.Integer(0)
            room = None if height is None else sign(r2 - height)
            if room is None or room < 0:
                return None if room is None else False
            return at_most(r, sp.Integer(1), _distance2(c, d, (0, 1)), sp.sqrt(r2 - height))
    return None


def _beyond(inner: Shape, g: Convex, numbers: Numbers | None) -> bool | None:
    """Whether ``g >= 0`` on all of ``inner`` (so ``inner`` misses the open set g < 0): half-planes and balls."""
    kind = g[0]
    if kind == "plane":
        _, n, b = g
        flipped = ("plane", tuple(-v for v in n), -b)
        return _within(inner, flipped, numbers)           # -n.x <= -b everywhere on inner
    if kind == "ball":
        _, d, r2, axes = g
        if len(axes) != len(d):
            return None
        return _misses_hole(inner, d, sp.sqrt(r2), numbers)
    return None


def _misses_hole(inner: Shape, centre: Point, radius: sp.Expr, numbers: Numbers | None) -> bool | None:
    """Whether ``inner`` misses the open disk (or ball) of ``radius`` round ``centre``: every point of it at
    a distance of at least ``radius`` (False: the centre lies in a polygon ``inner``)."""
    vertices = _vertices(inner, numbers) if inner.dim == 2 else None
    if vertices is not None:
        if isinstance(inner, Box):
            vertices = [vertices[0], vertices[2], vertices[3], vertices[1]]      # counter-clockwise
        holds = _in_polygon(centre, vertices)
        if holds is not False:
            return None if holds is None else False
        return le(radius**2, min_of([_segment_distance2(centre, vertices[k - 1], vertices[k])
                                      for k in range(len(vertices))]))
    if isinstance(inner, (Disk, Ball)) and len(centre) == inner.dim:
        c, r = _numbers(inner.c, numbers), exact_number(inner.r, numbers)
        return le((r + radius) ** 2, _distance2(c, centre, tuple(range(len(c)))))
    return None


# ------------------------------------------------------------------ exact geometry
def _vertices(shape: Shape, numbers: Numbers | None) -> list[Point] | None:
    if isinstance(shape, Polygon):
        return polygon_vertices(shape, numbers)
    if isinstance(shape, Box):
        lo, hi = _numbers(shape.lo, numbers), _numbers(shape.hi, numbers)
        corners: list[Point] = [()]
        for a, b in zip(lo, hi):
            corners = [(*c, v) for c in corners for v in (a, b)]
        return corners
    return None


def _holds(g: Convex, p: Point) -> bool | None:
    kind = g[0]
    if kind == "plane":
        return le(_dot(g[1], p), g[2])
    if kind == "ball":
        return le(_distance2(p, g[1], g[3]), g[2])
    _, c, ab = g
    return le(sum((((p[i] - c[i]) / ab[i]) ** 2 for i in range(len(ab))), sp.Integer(0)), sp.Integer(1))


def _in_polygon(p: Point, vertices: Sequence[Point]) -> bool | None:
    """Whether ``p`` lies in the closed polygon (None: not decided), by its winding number."""
    winding = 0
    for k in range(len(vertices)):
        a, b = vertices[k - 1], vertices[k]
        side = sign(cross(a, b, p))
        ya, yb = sign(p[1] - a[1]), sign(p[1] - b[1])
        if side is None or ya is None or yb is None:
            return None
        if side == 0 and _between(p, a, b):
            return True                                     # on an edge
        if ya >= 0 and yb < 0 and side > 0:                 # an upward crossing with p left of a -> b
            winding += 1
        elif ya < 0 and yb >= 0 and side < 0:
            winding -= 1
    return winding != 0


def _between(p: Point, a: Point, b: Point) -> bool:
    """Whether ``p``, on the line through a and b, lies on the segment."""
    t = [sign((p[i] - a[i]) * (b[i] - p[i])) for i in (0, 1)]
    return all(s is not None and s >= 0 for s in t)


def _segment_distance2(p: Point, a: Point, b: Point) -> sp.Expr:
    """The squared distance from ``p`` to the segment a-b."""
    e = (b[0] - a[0], b[1] - a[1])
    t = ((p[0] - a[0]) * e[0] + (p[1] - a[1]) * e[1]) / (e[0] ** 2 + e[1] ** 2)
    t = sp.Integer(0) if le(t, sp.Integer(0)) else sp.Integer(1) if le(sp.Integer(1), t) else t
    return (p[0] - a[0] - t * e[0]) ** 2 + (p[1] - a[1] - t * e[1]) ** 2


def _distance2(p: Point, c: Point, axes: Sequence[int]) -> sp.Expr:
    return sum(((p[i] - c[i]) ** 2 for i in axes), sp.Integer(0))


def _dot(a: Point, b: Point) -> sp.Expr:
    return sum((x * y for x, y in zip(a, b)), sp.Integer(0))


def _numbers(values: Any, numbers: Numbers | None) -> Point:
    return tuple(exact_number(float(v), numbers) for v in values)


# ------------------------------------------------------------------ a polygon's triangles, exactly
def exact_triangles(shape: Polygon, numbers: Numbers | None = None) -> list[tuple[Point, Point, Point]] | None:
    """The polygon cut into triangles on its exact vertices (ear clipping, every turn decided exactly), or
    None where a sign cannot be decided. The floats' triangles can drop a vertex that only its float
    puts on a straight stretch (a sliver the proof would then not integrate)."""
    return _ears(tuple(polygon_vertices(shape, numbers)))


@functools.lru_cache(maxsize=64)
def _ears(vertices: tuple[Point, ...]) -> list[tuple[Point, Point, Point]] | None:
    rational = all(v.is_Rational for p in vertices for v in p)
    # rational vertices times their common denominator: integers, whose turns Python decides 50 times faster
    # than Fractions' (a polygon of 1000 vertices took 20 s)
    common = math.lcm(*(int(v.q) for p in vertices for v in p)) if rational else 1
    pts: list[tuple[Any, Any]] = [(int(x.p) * (common // int(x.q)), int(y.p) * (common // int(y.q)))
                                  for x, y in vertices] if rational else list(vertices)

    def turn(a: Any, b: Any, c: Any) -> int | None:
        value = cross(a, b, c)
        return (value > 0) - (value < 0) if rational else sign(value)
    idx, out = list(range(len(pts))), []
    while len(idx) > 3:
        for k in range(len(idx)):
            a, b, c = idx[k - 1], idx[k], idx[(k + 1) % len(idx)]
            corner = turn(pts[a], pts[b], pts[c])
            if corner is None:
                return None
            if corner == 0:              # a straight vertex bounds no triangle: drop it
                idx.pop(k)
                break
            if corner < 0:
                continue
            blocked = [_in_triangle(pts[i], pts[a], pts[b], pts[c], turn) for i in idx if i not in (a, b, c)]
            if None in blocked:
                return None
            if any(blocked):
                continue
            out.append((vertices[a], vertices[b], vertices[c]))
            idx.pop(k)
            break
        else:
            return None                  # no ear: not a simple counter-clockwise polygon as written
    a, b, c = idx
    corner = turn(pts[a], pts[b], pts[c])
    if corner is None or corner < 0:
        return None
    return out + ([(vertices[a], vertices[b], vertices[c])] if corner > 0 else [])


def _in_triangle(p: Any, a: Any, b: Any, c: Any, turn: Any) -> bool | None:
    """Whether ``p`` lies in the closed counter-clockwise triangle a, b, c."""
    sides = [turn(a, b, p), turn(b, c, p), turn(c, a, p)]
    return None if None in sides else all(s >= 0 for s in sides)
