"""Stage C: measure refined candidates, checked cleaning, then the gate sequence."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import sympy as sp

from desyr.candidates import Candidate
from desyr.context import RunContext
from desyr.expressions import complexity
from desyr.interfaces import Gate
from desyr.numeric import evaluate
from desyr.physics import Scores, for_refinement, physics_scores
from desyr.simplify import cleaning_proposal

PAPER_SEQUENCE = ["convergence", "teacher_compatibility", "physics_equivalence", "complexity"]


def teacher_error(ctx: RunContext, exprs: Mapping[str, sp.Expr]) -> tuple[float | None, dict[str, float]]:
    """eps_T of eq. teacher-compat per field on X_S, and their mean (coupled form)."""
    if not ctx.has_teacher:
        return None, {}
    per_field = {}
    for j, f in enumerate(ctx.problem.fields):
        target = ctx.teacher_values[:, j]
        pred = evaluate(exprs[f], ctx.problem.symbols, ctx.points.search)
        denom = float(np.sum(target ** 2))
        err = float(np.sqrt(np.sum((pred - target) ** 2) / denom)) if denom > 0 else float(np.sqrt(np.mean((pred - target) ** 2)))
        per_field[f] = err if math.isfinite(err) else math.inf
    return float(np.mean(list(per_field.values()))), per_field


def physics_score(ctx: RunContext, exprs: Mapping[str, sp.Expr]) -> Scores:
    residuals = for_refinement(ctx.problem, exprs, [], ctx.points, ctx.constraint_weight, jacobian=False)
    scores = physics_scores(residuals, ctx.constraint_weight)
    if not all(math.isfinite(v) for v in (scores.rho_r, scores.rho_c)):
        return Scores(math.inf, math.inf, math.inf)
    return scores


def measure(candidate: Candidate, ctx: RunContext) -> None:
    """Fill eps_T and Phi for the candidate's current expressions."""
    if not candidate.expressions:
        return
    candidate.eps_T, candidate.eps_T_fields = teacher_error(ctx, candidate.expressions)
    scores = physics_score(ctx, candidate.expressions)
    candidate.rho_r, candidate.rho_c, candidate.phi = scores.rho_r, scores.rho_c, scores.phi


def clean(candidate: Candidate, ctx: RunContext) -> None:
    """Propose removing negligible additive terms; accept only under eq. cleaning-acceptance.

    Besides the paper's term removal, the proposal also snaps constants that equal an
    integer up to 1e-12 (``1.0*sin(...)`` -> ``sin(...)``); the same acceptance check applies.
    """
    if not candidate.expressions or candidate.phi is None or not math.isfinite(candidate.phi):
        return
    proposal = {f: cleaning_proposal(e) for f, e in candidate.expressions.items()}
    before = sum(complexity(e) for e in candidate.expressions.values())
    after = sum(complexity(e) for e in proposal.values())
    if after >= before:
        return
    eps, eps_fields = teacher_error(ctx, proposal)
    scores = physics_score(ctx, proposal)
    ok_phi = scores.phi <= 1.05 * candidate.phi + 1e-10
    ok_eps = eps is None or (math.isfinite(eps) and eps <= 3 * candidate.eps_T + 1e-8)
    if math.isfinite(scores.phi) and ok_phi and ok_eps:
        candidate.cleaning_note = f"cleaned (terms below 1e-8 dropped, round-off integers snapped): complexity {before} -> {after}"
        candidate.expressions, candidate.cleaned = proposal, True
        candidate.eps_T, candidate.eps_T_fields = eps, eps_fields
        candidate.rho_r, candidate.rho_c, candidate.phi = scores.rho_r, scores.rho_c, scores.phi
    else:
        candidate.cleaning_note = "cleaning proposal rejected by the acceptance check"


def preference_key(c: Candidate) -> tuple:
    """Paper tie-break order: smallest final complexity, then teacher error, Phi, search seed."""
    eps = c.eps_T if c.eps_T is not None else 0.0
    seed = c.search_seed if c.search_seed is not None else math.inf
    return (c.complexity, eps, c.phi, seed)


@dataclass
class GateRecord:
    gate: str
    active: bool
    note: str
    kept: list[str]
    removed: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "active": self.active, "note": self.note, "kept": self.kept,
                "removed": [{"id": k, "reason": v} for k, v in self.removed.items()]}


@dataclass
class Selection:
    selected: Candidate | None
    records: list[GateRecord]
    fallback: str | None = None


def run_gates(pool: list[Candidate], gates: list[Gate], ctx: RunContext) -> Selection:
    survivors = [c for c in pool if c.expressions]
    for c in pool:
        if not c.expressions:
            status = c.refit.status if c.refit else "not refit"
            c.removed_by = "eligibility"
            c.removed_reason = f"no finite refined expression ({status}: {c.refit.reason if c.refit else '-'})"
    records = []
    for gate in gates:
        decision = gate.apply(survivors, ctx)
        kept_ids = {c.id for c in decision.kept}
        unexplained = [c.id for c in survivors if c.id not in kept_ids and c.id not in decision.removed]
        removed = {**decision.removed, **{i: "removed without a reason" for i in unexplained}}
        for c in survivors:
            if c.id in removed:
                c.removed_by, c.removed_reason = gate.name, removed[c.id]
        records.append(GateRecord(gate.name, decision.active, decision.note, sorted(kept_ids), removed))
        survivors = list(decision.kept)
    fallback = None
    if len(survivors) > 1:
        # The configured gates left a tie; settle it with the paper's preference order.
        fallback = f"{len(survivors)} candidates survived the gates; chose by complexity, eps_T, Phi, seed"
        survivors = sorted(survivors, key=preference_key)[:1]
    return Selection(survivors[0] if survivors else None, records, fallback)
