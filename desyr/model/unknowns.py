"""Unknown coefficients of the equations, and the observations that decide them.

An unknown (``[unknowns] nu = [0.01, 1]``) is a symbol of the equations whose value the run
finds.  A candidate carries its value as one more entry of its expression mapping
(``{"u": ..., "nu": 1/10}``), so that :meth:`desyr.model.problem.Problem.apply` puts it into
the equations wherever a residual is formed: the refit fits it like any constant, the exact
form names it like any constant, and the verifier proves the physics with it.  The
observations are data: they are never part of the physics score, and their misfit is
reported beside the verdict.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from desyr.model.informative import EXACT_DATA_MISFIT, Window
from desyr.model.written import Numbers, exact_number


@dataclass(frozen=True)
class Unknown:
    """A coefficient to identify, with the bounds it must lie in."""

    name: str
    lo: float
    hi: float

    def start(self) -> float:
        """Where a fit starts without a teacher's estimate: the geometric middle of a positive
        range (coefficients span decades), the middle otherwise."""
        if self.lo > 0:
            return math.sqrt(self.lo * self.hi)
        return 0.5 * (self.lo + self.hi)

    def contains(self, value: sp.Expr, numbers: Numbers | None = None) -> bool:
        """Whether the exact number ``value`` lies in the range, its ends as the config wrote them (0.1 is
        1/10): compared exactly, or to 30 guaranteed digits, never through a float, which rounds
        ``1/10 + 10**-20`` onto 0.1 and ``-exp(-10**6)`` onto 0. False where it cannot be shown."""
        lo, hi = exact_number(self.lo, numbers), exact_number(self.hi, numbers)
        return _nonnegative(sp.sympify(value) - lo) and _nonnegative(hi - sp.sympify(value))


def _nonnegative(difference: sp.Expr) -> bool:
    """Whether a constant is shown to be >= 0 (a complex one is not)."""
    if difference.is_Rational or difference.is_zero:
        return bool(difference >= 0)
    from sympy.core.evalf import PrecisionExhausted
    try:
        value = difference.evalf(30, strict=True)
    except (PrecisionExhausted, ValueError, TypeError, OverflowError):
        return False
    return bool(value.is_Float and value > 0)


#: the most a field's residuals are scaled up against the largest field's (six decades: beyond,
#: the larger field's rows would sink into the smaller's round-off in the refit's Jacobian)
MAX_WEIGHT = 1e6


@dataclass(frozen=True, eq=False)
class Observations:
    """Measured values of some fields at points: ``X`` (n, dim) in the problem's variable order,
    ``values`` (n, len(fields)); ``noise`` is the stated relative noise level (0: exact data)."""

    X: np.ndarray
    values: np.ndarray
    fields: tuple[str, ...]
    noise: float = 0.0
    origin: str = ""

    def __post_init__(self) -> None:
        # shared between stages and worker processes: nobody may change the data in place
        self.X.setflags(write=False)
        self.values.setflags(write=False)

    def column(self, field: str) -> np.ndarray:
        return self.values[:, self.fields.index(field)]

    def scale(self, field: str) -> float:
        """The RMS of a field's observed values (what the relative misfit divides by)."""
        column = self.column(field)
        return float(np.sqrt(np.mean(np.square(column)))) or 1.0

    def weight(self, field: str) -> float:
        """What a field's residuals are multiplied by in a fit: the stated noise is relative to each
        field's scale, so a field of half the size has half the noise and its residuals are doubled
        (the likelihood's weighting); the largest field keeps 1, so one field is fitted as it stands.
        At most :data:`MAX_WEIGHT`: a field a million times smaller already decides what it can."""
        return min(max(self.scale(f) for f in self.fields) / self.scale(field), MAX_WEIGHT)


@dataclass(frozen=True)
class Misfit:
    """How far a solution is from the observations that carry information: the RMS per field, absolute
    and relative to the RMS of those observed values, and the band the stated noise allows it
    (``low`` to ``allowed``). ``imposed`` counts the observations left out, each where a constraint
    fixes the value (:mod:`desyr.model.informative`), on the sets ``where``. ``above`` and ``below``
    name, per field, a window of the observations whose own misfit lies above or below what the noise
    allows there (the scan that padding cannot dilute)."""

    absolute: dict[str, float]
    relative: dict[str, float]
    allowed: float
    low: float = 0.0
    imposed: int = 0
    where: tuple[str, ...] = ()
    above: dict[str, Window] = field(default_factory=dict)
    below: dict[str, Window] = field(default_factory=dict)

    @property
    def worst(self) -> float:
        return max(self.relative.values(), default=0.0)

    @property
    def consistent(self) -> bool:
        """Not above what the noise allows, pooled or on any window (the run's test; the verifier also
        asks :attr:`too_close`)."""
        return math.isfinite(self.worst) and self.worst <= self.allowed and not self.above

    @property
    def too_close(self) -> tuple[str, ...]:
        """The fields whose misfit lies far below the stated noise: the data are closer to this solution
        than their noise allows, so either the noise is overstated (and would let wrong values pass) or
        the solution follows the noise."""
        return tuple(f for f, v in self.relative.items() if v < self.low or f in self.below)


#: standard deviations of the chi-square test the true solution's misfit passes
CHI_SIGMAS = 3.0


def allowed_misfit(noise: float, n: int, exact: float = EXACT_DATA_MISFIT) -> float:
    """The relative RMS misfit the true solution stays under with ``n`` observations of Gaussian
    noise of relative size ``noise``: its sum of squares is n*noise**2 on average, with standard
    deviation sqrt(2n)*noise**2, so 3 of those above the mean (a chi-square test, which tightens as
    the data grow: a coefficient 12 standard errors off no longer passes), plus ``exact``, the round-off
    allowance on the same relative scale."""
    return noise * math.sqrt(1.0 + CHI_SIGMAS * math.sqrt(2.0 / max(n, 1))) + exact


def least_misfit(noise: float, n: int, fitted: int) -> float:
    """The relative RMS misfit the true solution stays above: the same test's lower side, 3 standard
    deviations below the mean, on the ``n - fitted`` degrees of freedom left once ``fitted`` numbers
    were fitted to the data (0 where that is no bound: exact data, or too few observations). The
    normal approximation puts this below the chi-square quantile, so it errs towards passing."""
    dof = n - fitted
    if noise <= 0 or dof <= 0:
        return 0.0
    return noise * math.sqrt(max(0.0, 1.0 - CHI_SIGMAS * math.sqrt(2.0 / dof)))


def starting_values(unknowns: tuple[Unknown, ...], estimates: Mapping[str, float]) -> dict[str, sp.Float]:
    """Where a fit starts each unknown: the teacher's estimate, else the middle of the bounds; beside
    0 and +-1, which a refit takes as structure rather than a constant to move."""
    out = {}
    for unknown in unknowns:
        start = float(estimates.get(unknown.name, unknown.start()))
        if abs(start) < 1e-10:
            start = 0.5 * (unknown.lo + unknown.hi) or 0.1
        if abs(abs(start) - 1.0) < 1e-10:
            start *= 1.1
        out[unknown.name] = sp.Float(start)
    return out
