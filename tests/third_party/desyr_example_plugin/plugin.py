"""A third-party plugin: one gate and one refiner, found through importlib.metadata only."""
from desyr import hookimpl
from desyr.model.candidates import RefitOutcome
from desyr.extension.roles import Gate, GateDecision, Refiner


class PreferLongestGate(Gate):
    """Keeps only the most complex candidates: the opposite of the paper's preference."""

    name = "prefer_longest"

    def apply(self, pool, context):
        if not pool:
            return GateDecision([])
        top = max(c.complexity for c in pool)
        kept = [c for c in pool if c.complexity == top]
        return GateDecision(kept, {c.id: "not the longest" for c in pool if c.complexity != top})


class KeepConstantsRefiner(Refiner):
    """Leaves the search constants untouched (a do-nothing Stage B)."""

    name = "keep_constants"
    options = {"label": "unchanged"}

    def refine(self, candidate, problem, points):
        return RefitOutcome(dict(candidate.search_expressions), "converged", True,
                            reason=self.settings["label"])


@hookimpl
def desyr_register_gates():
    return [PreferLongestGate]


@hookimpl
def desyr_register_refiners():
    return [KeepConstantsRefiner]
