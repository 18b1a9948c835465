"""A parameter-count gate: at most ``limit`` free constants in the refined expression."""
from __future__ import annotations

from desyr.plugin import Gate, GateDecision, Option, parameterize


def free_constants(candidate) -> int:
    """Free Float constants (as the refit counts them) over the candidate's fields."""
    exprs = candidate.expressions or candidate.search_expressions
    return sum(len(parameterize(e).symbols) for e in exprs.values())


class ParameterCountGate(Gate):
    """Keeps candidates with at most ``limit`` free constants; keeps everyone (with a note) if none has."""

    name = "max_params"
    options = {"limit": Option(4, "most free constants of a kept candidate", kind=int, low=0)}

    def apply(self, pool, context):
        if not pool:
            return GateDecision([], note="empty pool")
        limit = int(self.settings["limit"])
        counts = {c.id: free_constants(c) for c in pool}
        kept = [c for c in pool if counts[c.id] <= limit]
        if not kept:
            return GateDecision(list(pool), note=f"no candidate has at most {limit} free constants "
                                                 f"(fewest: {min(counts.values())}); all kept")
        removed = {c.id: f"{counts[c.id]} free constants > {limit}" for c in pool if counts[c.id] > limit}
        return GateDecision(kept, removed, note=f"limit {limit} free constants")
