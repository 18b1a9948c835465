"""What the teacher's values show about the functions a solution needs (NumPy only).

The teacher is asked for its values along lines parallel to each variable's axis, through a few
of the search points; each profile (one field along one variable) is read for shapes that name
functions:

==============================================  ==================
shape                                           functions
==============================================  ==================
a front: saturates between two plateaus         ``tanh``, ``atan``
oscillation: three or more large swings         ``sin``, ``cos``
a tail decaying slower than an exponential      ``sqrt``, ``log``
a tail decaying faster than an exponential      ``exp``, ``square``
one sign, decaying at a steady exponential rate ``exp``
==============================================  ==================

A tail is told apart by how its logarithmic slope ``|d log|u| / dx|`` moves outward: it falls for
a power law (``1/(1 + x**2)``), stays for an exponential and grows for a Gaussian.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: points along one profile
PROFILE_POINTS = 65
#: each shape: the functions it names and how the reason reads
SHAPES: dict[str, tuple[tuple[str, ...], str]] = {
    "saturation": (("tanh", "atan"), "saturates between two plateaus"),
    "oscillation": (("sin", "cos"), "oscillates (repeated swings and sign changes)"),
    "power_law": (("sqrt", "log"), "has a power-law tail"),
    "gaussian": (("exp", "square"), "has a Gaussian tail"),
    "exponential": (("exp",), "keeps one sign and decays exponentially"),
}
#: a swing (of the profile normalised to [0, 1]) that counts towards an oscillation
SWING = 0.3
#: the outer part of a profile (each side) whose slope a plateau keeps small
PLATEAU_SHARE = 0.15


@dataclass(frozen=True)
class Finding:
    """One shape seen in the teacher's values: the functions it names and why."""

    shape: str
    functions: tuple[str, ...]
    reason: str          # e.g. "u saturates between two plateaus along x"


def read_evidence(predict: Callable[[np.ndarray], np.ndarray], bounds: np.ndarray, points: np.ndarray,
                  variables: Sequence[str], fields: Sequence[str]) -> list[Finding]:
    """The shapes seen along axis lines through a few of ``points`` (the search points, shape (n, d));
    ``bounds`` (d, 2) the variables' ranges, ``predict`` X (m, d) -> values (m, n_fields).
    One finding per shape, in the order of :data:`SHAPES`; the first profile that shows it names it."""
    anchors = _anchors(predict, bounds, points)
    lines = [(axis, _line(bounds, points, anchor, axis)) for anchor in anchors for axis in range(len(variables))]
    if not lines:
        return []
    values = np.asarray(predict(np.vstack([X for _, X in lines])), dtype=float).reshape(len(lines) * PROFILE_POINTS, -1)
    seen: dict[str, str] = {}
    for i, (axis, X) in enumerate(lines):
        block = values[i * PROFILE_POINTS:(i + 1) * PROFILE_POINTS]
        for f, field in enumerate(fields[:block.shape[1]]):
            for shape in profile_shapes(X[:, axis], block[:, f]):
                seen.setdefault(shape, f"{field} {SHAPES[shape][1]} along {variables[axis]}")
    return [Finding(shape, SHAPES[shape][0], seen[shape]) for shape in SHAPES if shape in seen]


def _anchors(predict: Callable[[np.ndarray], np.ndarray], bounds: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The lines' anchors: the search point nearest the domain's centre and, per field, the one where the
    teacher's value is largest in size (a bump's peak, a front's far side)."""
    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or not len(points):
        return np.empty((0, len(bounds)))
    centre = points[np.argmin(np.sum(((points - bounds.mean(axis=1)) / _width(bounds)) ** 2, axis=1))]
    values = np.asarray(predict(points), dtype=float).reshape(len(points), -1)
    peaks = points[np.argmax(np.abs(values), axis=0)]
    anchors: np.ndarray = np.unique(np.vstack([centre[None, :], peaks]), axis=0)
    return anchors


def _width(bounds: np.ndarray) -> np.ndarray:
    width: np.ndarray = np.maximum(bounds[:, 1] - bounds[:, 0], 1e-300)
    return width


def _line(bounds: np.ndarray, points: np.ndarray, anchor: np.ndarray, axis: int) -> np.ndarray:
    """Points along ``axis`` through ``anchor``, over the extent of the search points near that line (so a
    line across a disk or an L-shape stays where the teacher was trained, as far as the points show)."""
    lo, hi = bounds[axis]
    others = [k for k in range(len(bounds)) if k != axis]
    if others:
        near = np.all(np.abs(points[:, others] - anchor[others]) <= 0.15 * _width(bounds)[others], axis=1)
        if np.count_nonzero(near) >= 5:
            lo, hi = points[near, axis].min(), points[near, axis].max()
    X = np.repeat(anchor[None, :], PROFILE_POINTS, axis=0)
    X[:, axis] = np.linspace(lo, hi, PROFILE_POINTS)
    return X


def profile_shapes(x: np.ndarray, y: np.ndarray) -> list[str]:
    """The shapes a 1-D profile ``y(x)`` (equispaced ``x``) shows, as keys of :data:`SHAPES`."""
    y = np.asarray(y, dtype=float)
    span = float(np.ptp(y)) if y.size else 0.0
    if y.size < 16 or not np.all(np.isfinite(y)) or span <= 1e-9 * (1.0 + float(np.max(np.abs(y)))):
        return []
    z = (y - y.min()) / span
    found = []
    if sum(s >= SWING for s in swings(z)) >= 3:
        found.append("oscillation")
    if _saturates(z):
        found.append("saturation")
    tail = _tail(np.asarray(x, dtype=float), y)
    if tail:
        found.append(tail)
    return found


def swings(z: np.ndarray, threshold: float = 0.1) -> list[float]:
    """The sizes of the profile's monotone runs, reversals smaller than ``threshold`` ignored (a zigzag)."""
    pivots, direction, extreme = [float(z[0])], 0, float(z[0])
    for v in map(float, z[1:]):
        if direction == 0:
            if abs(v - pivots[0]) >= threshold:
                direction, extreme = (1 if v > pivots[0] else -1), v
        elif (v - extreme) * direction > 0:
            extreme = v
        elif (extreme - v) * direction >= threshold:
            pivots.append(extreme)
            direction, extreme = -direction, v
    if direction:
        pivots.append(extreme)
    return [abs(b - a) for a, b in zip(pivots, pivots[1:])]


def _saturates(z: np.ndarray) -> bool:
    """A front: one monotone run across the whole range, steep inside and flat at both ends."""
    runs = swings(z, 0.05)
    if len(runs) != 1 or runs[0] < 0.9:
        return False
    slope = np.abs(np.diff(z))
    k = max(2, int(PLATEAU_SHARE * len(slope)))
    steepest = int(np.argmax(slope))
    inside = k <= steepest < len(slope) - k
    return inside and max(slope[:k].mean(), slope[-k:].mean()) <= 0.1 * slope.max()


def _tail(x: np.ndarray, y: np.ndarray) -> str | None:
    """How the profile decays from its largest size outward (the longer side first): ``gaussian``,
    ``exponential`` or ``power_law``; None where it does not decay enough, is not monotone, or reaches a
    root (a value of the other sign, or a second rise, beyond where it fades)."""
    a = np.abs(y)
    peak = int(np.argmax(a))
    sides = sorted((slice(peak, None), slice(peak, None, -1)), key=lambda s: -len(x[s]))
    for side in sides:
        if len(x[side]) >= 12:
            kind = _decay(np.abs(x[side] - x[peak]), y[side] * np.sign(y[peak]), a[peak])
            if kind:
                return kind
    return None


def _decay(d: np.ndarray, inside: np.ndarray, top: float) -> str | None:
    """The tail's kind from its outward logarithmic slopes (``d``: the distance from the peak)."""
    start = int(np.argmax(inside <= 0.9 * top))
    # the tail ends where it fades into the teacher's error (a hundredth of the peak); beyond, it must stay
    # there: a real value of the other sign, or a new rise, is a root, whose log-slope also grows
    fading = np.nonzero(inside[start:] <= 0.01 * top)[0]
    end = start + (int(fading[0]) if fading.size else len(inside) - start)
    if inside[start] > 0.9 * top or end - start < 9 or np.any(np.abs(inside[end:]) > 0.05 * top):
        return None
    logs = np.log(inside[start:end])
    if logs[0] - logs[-1] < 0.5:
        return None
    mid = (d[start:end][1:] + d[start:end][:-1]) / 2
    slopes = -np.diff(logs) / np.diff(d[start:end])
    if np.any(slopes <= 0):
        return None       # not monotone: a second bump, not a tail
    third = max(1, len(slopes) // 3)
    ratio = slopes[-third:].mean() / slopes[:third].mean()
    if ratio <= 0.75:
        return "power_law"
    if ratio < 1.4:
        return "exponential"
    # a Gaussian's log-slope grows in proportion to the distance; a root's grows without bound
    fit = np.polyval(np.polyfit(mid, slopes, 1), mid)
    return "gaussian" if np.sqrt(np.mean((slopes - fit) ** 2)) <= 0.1 * slopes.mean() else None
