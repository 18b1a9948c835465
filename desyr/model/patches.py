"""Smooth pieces of shapes' boundaries: uniform sampling, outward normals, parametrisations.

A patch is data (its kind and numbers); the functions of each kind sample it uniformly by arc
length or area, give its outward unit normal as SymPy expressions of the coordinates, and
parametrise it exactly for the proof (:mod:`desyr.verify.proof`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from desyr.model.written import Numbers
from desyr.model.written import exact_number as written_number

#: symbols of a patch's parametrisation: the proof requires the residual to vanish identically in them.
#: Dummies, so no variable, time or parameter a config names can be one of them (a time named ``s``
#: would otherwise be substituted by the arc's angle and the proof ask nothing about it)
S, R, Q = sp.Dummy("s", real=True), sp.Dummy("r", real=True), sp.Dummy("q", real=True)


@dataclass(frozen=True)
class Patch:
    """A smooth piece of a primitive's boundary with one normal field."""

    name: str
    kind: str                                # "arc", "ellipse", "segment", "sphere", "side", "cap", "face"
    data: tuple[float, ...]
    measure: float
    dim: int
    #: the exact values the config wrote for the numbers of ``data`` (``1/3``), as (float, exact) pairs
    numbers: tuple[tuple[float, sp.Expr], ...] = field(default=(), compare=False)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return _SAMPLERS[self.kind](self.data, rng, n)

    def normal(self, coords: Sequence[sp.Symbol]) -> tuple[sp.Expr, ...]:
        """Outward unit normal (of the primitive) as expressions of the coordinates."""
        return _NORMALS[self.kind](self.data, self.exact_data(), list(coords))

    def normal_at(self, P: np.ndarray) -> np.ndarray:
        """Outward unit normals (of the primitive) at points ``P`` of the patch, numerically."""
        return _NORMALS_AT[self.kind](self.data, P)

    def parametrisation(self) -> tuple[sp.Expr, ...]:
        """Coordinates as exact expressions of the parameters :data:`S` (and :data:`R`)."""
        return _PARAMS[self.kind](self.exact_data())

    def exact_data(self) -> tuple[sp.Expr, ...]:
        """``data`` as the exact numbers the config wrote."""
        numbers = dict(self.numbers)
        return tuple(exact_number(v, numbers) for v in self.data)


def number_text(value: float) -> str:
    """Every digit a number has (``1``, ``0.9999999``): shapes and faces that differ read differently."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def exact_number(value: float, numbers: Numbers | None = None) -> sp.Expr:
    """The exact number a config meant by ``value``: as written where ``numbers`` records it (``1/3`` in a
    shape's text), else a short decimal as its rational (0.999 -> 999/1000), a multiple of pi as that
    multiple (6.283185307179586 -> 2*pi), else the float's own decimal (:func:`desyr.model.written.exact_number`)."""
    return written_number(value, numbers)


# ------------------------------------------------------------------------- patch kinds
def _arc_sample(d: tuple[float, ...], rng: np.random.Generator, n: int) -> np.ndarray:
    cx, cy, r, _ = d
    a = rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])


def _ellipse_sample(d: tuple[float, ...], rng: np.random.Generator, n: int) -> np.ndarray:
    cx, cy, a, b = d
    out: list[np.ndarray] = []
    count = 0
    while count < n:     # uniform in arc length: accept the angle with probability speed / max speed
        th = rng.uniform(0, 2 * np.pi, 2 * n + 8)
        speed = np.hypot(a * np.sin(th), b * np.cos(th))
        keep = th[rng.random(th.size) * max(a, b) <= speed]
        out.append(keep)
        count += keep.size
    th = np.concatenate(out)[:n]
    return np.column_stack([cx + a * np.cos(th), cy + b * np.sin(th)])


def _segment_sample(d: tuple[float, ...], rng: np.random.Generator, n: int) -> np.ndarray:
    p0, p1 = np.array(d[0:2]), np.array(d[2:4])
    s = rng.random((n, 1))
    return np.asarray(p0 + s * (p1 - p0))


def _sphere_sample(d: tuple[float, ...], rng: np.random.Generator, n: int) -> np.ndarray:
    c, r = np.array(d[0:3]), d[3]
    g = rng.standard_normal((n, 3))
    return np.asarray(c + r * g / np.linalg.norm(g, axis=1, keepdims=True))


def _side_sample(d: tuple[float, ...], rng: np.random.Generator, n: int) -> np.ndarray:
    cx, cy, r, z0, z1 = d
    a = rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a), rng.uniform(z0, z1, n)])


def _cap_sample(d: tuple[float, ...], rng: np.random.Generator, n: int) -> np.ndarray:
    cx, cy, r, z, _ = d
    rho, a = r * np.sqrt(rng.random(n)), rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([cx + rho * np.cos(a), cy + rho * np.sin(a), np.full(n, z)])


def _face_sample(d: tuple[float, ...], rng: np.random.Generator, n: int) -> np.ndarray:
    axis, at, _ = int(d[0]), d[1], d[2]
    lo, hi = np.array(d[3::2]), np.array(d[4::2])
    pts = lo + rng.random((n, lo.size)) * (hi - lo)
    pts[:, axis] = at
    return np.asarray(pts)


_SAMPLERS: dict[str, Callable[[tuple[float, ...], np.random.Generator, int], np.ndarray]] = {"arc": _arc_sample, "ellipse": _ellipse_sample, "segment": _segment_sample, "sphere": _sphere_sample,
             "side": _side_sample, "cap": _cap_sample, "face": _face_sample}


def _unit(parts: list[sp.Expr]) -> tuple[sp.Expr, ...]:
    norm = sp.sqrt(sum(p**2 for p in parts))
    return tuple(p / norm for p in parts)


def _flip(d: tuple[float, ...], sign_index: int, parts: tuple[sp.Expr, ...]) -> tuple[sp.Expr, ...]:
    return tuple(-p for p in parts) if d[sign_index] < 0 else parts


_NORMALS: dict[str, Callable[[tuple[float, ...], tuple[sp.Expr, ...], list[sp.Symbol]], tuple[sp.Expr, ...]]] = {
    "arc": lambda d, e, c: _flip(d, 3, ((c[0] - e[0]) / e[2], (c[1] - e[1]) / e[2])),
    "ellipse": lambda d, e, c: _unit([(c[0] - e[0]) / e[2]**2, (c[1] - e[1]) / e[3]**2]),
    "segment": lambda d, e, c: _segment_normal(d, e),
    "sphere": lambda d, e, c: tuple((c[i] - e[i]) / e[3] for i in range(3)),
    "side": lambda d, e, c: ((c[0] - e[0]) / e[2], (c[1] - e[1]) / e[2], sp.Integer(0)),
    "cap": lambda d, e, c: (sp.Integer(0), sp.Integer(0), sp.Integer(int(d[4]))),
    "face": lambda d, e, c: tuple(sp.Integer(int(d[2])) if i == int(d[0]) else sp.Integer(0)
                                  for i in range((len(d) - 3) // 2)),
}


def _segment_normal(d: tuple[float, ...], e: tuple[sp.Expr, ...]) -> tuple[sp.Expr, ...]:
    # d = (x0, y0, x1, y1, orientation): outward is the right of the edge for a counter-clockwise polygon
    dx, dy = e[2] - e[0], e[3] - e[1]
    length = sp.sqrt(dx**2 + dy**2)
    sign = 1 if d[4] > 0 else -1
    return (sign * dy / length, -sign * dx / length)


_PARAMS: dict[str, Callable[[tuple[sp.Expr, ...]], tuple[sp.Expr, ...]]] = {
    "arc": lambda d: (d[0] + d[2] * sp.cos(S), d[1] + d[2] * sp.sin(S)),
    "ellipse": lambda d: (d[0] + d[2] * sp.cos(S), d[1] + d[3] * sp.sin(S)),
    "segment": lambda d: (d[0] + S * (d[2] - d[0]), d[1] + S * (d[3] - d[1])),
    "sphere": lambda d: (d[0] + d[3] * sp.cos(S) * sp.sin(R), d[1] + d[3] * sp.sin(S) * sp.sin(R), d[2] + d[3] * sp.cos(R)),
    "side": lambda d: (d[0] + d[2] * sp.cos(S), d[1] + d[2] * sp.sin(S), R),
    "cap": lambda d: (d[0] + R * sp.cos(S), d[1] + R * sp.sin(S), d[3]),
    "face": lambda d: _face_param(d),
}


def _face_param(d: tuple[sp.Expr, ...]) -> tuple[sp.Expr, ...]:
    axis, dims = int(float(d[0])), (len(d) - 3) // 2      # the float: an axis index is no written number
    free = iter([S, R, Q])
    return tuple(d[1] if i == axis else next(free) for i in range(dims))


def _radial(P: np.ndarray, centre: tuple[float, ...], sign: float = 1.0) -> np.ndarray:
    d = P - np.asarray(centre)
    return np.asarray(sign * d / np.linalg.norm(d, axis=1, keepdims=True))


def _segment_normal_at(d: tuple[float, ...], P: np.ndarray) -> np.ndarray:
    dx, dy = d[2] - d[0], d[3] - d[1]
    n = np.array([dy, -dx]) * (1 if d[4] > 0 else -1) / np.hypot(dx, dy)
    return np.tile(n, (len(P), 1))


def _ellipse_normal_at(d: tuple[float, ...], P: np.ndarray) -> np.ndarray:
    g = (P - np.array(d[0:2])) / np.array(d[2:4]) ** 2
    return np.asarray(g / np.linalg.norm(g, axis=1, keepdims=True))


def _side_normal_at(d: tuple[float, ...], P: np.ndarray) -> np.ndarray:
    out = np.zeros_like(P)
    out[:, :2] = _radial(P[:, :2], d[0:2])
    return out


def _constant_normal(n: np.ndarray, count: int) -> np.ndarray:
    return np.tile(n, (count, 1))


_NORMALS_AT: dict[str, Callable[[tuple[float, ...], np.ndarray], np.ndarray]] = {
    "arc": lambda d, P: _radial(P, d[0:2], 1.0 if d[3] > 0 else -1.0),
    "ellipse": _ellipse_normal_at,
    "segment": _segment_normal_at,
    "sphere": lambda d, P: _radial(P, d[0:3]),
    "side": _side_normal_at,
    "cap": lambda d, P: _constant_normal(np.array([0.0, 0.0, d[4]]), len(P)),
    "face": lambda d, P: _constant_normal(np.eye((len(d) - 3) // 2)[int(d[0])] * d[2], len(P)),
}

