"""The paper's Stage-C gate sequence (§3.4), one component per gate."""
from __future__ import annotations

from desyr.candidates import Candidate
from desyr.interfaces import Gate, GateDecision
from desyr.selection import preference_key


def _split(pool: list[Candidate], keep) -> tuple[list[Candidate], dict[str, str]]:
    kept, removed = [], {}
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

    def apply(self, pool, context):
        finite, removed = _split(pool, lambda c: None if c.finite() else "non-finite expression or selection quantities")
        if any(c.converged for c in finite):
            kept, more = _split(finite, lambda c: None if c.converged else f"not converged ({c.refit.status})")
            return GateDecision(kept, {**removed, **more})
        note = "no converged candidate: finite non-converged candidates kept as a diagnostic fallback" if finite else ""
        return GateDecision(finite, removed, note=note)


class TeacherCompatibilityGate(Gate):
    """eps_T(s) <= factor * eps_T,min + absolute (eq. teacher-compatibility-gate)."""

    name = "teacher_compatibility"
    options = {"factor": 3.0, "absolute": 1e-8}

    def apply(self, pool, context):
        if not context.has_teacher:
            return GateDecision(list(pool), active=False, note="inactive: no teacher samples")
        if not pool:
            return GateDecision([], note="empty pool")
        eps_min = min(c.eps_T for c in pool)
        limit = self.settings["factor"] * eps_min + self.settings["absolute"]
        kept, removed = _split(pool, lambda c: None if c.eps_T <= limit
                               else f"teacher error {c.eps_T:.3g} > {limit:.3g} (3 eps_min + 1e-8)")
        return GateDecision(kept, removed, note=f"eps_T,min = {eps_min:.3g}")


class PhysicsEquivalenceGate(Gate):
    """Phi(s) <= factor * Phi_min + absolute (eq. physics-equivalence-gate)."""

    name = "physics_equivalence"
    options = {"factor": 1.05, "absolute": 1e-10}

    def apply(self, pool, context):
        if not pool:
            return GateDecision([])
        phi_min = min(c.phi for c in pool)
        limit = self.settings["factor"] * phi_min + self.settings["absolute"]
        kept, removed = _split(pool, lambda c: None if c.phi <= limit
                               else f"physics score {c.phi:.3g} > {limit:.3g} (1.05 Phi_min + 1e-10)")
        return GateDecision(kept, removed, note=f"Phi_min = {phi_min:.3g}")


class ComplexityGate(Gate):
    """Keep the single simplest candidate; ties by teacher error, Phi, then search seed."""

    name = "complexity"

    def apply(self, pool, context):
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
