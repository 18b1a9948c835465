"""A problem's shape as a DeepXDE geometry, for the teacher's interior points.

Disks, polygons, balls, boxes and their unions, differences and intersections are
DeepXDE's own classes (``dde.geometry.Disk``, ``CSGDifference``...).  A shape DeepXDE lacks (a
cylinder, or a CSG that contains one) is wrapped, and so are an ellipse and a triangle (DeepXDE's ``Ellipse`` and
``Triangle`` return their points in float64 whatever the precision, which the network refuses; an outside user's
triangle crashed every teacher): its points come from DeSyR's exact sampler.
The teacher's constraint points never come from here: they are DeSyR's, on each constraint's sets.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from desyr.plugin import Geometry
from desyr_deepxde.backend import DeepXDEGeometry, dde


def deepxde_geometry(geometry: Geometry, seed: int) -> Any:
    """``dde.geometry`` for ``geometry.shape``: DeepXDE's own classes where they exist and accept it."""
    try:
        built = _native(geometry.shape)
    except ValueError:          # DeepXDE refuses some shapes of its own kind: "The polygon is a rectangle"
        built = None
    return built if built is not None else ShapeGeometry(geometry, seed)


def _native(shape: Any) -> Any:
    """DeepXDE's class for ``shape``, or None.  The shape is Any: its kind is told by its class name,
    since ``desyr.plugin`` does not export the shape classes (and DeepXDE's geometries are untyped)."""
    kind = type(shape).__name__
    g = dde.geometry
    if kind == "Disk":
        return g.Disk(list(shape.c), shape.r)
    if kind == "Annulus":
        return g.CSGDifference(g.Disk(list(shape.c), shape.r1), g.Disk(list(shape.c), shape.r0))
    if kind == "Polygon":      # DeepXDE refuses a three-vertex Polygon, and its Triangle returns float64 points
        return None if len(shape.V) == 3 else g.Polygon(shape.V.tolist())
    if kind == "Ball":
        return g.Sphere(list(shape.c), shape.r)
    if kind == "Box":
        return g.Rectangle(list(shape.lo), list(shape.hi)) if shape.dim == 2 else g.Hypercube(list(shape.lo), list(shape.hi))
    if kind == "Combined":
        a, b = _native(shape.a), _native(shape.b)
        if a is None or b is None:
            return None
        return {"union": g.CSGUnion, "difference": g.CSGDifference, "intersection": g.CSGIntersection}[shape.op](a, b)
    return None


class ShapeGeometry(DeepXDEGeometry):
    """A DeSyR shape behind DeepXDE's geometry interface (interior points only: every constraint is
    a point-set condition on DeSyR's own points)."""

    def __init__(self, geometry: Geometry, seed: int) -> None:
        lo, hi = geometry.shape.bounding_box()
        super().__init__(geometry.shape.dim, (lo, hi), float(np.linalg.norm(hi - lo)))
        self.shape = geometry.shape
        self.rng = np.random.default_rng([seed, 4099])

    def inside(self, x: np.ndarray) -> np.ndarray:
        inside: np.ndarray = self.shape.level(np.asarray(x, dtype=float)) <= 0
        return inside

    def on_boundary(self, x: np.ndarray) -> np.ndarray:
        near: np.ndarray = np.isclose(self.shape.level(np.asarray(x, dtype=float)), 0.0, atol=1e-9)
        return near

    def random_points(self, n: int, random: str = "pseudo") -> np.ndarray:
        lo, hi = self.bbox
        out: list[np.ndarray] = []
        count = 0
        while count < n:
            P = lo + self.rng.random((2 * (n - count) + 64, self.dim)) * (hi - lo)
            keep = P[self.shape.level(P) < 0]
            out.append(keep)
            count += len(keep)
        points: np.ndarray = np.vstack(out)[:n].astype(dde.config.real(np))
        return points

    def uniform_points(self, n: int, boundary: bool = True) -> np.ndarray:
        return self.random_points(n)

    def random_boundary_points(self, n: int, random: str = "pseudo") -> np.ndarray:
        raise NotImplementedError("the teacher's boundary points are DeSyR's constraint points")
