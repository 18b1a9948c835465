"""How an attempt's time is shared under a budget: the teacher's, the searches' and Stage B's parts of
the time before the wall (``docs/escalation.md``)."""
from __future__ import annotations

import time
from dataclasses import replace

from desyr.model.context import RunContext

#: under a budget: the part of an attempt's time kept for Stage B, the gates and the verdict; of the
#: rest, the teacher's share, then the searches' share of what the teacher left
END_SHARE, TEACHER_SHARE, SEARCH_SHARE = 0.2, 0.5, 0.6
#: under a budget: stage 0's refits and gates, their part of the time its solvers left (the rest is the teacher's path)
STAGE0_SHARE = 0.5
#: a coupled problem's screening refits: their share of Stage B's time (the rest is the winner's)
SCREEN_SHARE = 0.6
#: seconds before the wall at which Stage B stops starting refits (the gates and the verdict follow)
VERDICT_SECONDS = 3.0
#: the budget's promise: a run returns within its budget plus this, whatever a component does (a late call
#: is stopped at most ``desyr.stages.stops.PAST_WALL`` past the wall, and the verdict takes the rest)
PAST_BUDGET = 10.0
#: of those seconds, the ones kept for writing the result, the reports and leaving
WRITE_SECONDS = 1.5
#: the verifier's time when the wall has (nearly) passed: a verdict needs a moment even then
LEAST_VERDICT = 1.0


def until(ctx: RunContext, end: float | None, share: float = 1.0) -> RunContext:
    """``ctx`` with a deadline at ``share`` of the time left before ``end`` (``time.time()``)."""
    if end is None:
        return ctx
    now = time.time()
    return replace(ctx, deadline=now + share * max(end - now, 0.0))


def stage_a_deadline(wall: float | None) -> float | None:
    """When the teacher and the searches must be done: before the part of the time kept for the end."""
    return None if wall is None else wall - END_SHARE * max(wall - time.time(), 0.0)


def verdict_seconds(wall: float | None) -> float | None:
    """How long the separate verifier may take: None (its own limit) without a wall, else until the
    budget's promise less the writing (at least :data:`LEAST_VERDICT`)."""
    if wall is None:
        return None
    return max(wall + PAST_BUDGET - WRITE_SECONDS - time.time(), LEAST_VERDICT)
