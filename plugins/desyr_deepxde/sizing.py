"""The teacher's size and step budget from the problem, where the config leaves them unset.

Pure Python (no torch): ``prepare()`` resolves the settings before the cache key is taken, so a
cached teacher is keyed by the numbers it was trained with.

    interior_points  500 per network input (space, time, family parameters), times 1 + (fields - 1)/2
    lbfgs_steps      1000, plus 250 per field beyond the first
    adam_steps       1000

so a one-field 2-D problem keeps the former fixed defaults (1000 points, 1000 + 1000 steps), a 1-D one
trains on half the points, and a three-field 2-D system gets what Kovasznay's tuned config carries
(2000 points, 1500 L-BFGS steps).  ``budget_scale`` multiplies the steps and the collocation and
constraint points, set or derived: escalation's ``larger_teacher`` step doubles it.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: points per network input for a one-field problem
POINTS_PER_INPUT = 500
#: default step budgets, and the L-BFGS steps added per field beyond the first
ADAM_STEPS, LBFGS_STEPS, LBFGS_PER_FIELD = 1000, 1000, 250
#: the options budget_scale multiplies
SCALED = ("adam_steps", "lbfgs_steps", "interior_points", "boundary_points", "initial_points")


def derived(inputs: int, fields: int) -> dict[str, int]:
    """The unset budget options for a network of ``inputs`` inputs and ``fields`` outputs."""
    extra = max(fields, 1) - 1
    return {"interior_points": int(round(POINTS_PER_INPUT * max(inputs, 1) * (1 + extra / 2))),
            "adam_steps": ADAM_STEPS, "lbfgs_steps": LBFGS_STEPS + LBFGS_PER_FIELD * extra}


def resolve(settings: Mapping[str, Any], inputs: int, fields: int) -> dict[str, Any]:
    """``settings`` with every unset budget option derived from the problem and ``budget_scale``
    applied (then dropped: the resolved numbers say what is trained)."""
    out = dict(settings)
    for key, value in derived(inputs, fields).items():
        if out.get(key) is None:
            out[key] = value
    scale = float(out.pop("budget_scale", 1.0))
    for key in SCALED:
        if out.get(key) is not None and scale != 1.0:
            out[key] = max(int(round(out[key] * scale)), 0 if key.endswith("_steps") else 1)
    return out
