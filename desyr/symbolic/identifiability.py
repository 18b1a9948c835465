"""Whether the physics and the data decide an inverse problem's unknowns, and how precisely.

The objective is the refit's: every equation and constraint residual, and the misfit to the
observations.  Its Jacobian with respect to every free number (the fields' float constants and
the unknowns) is decomposed with unit columns, so that a dependence shows whatever the sizes of
the numbers.  A direction the objective cannot see (a singular value below
:data:`RANK_TOLERANCE` of the largest) that moves an unknown means the unknowns are not decided:
``u_t = a*b*u_xx`` sees only ``a*b``.  The run (:mod:`desyr.stages.unknowns`) and the verifier
(:mod:`desyr.verify.verdict`) each compute it on their own points.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from desyr.symbolic.physics import OBSERVATION_WEIGHT, Params, Residuals

#: singular values below this fraction of the largest are directions the objective cannot see
RANK_TOLERANCE = 1e-7


@dataclass(frozen=True)
class Sensitivity:
    """What the objective's Jacobian says about the unknowns at a fit."""

    rank: int
    size: int
    blind: tuple[str, ...]              # unknowns moved by a direction the objective cannot see
    combination: str                    # what the data do decide, when two unknowns are blind
    errors: dict[str, float]            # standard error of each unknown (absolute)


def sensitivity_at(system: Residuals, values: Params, unknown_columns: Mapping[str, int],
                   observed: int | None) -> Sensitivity | None:
    """The unit-column Jacobian's rank and the unknowns' standard errors, ``system`` taken at ``values``
    with the unknowns in ``unknown_columns`` of its parameters and its last ``observed`` rows the
    observation blocks (None: no observations, no errors)."""
    with np.errstate(all="ignore"):
        J = system.jacobian(values)
        F = system.vector(values)
    if not (np.all(np.isfinite(J)) and np.all(np.isfinite(F))):
        return None
    # unit columns: a dependence is seen whatever the sizes of the numbers (a 6e-9 coefficient too)
    norms = np.linalg.norm(J, axis=0)
    norms[norms == 0] = 1.0
    _, s, Vt = np.linalg.svd(J / norms, full_matrices=False)
    rank = int(np.sum(s > RANK_TOLERANCE * s[0])) if s.size and s[0] > 0 else 0
    null = Vt[rank:] / norms                          # the blind directions, in the numbers themselves
    null = null / np.maximum(np.linalg.norm(null, axis=1, keepdims=True), 1e-300)
    blind = tuple(n for n, j in unknown_columns.items() if null.size and np.max(np.abs(null[:, j])) > 0.1)
    numbers = np.asarray(values, dtype=float)
    relative = null / np.where(numbers == 0, 1.0, numbers)   # the same directions in relative changes
    return Sensitivity(rank, len(system.params), blind, _combination(blind, relative, unknown_columns),
                       _errors(F, norms, s, Vt, rank, unknown_columns, observed))


def _combination(blind: tuple[str, ...], null: np.ndarray, columns: Mapping[str, int]) -> str:
    """``a*b`` when the one blind direction moves a and b oppositely in relative terms."""
    if len(blind) != 2 or null.shape[0] != 1:
        return ""
    p, q = (float(null[0, columns[n]]) for n in blind)
    ratio = Fraction(-q / p).limit_denominator(4) if p else None
    if ratio is None or abs(float(ratio) + q / p) > 1e-3:
        return ""
    a, b = blind
    exponent = "" if ratio == 1 else f"**({ratio})"
    return f"{a}*{b}{exponent}" if ratio > 0 else f"{a}/{b}{'' if ratio == -1 else f'**({-ratio})'}"


def _errors(F: np.ndarray, norms: np.ndarray, s: np.ndarray, Vt: np.ndarray, rank: int,
            columns: Mapping[str, int], observed: int | None) -> dict[str, float]:
    """Standard errors of the unknowns: the noise variance (from the observation rows) times the
    covariance of the unit-column Jacobian, inverted on the directions it sees."""
    if observed is None or rank == 0:
        return {}
    n = observed
    rows = F[-n:] / math.sqrt(OBSERVATION_WEIGHT)      # the observation blocks come last
    variance = float(rows @ rows) / max(n - rank, 1)
    seen = Vt[:rank] / s[:rank, None]
    covariance = variance * (seen.T @ seen)           # pinv(Jn^T Jn), unit columns
    return {name: math.sqrt(max(covariance[j, j], 0.0)) / norms[j] for name, j in columns.items()}
