"""Which observations can tell one solution of a problem from another.

An observation of a field at a point where a constraint fixes that field's value (``u = sin(pi*x)``
at t = 0) is the same for every candidate that meets the constraint, whatever its coefficients: it
carries no information about them. Pooled with the rest it only dilutes the misfit, so that 99,920
values at t = 0 beside 80 informative ones let a wrong diffusivity pass the chi-square test
(issue 35). Such observations are left out of the test (:meth:`desyr.model.problem.Problem.misfit`
finds them), and the verdict says how many; this module holds the scan over the rest.
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

#: the misfit exact data allow (round-off in the data file and the evaluation), as a fraction of the
#: observed values' spread about their mean, never of their RMS: a constant that every candidate shares
#: (u = 10**8 + ...) would inflate the RMS, and the allowance with it, until a wrong unknown passes
EXACT_DATA_MISFIT = 1e-6


def spread(values: np.ndarray) -> float:
    """The size of a field's observed values that the exact-data allowance is relative to: their standard
    deviation about their mean, or their RMS where they are all equal (0 only for an all-zero field)."""
    return float(np.std(values)) or float(np.sqrt(np.mean(np.square(values))))

# ------------------------------------------------------------------------ the scan over windows
# Leaving out the points on a constraint's set is not enough: values just off it (t = 1e-6), near a
# shape's curved rim or in a corner agree as well for every candidate, and noisy ones dilute a pooled
# test just the same. No rule can list every such region, so the test also looks at subsets that
# padding cannot reach: the points sorted by each variable, and by their distance to the sets the
# constraints hold on, cut into dyadic windows (halves, quarters, ... down to MIN_WINDOW points, and the
# same shifted by half a window). Informative points sit together in at least one of these orders, so a
# window holds mostly them; a chi-square test on every window, Bonferroni-corrected, keeps the true
# solution's false alarms below SCAN_ALPHA per side.

#: the family-wise false-alarm rate of all windows together, on each side (the pooled test comes on top)
SCAN_ALPHA = 1e-4
#: the fewest points a window holds (below, one outlier decides a window)
MIN_WINDOW = 16


@dataclass(frozen=True)
class Window:
    """A run of observations, consecutive in one ordering, whose misfit the stated noise does not
    allow: ``text`` names them ("the 80 points with t >= 0.93"); ``misfit`` is their relative RMS and
    ``bound`` the most (or, on the lower side, the least) the noise allows it there."""

    text: str
    misfit: float
    bound: float


def _windows(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starts, stops and levels of the dyadic windows of ``n`` sorted points (level 0, all of them,
    is the pooled test's): 2**L windows at level L and 2**L - 1 shifted by half of one."""
    starts, stops, levels = [], [], []
    level = 1
    while n / 2**level >= MIN_WINDOW:
        m = 2**level
        edges = np.floor(np.arange(m + 1) * n / m).astype(np.int64)
        shifted = np.floor((np.arange(m) + 0.5) * n / m).astype(np.int64)
        starts += [edges[:-1], shifted[:-1]]
        stops += [edges[1:], shifted[1:]]
        levels.append(np.full(2 * m - 1, level))
        level += 1
    if not levels:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(starts), np.concatenate(stops), np.concatenate(levels)


def scan(relative: np.ndarray, keys: list[tuple[str, np.ndarray]], noise: float, fitted: int,
         tests: int = 1, exact: float = EXACT_DATA_MISFIT) -> tuple[Window | None, Window | None]:
    """The window whose misfit lies furthest above what ``noise`` allows, and the one furthest below
    (None: every window passes). ``relative`` holds the residuals over the field's RMS; ``tests`` is how
    many such scans share SCAN_ALPHA (one per field); ``exact`` is the round-off allowance on the same
    scale (:data:`EXACT_DATA_MISFIT` times the field's spread over its RMS)."""
    n = relative.shape[0]
    starts, stops, levels = _windows(n)
    if not starts.size or not np.isfinite(relative).all():
        return None, None                 # too few points, or a misfit the pooled test refuses already
    size = stops - starts
    # each level of each order gets an equal share, split among its windows (a weighted Bonferroni)
    share = SCAN_ALPHA / (tests * len(keys) * int(levels.max()) * (2.0 ** (np.arange(levels.max() + 1) + 1) - 1))
    z = np.array([NormalDist().inv_cdf(float(p)) for p in share])[levels]
    upper = noise * np.sqrt(_chi_square(-z, size) / size) + exact
    dof = size - fitted
    lower = noise * np.sqrt(_chi_square(z, np.maximum(dof, 1)) / size) * (dof > 0)
    squares = np.square(relative)
    above: Window | None = None
    below: Window | None = None
    for name, key in keys:
        order = np.argsort(key, kind="stable")
        total = np.concatenate([[0.0], np.cumsum(squares[order])])
        rms = np.sqrt((total[stops] - total[starts]) / size)
        if (rms > upper).any():
            i = int(np.argmax(rms / upper))
            if above is None or rms[i] / upper[i] > above.misfit / above.bound:
                above = Window(_describe(name, key[order], starts[i], stops[i]), float(rms[i]), float(upper[i]))
        if (rms < lower).any():
            i = int(np.argmin(rms / np.where(lower > 0, lower, np.inf)))
            if below is None or rms[i] / lower[i] < below.misfit / below.bound:
                below = Window(_describe(name, key[order], starts[i], stops[i]), float(rms[i]), float(lower[i]))
    return above, below


def _chi_square(z: np.ndarray, dof: np.ndarray) -> np.ndarray:
    """The chi-square quantile with ``dof`` degrees of freedom where a standard normal has ``z``
    (Wilson-Hilferty). From 16 degrees of freedom and tail probabilities down to 1e-12 it lies above the
    exact upper quantile (by at most 4 %) and below the exact lower one: the test errs towards passing."""
    h = 2.0 / (9.0 * dof)
    return np.asarray(dof * np.maximum(1.0 - h + z * np.sqrt(h), 0.0) ** 3)


def _describe(name: str, key: np.ndarray, start: int, stop: int) -> str:
    """``the 80 points with t >= 0.93``: the window ``key[start:stop]`` of a sorted order, in words."""
    lo, hi = float(key[start]), float(key[stop - 1])
    whole = (start == 0 or key[start - 1] < lo) and (stop == key.size or key[stop] > hi)
    what = name or "a distance to the constraints' sets"
    if lo == hi:
        where = f"{what} = {lo:.3g}"
    elif start == 0:
        where = f"{what} <= {hi:.3g}"
    elif stop == key.size:
        where = f"{what} >= {lo:.3g}"
    else:
        where = f"{lo:.3g} <= {what} <= {hi:.3g}"
    if not name:
        where += " (a fraction of the domain's size)"
    return f"the {stop - start} points with {where}" if whole else f"{stop - start} of the points with {where}"
