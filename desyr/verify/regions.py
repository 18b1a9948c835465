"""A shape as inequalities, for the interval proofs of :mod:`desyr.verify.intervals`.

The sign of ``log``'s argument must be proved on the domain, not on its bounding box:
``log(x**2 + y**2)`` is finite on an annulus round the origin.  A region is a tree of
``("all", ...)``, ``("any", ...)`` and leaves ``g`` meaning ``g <= 0``; a box of the branch and
bound is dropped only when interval arithmetic proves it lies wholly outside (some leaf of every
path has ``g > 0`` on all of it), so a proof over the kept boxes covers the domain.

The box itself is exact too (:func:`domain_bounds`): a range's ends are the numbers the config wrote
(``[0.1, 1]`` starts at 1/10, not at the float below or above it), and a shape's bounding box, which
is computed in floats, is widened by :data:`MARGIN` so that it holds the exact shape, which the
region's inequalities then clip.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy as sp

from desyr.model.containment import exact_triangles
from desyr.model.csg import Combined
from desyr.model.patches import exact_number
from desyr.model.shapes import Annulus, Ball, Box, Cylinder, Disk, Ellipse, Polygon, Shape, ear_clip
from desyr.model.written import Numbers

if TYPE_CHECKING:
    from desyr.model.problem import Problem

Region = tuple[str, Any]
#: how far a shape's float bounding box is widened (relative to its size): far above its rounding
MARGIN = Fraction(1, 10**9)


def domain_bounds(problem: Problem) -> dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]:
    """Each variable's range as exact numbers: the ends the config wrote; on a shape's axes, its float
    bounding box widened outward by :data:`MARGIN` (the shape's inequalities clip the rest)."""
    space = set(problem.geometry.space) if problem.geometry is not None else set()
    out: dict[sp.Symbol, tuple[sp.Expr, sp.Expr]] = {}
    for s, v in zip(problem.symbols, problem.variables):
        if v.name in space:
            lo, hi = Fraction(v.lo), Fraction(v.hi)
            pad = MARGIN * max(abs(lo), abs(hi), hi - lo, Fraction(1, 2**64))
            out[s] = (sp.Rational(lo - pad), sp.Rational(hi + pad))
        else:
            out[s] = (exact_number(v.lo, problem.numbers), exact_number(v.hi, problem.numbers))
    return out


def domain_region(problem: Problem) -> Region | None:
    """The domain's shape as inequalities, its numbers as written (None on a box: the bounds are the domain)."""
    if problem.geometry is None:
        return None
    xs = tuple(problem.vocabulary.var_symbols[v] for v in problem.geometry.space)
    numbers = problem.numbers
    # once per shape: a polygon of 1000 vertices is 1000 triangles of SymPy inequalities (seconds), and the
    # smoothness, realness and printed-formula proofs each ask for them
    return _region(problem.geometry.shape, xs, frozenset(numbers.items()) if numbers else None)


@functools.lru_cache(maxsize=8)
def _region(shape: Shape, xs: tuple[sp.Symbol, ...], numbers: frozenset[tuple[float, sp.Expr]] | None) -> Region:
    return shape_region(shape, xs, dict(numbers) if numbers is not None else None)


def shape_region(shape: Shape, xs: Sequence[sp.Symbol], numbers: Numbers | None = None) -> Region:
    """``shape`` as inequalities in ``xs``, its numbers as the config wrote them (``numbers``)."""
    def e(value: float) -> sp.Expr:
        return exact_number(value, numbers)
    if isinstance(shape, Combined):
        a, b = shape_region(shape.a, xs, numbers), shape_region(shape.b, xs, numbers)
        if shape.op == "union":
            return ("any", (a, b))
        if shape.op == "intersection":
            return ("all", (a, b))
        return ("all", (a, _complement(b)))
    if isinstance(shape, (Disk, Ball)):
        return ("leaf", sum((x - e(c)) ** 2 for x, c in zip(xs, shape.c)) - e(shape.r) ** 2)
    if isinstance(shape, Annulus):
        rho2 = sum((x - e(c)) ** 2 for x, c in zip(xs, shape.c))
        return ("all", (("leaf", rho2 - e(shape.r1) ** 2), ("leaf", e(shape.r0) ** 2 - rho2)))
    if isinstance(shape, Ellipse):
        return ("leaf", sum(((x - e(c)) / e(a)) ** 2 for x, c, a in zip(xs, shape.c, shape.ab)) - 1)
    if isinstance(shape, Cylinder):
        radial = sum((x - e(c)) ** 2 for x, c in zip(xs[:2], shape.c)) - e(shape.r) ** 2
        return ("all", (("leaf", radial), ("leaf", e(shape.z[0]) - xs[2]), ("leaf", xs[2] - e(shape.z[1]))))
    if isinstance(shape, Box):
        return ("all", tuple(("leaf", e(lo) - x) for x, lo in zip(xs, shape.lo))
                + tuple(("leaf", x - e(hi)) for x, hi in zip(xs, shape.hi)))
    if isinstance(shape, Polygon):
        triangles = exact_triangles(shape, numbers)
        if triangles is None:        # a turn too close to straight to decide at 60 digits: the floats' ears
            vertices = shape.V if shape.orientation > 0 else shape.V[::-1]
            triangles = [tuple(tuple(exact_number(v, numbers) for v in p) for p in tri)  # type: ignore[misc]
                         for tri in ear_clip(vertices)]
        return ("any", tuple(_triangle(tri, xs) for tri in triangles))
    raise TypeError(f"no inequalities for {type(shape).__name__}")  # pragma: no cover


def _triangle(tri: Any, xs: Sequence[sp.Symbol]) -> Region:
    leaves = []
    for k in range(3):
        (px, py), (qx, qy) = tri[k], tri[(k + 1) % 3]
        # counter-clockwise: inside is to the left of each edge (cross product >= 0)
        leaves.append(("leaf", -((qx - px) * (xs[1] - py) - (qy - py) * (xs[0] - px))))
    return ("all", tuple(leaves))


def _complement(region: Region) -> Region:
    kind, body = region
    if kind == "leaf":
        return ("leaf", -body)          # closure of the complement: the boundary belongs to both
    return ("any" if kind == "all" else "all", tuple(_complement(r) for r in body))


def outside(region: Region, box: dict[sp.Symbol, Any], enclose: Any) -> bool:
    """Whether interval arithmetic proves ``box`` disjoint from the region."""
    kind, body = region
    if kind == "leaf":
        try:
            return bool(enclose(body, box).a > 0)
        except Exception:  # noqa: BLE001 - not enclosed: not proved outside
            return False
    if kind == "all":
        return any(outside(r, box, enclose) for r in body)
    return all(outside(r, box, enclose) for r in body)


def contains(region: Region, point: dict[sp.Symbol, Any], enclose: Any) -> bool:
    """Whether the (degenerate) box ``point`` is proved inside the closed region."""
    kind, body = region
    if kind == "leaf":
        try:
            return bool(enclose(body, point).b <= 0)
        except Exception:  # noqa: BLE001
            return False
    if kind == "all":
        return all(contains(r, point, enclose) for r in body)
    return any(contains(r, point, enclose) for r in body)
