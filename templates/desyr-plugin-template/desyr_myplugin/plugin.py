"""The module named by this package's ``desyr`` entry point.

It contributes one Stage-C gate and one executor. Import only from ``desyr.plugin`` (the stable surface
for plugin authors) so the plugin keeps working when DeSyR's internals move.
"""
from __future__ import annotations

from desyr.plugin import Executor, Gate, GateDecision, Option, UnitFailure, hookimpl


class MaxComplexityGate(Gate):
    """Keeps candidates whose final complexity (sympy node count) is at most ``limit``.

    A gate must keep at least one candidate of a non-empty pool: when none is short
    enough, the simplest ones are kept and the note says so.
    """

    name = "max_complexity"                      # what [selection] gates = [...] names
    options = {"limit": Option(20, "largest complexity kept", kind=int, low=1)}
    default_position = None                      # not part of the default gate sequence

    def apply(self, pool, context):
        if not pool:
            return GateDecision([], note="empty pool")
        limit = self.settings["limit"]
        kept = [c for c in pool if c.complexity <= limit]
        note = f"limit {limit}"
        if not kept:
            simplest = min(c.complexity for c in pool)
            kept = [c for c in pool if c.complexity == simplest]
            note = f"no candidate has complexity <= {limit}; kept the simplest ({simplest})"
        kept_ids = {c.id for c in kept}
        removed = {c.id: f"complexity {c.complexity} > {limit}" for c in pool if c.id not in kept_ids}
        return GateDecision(kept, removed, note=note)


@hookimpl
def desyr_register_gates():
    return [MaxComplexityGate]


class InOrderExecutor(Executor):
    """Runs units one after another in this process (an executor example: a cluster executor
    would send ``fn(item)`` to its workers instead).

    ``map`` must answer every item, in input order, with ``fn(item)`` or a ``UnitFailure`` in
    its place when the unit raised; the core refuses a map that returns fewer or more results.
    """

    name = "in_order"

    def map(self, fn, items):
        results = []
        for item in items:
            try:
                results.append(fn(item))
            except Exception as exc:   # one failed unit must not lose the others
                results.append(UnitFailure(f"{type(exc).__name__}: {exc}", exc))
        return results


@hookimpl
def desyr_register_executors():
    return [InOrderExecutor]
