"""The paper's Stage-C gate sequence (§3.4), one component per gate."""
from __future__ import annotations

from collections.abc import Callable

from desyr.plugin import METHOD, Candidate, Gate, GateDecision, Option, RunContext, physics_equivalent, preference_key


def _split(pool: list[Candidate], keep: Callable[[Candidate], str | None]) -> tuple[list[Candidate], dict[str, str]]:
    kept: list[Candidate] = []
    removed: dict[str, str] = {}
    for c in pool:
        reason = keep(c)
        if reason is None:
            kept.append(c)
        else:
            removed[c.id] = reason
    return kept, removed


class ConvergenceGate(Gate):
    """Finite candidates only; converged ones only if there is at least one."""

    name = "convergence"
    default_position = 1

    def apply(self, pool: list[Candidate], context: RunContext) -> GateDecision:
        finite, removed = _split(pool, lambda c: None if c.finite() else "non-finite expression or selection quantities")
        if any(c.converged for c in finite):
            kept, more = _split(finite, lambda c: None if c.converged else f"not converged ({c.refit.status if c.refit is not None else 'no refit'})")
            return GateDecision(kept, {**removed, **more})
        note = "no converged candidate: finite non-converged candidates kept as a diagnostic fallback" if finite else ""
        return GateDecision(finite, removed, note=note)


class _RelativeGate(Gate):
    """Keeps candidates whose ``quantity`` is at most factor x (pool minimum) + absolute."""

    quantity: str
    label: str

    def apply(self, pool: list[Candidate], context: RunContext) -> GateDecision:
        if not pool:
            return GateDecision([], note="empty pool")
        best = min(getattr(c, self.quantity) for c in pool)
        factor, absolute = self.settings["factor"], self.settings["absolute"]
        limit = factor * best + absolute

        def verdict(c: Candidate) -> str | None:
            value = getattr(c, self.quantity)
            return None if value <= limit else (
                f"{self.label} {value:.3g} > {limit:.3g} ({factor:g} x minimum + {absolute:g})")

        kept, removed = _split(pool, verdict)
        return GateDecision(kept, removed, note=f"minimum {self.label} = {best:.3g}")


class TeacherCompatibilityGate(_RelativeGate):
    """eps_T(s) <= 3 eps_T,min + 1e-8 (eq. teacher-compatibility-gate); inactive without a teacher."""

    name = "teacher_compatibility"
    default_position = 2
    options = {"factor": Option(METHOD.teacher_factor, "eps_T <= factor x minimum + absolute", kind=float, low=1.0),
               "absolute": Option(METHOD.teacher_absolute, "absolute slack of the limit", kind=float, low=0.0)}
    method_fields = {"factor": "teacher_factor", "absolute": "teacher_absolute"}
    quantity, label = "eps_T", "teacher error"

    def apply(self, pool: list[Candidate], context: RunContext) -> GateDecision:
        if not context.has_teacher:
            return GateDecision(list(pool), active=False, note="inactive: no teacher samples")
        return super().apply(pool, context)


class PhysicsEquivalenceGate(_RelativeGate):
    """Phi(s) <= 1.05 Phi_min + 1e-10 (eq. physics-equivalence-gate); a series with exact coefficients is
    judged by the verifier, not by its truncated Phi (:func:`desyr.plugin.physics_equivalent`)."""

    name = "physics_equivalence"
    default_position = 3
    options = {"factor": Option(METHOD.physics_factor, "Phi <= factor x minimum + absolute", kind=float, low=1.0),
               "absolute": Option(METHOD.physics_absolute, "absolute slack of the limit", kind=float, low=0.0)}
    method_fields = {"factor": "physics_factor", "absolute": "physics_absolute"}
    quantity, label = "phi", "physics score"

    def apply(self, pool: list[Candidate], context: RunContext) -> GateDecision:
        # the core's rule: a series with exact coefficients is not judged by its truncated score
        return physics_equivalent(pool, self.settings["factor"], self.settings["absolute"])


class ComplexityGate(Gate):
    """Keep the single simplest candidate; ties by teacher error, Phi, then search seed."""

    name = "complexity"
    ranks_by_complexity = True
    default_position = 4

    def apply(self, pool: list[Candidate], context: RunContext) -> GateDecision:
        if not pool:
            return GateDecision([])
        ranked = sorted(pool, key=preference_key)
        best = ranked[0]
        removed = {c.id: (f"complexity {c.complexity} > {best.complexity}" if c.complexity > best.complexity
                          else f"tie at complexity {c.complexity} broken by {_tie_reason(best, c)}")
                   for c in ranked[1:]}
        return GateDecision([best], removed)


def _tie_reason(best: Candidate, other: Candidate) -> str:
    names = ("teacher error", "physics score", "search seed")
    for name, a, b in zip(names, preference_key(best)[1:], preference_key(other)[1:]):
        if a != b:
            return name
    return "pool order"


PAPER_GATES = [ConvergenceGate, TeacherCompatibilityGate, PhysicsEquivalenceGate, ComplexityGate]
