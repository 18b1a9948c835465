"""Checkpoint selection by the physics-validation score (paper §3.2, eq. val-score).

Pure numpy, no torch: the rule can be tested on synthetic histories.

    v_i(theta)   unweighted MSE of validation component i (interior residual of each
                 equation on independent points, then each constraint residual on its
                 prescribed constraint points)
    b_i          max(v_i(theta0), 1)
    S_val        sqrt(mean_i (v_i / b_i)^2)

The teacher is the checkpoint with the smallest S_val.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def validation_scales(initial_components: Sequence[float]) -> np.ndarray:
    """b_i = max(v_i(theta0), 1)."""
    v0 = np.asarray(initial_components, dtype=float)
    return np.maximum(np.where(np.isfinite(v0), v0, 1.0), 1.0)


def validation_score(components: Sequence[float], scales: Sequence[float]) -> float:
    """S_val = sqrt(mean((v_i / b_i)^2)); inf if any component is not finite."""
    v = np.asarray(components, dtype=float)
    if v.size == 0:
        return 0.0
    if not np.all(np.isfinite(v)):
        return math.inf
    r = v / np.asarray(scales, dtype=float)
    return float(np.sqrt(np.mean(r * r)))


def select_checkpoint(history: Sequence[Sequence[float]]) -> int:
    """Index of the entry ``(step, loss, S_val)`` with the smallest S_val.

    Ties go to the earliest checkpoint; non-finite scores never win unless every
    score is non-finite (then the first entry is returned).
    """
    if not history:
        raise ValueError("empty checkpoint history")
    best, best_score = 0, math.inf
    for i, entry in enumerate(history):
        score = float(entry[2])
        if math.isfinite(score) and score < best_score:
            best, best_score = i, score
    return best
