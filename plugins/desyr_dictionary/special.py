"""Special columns: ``erf`` of a similarity variable and Bessel functions of order 0 of a radius.

Separable terms cannot hold ``erf(x/(2*sqrt(t)))`` or ``besselj(0, k*sqrt(x**2 + y**2))``: their
argument mixes variables.  Such a function is separable in a *derived coordinate* of the geometry the
task carries (:attr:`SearchTask.time`, :attr:`SearchTask.centres`): the similarity variable
``xi = v/sqrt(t)`` of each spatial variable ``v`` where time is positive on every sample (the heat
equation's self-similar solutions), and the radius ``r`` from each round shape's centre.  Each such
coordinate becomes one more column of the samples; its only factors are the special functions
(``erf(a*xi)``, ``besselj(0, k*r)``, ...), whose parameters ``a`` and ``k`` the refinement moves like any
rate or frequency.  Only the coordinates the geometry has are built, so a box without time gets none.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp


def _scipy_special(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """scipy.special's ``name``, imported at the first call: the plugin loads with every default run,
    and most runs evaluate no special column."""
    def values(a: np.ndarray) -> np.ndarray:
        from scipy import special

        return np.asarray(getattr(special, name)(a))
    return values


#: the special factors, by the name the ``special`` option writes: values and meaning
NUMPY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "erf": _scipy_special("erf"), "besselj": _scipy_special("j0"), "bessely": _scipy_special("y0"),
    "besseli": _scipy_special("i0"), "besselk": _scipy_special("k0")}
SYMPY: dict[str, Callable[[sp.Expr], sp.Expr]] = {
    "erf": sp.erf, "besselj": lambda a: sp.besselj(0, a), "bessely": lambda a: sp.bessely(0, a),
    "besseli": lambda a: sp.besseli(0, a), "besselk": lambda a: sp.besselk(0, a)}
SPECIAL = tuple(NUMPY)
RADIAL = ("besselj", "bessely", "besseli", "besselk")
#: Y0 and K0 have a branch point at r = 0: offered only where every sample keeps away from the centre
NEEDS_POSITIVE = frozenset({"bessely", "besselk"})
#: ... and where the samples leave a hole round the centre: a ball of radius min r would hold more than
#: this many of them if they reached the centre as densely as the shape's extent (an annulus, not a disk,
#: whose nearest of n samples lies at about R/sqrt(n))
EMPTY = 10.0
#: the rank of a special factor (a term's cost, see desyr_dictionary.basis): after a harmonic's first pair
RANK = 2
#: scales a of erf(a*xi), a factor of 2 apart; each may move between a/2 and 2a
ERF_SCALES = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True)
class Coordinate:
    """A derived coordinate: its values at the samples, its expression in the variables, the special
    factors offered on it and their parameter grid (``step``: each parameter moves by half of it; None:
    between half and twice its value)."""

    name: str
    values: np.ndarray
    expr: sp.Expr
    ops: tuple[str, ...]
    grid: tuple[float, ...]
    step: float | None


def coordinates(X: np.ndarray, symbols: Sequence[sp.Symbol], time: str | None,
                centres: Sequence[Mapping[str, float]], wanted: Sequence[str], max_harmonic: int) -> list[Coordinate]:
    """The derived coordinates of the samples ``X`` (columns: ``symbols``) that ``wanted`` special
    functions can use; none where the task has neither a positive time nor a round shape."""
    names = [str(s) for s in symbols]
    out: list[Coordinate] = []
    if "erf" in wanted and time in names and float(X[:, names.index(time)].min()) > 0:
        t = names.index(time)
        root = np.sqrt(X[:, t])
        for i, name in enumerate(names):
            if i != t:
                out.append(Coordinate(f"{name}/sqrt({time})", X[:, i] / root, symbols[i] / sp.sqrt(symbols[t]),
                                      ("erf",), ERF_SCALES, None))
    radial = [op for op in RADIAL if op in wanted]
    for centre in centres if radial else ():
        if not centre or any(v not in names for v in centre):
            continue
        r2 = sum((X[:, names.index(v)] - c) ** 2 for v, c in centre.items())
        r = np.sqrt(np.asarray(r2, dtype=float))
        expr = sp.sqrt(sum((symbols[names.index(v)] - sp.nsimplify(c)) ** 2 for v, c in centre.items()))
        span = float(r.max(initial=0.0))
        if not span > 0:
            continue
        hole = len(r) * (float(r.min()) / span) ** len(centre) > EMPTY
        ops = tuple(op for op in radial if op not in NEEDS_POSITIVE or hole)
        step = math.pi / (2 * span)       # k*R up to max_harmonic*pi/2, the grid of J0's oscillations
        out.append(Coordinate(f"r{len(out)}", r, expr, ops, tuple(j * step for j in range(1, max_harmonic + 1)),
                              step))
    return out
