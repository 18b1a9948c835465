"""The verifier's own points (``docs/verify.md``, "Its own points"): at least :data:`INTERIOR_FLOOR` and
:data:`CONSTRAINT_FLOOR` of them whatever the config asks, drawn from a seed taken from the operating
system's entropy for each verification (a replay names it), so neither the config nor the candidate can
know them. The verdict records the seed.
"""
from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import numpy as np

from desyr.errors import ConfigError
from desyr.model.points import VerificationPoints, all_constraint_points, interior_points, latin_hypercube
from desyr.model.problem import Problem

#: the verifier's seed streams: not the run's (1-5) nor its in-process verification (101, 102)
STREAMS = (201, 202)
#: the fewest points the verifier draws, whatever the config asks: interior, and per constraint (a config
#: may raise them with [points] verify and a constraint's points, never lower them)
INTERIOR_FLOOR = 2000
CONSTRAINT_FLOOR = 200


def fresh_points(problem: Problem, seed: int) -> VerificationPoints:
    """The verifier's own sets: Latin hypercube interior and constraint points, streams :data:`STREAMS`, at
    least :data:`INTERIOR_FLOOR` and :data:`CONSTRAINT_FLOOR` of them."""
    rng = np.random.default_rng([seed, STREAMS[0]])
    interior = interior_points(problem, max(problem.points["verify"], INTERIOR_FLOOR), rng, latin_hypercube)
    rng = np.random.default_rng([seed, STREAMS[1]])
    constraints, reductions = all_constraint_points(problem, rng, latin_hypercube, CONSTRAINT_FLOOR)
    return VerificationPoints(interior, tuple(constraints), reductions)


def drawn_seed(request: Mapping[str, Any]) -> tuple[int, str]:
    """The seed of the verifier's points and where it came from: the request's (a replay, ``desyr verify
    --seed``), else fresh from the operating system's entropy, which neither the config nor the candidate
    can know."""
    seed = request.get("seed")
    if seed is None:
        return secrets.randbits(32), "entropy"
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ConfigError(f"seed must be an integer in [0, 2**32), got {seed!r:.40}")
    return seed, "request"
