"""Stage C: measure refined candidates, checked cleaning, then the gate sequence."""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import sympy as sp

from desyr.errors import PluginError
from desyr.expressions import complexity
from desyr.model.candidates import Candidate
from desyr.model.context import RunContext
from desyr.model.outcomes import GateRecord, Selection
from desyr.numeric import evaluate
from desyr.physics import Scores, for_refinement, physics_scores
from desyr.roles import Gate, GateDecision
from desyr.simplify import cleaning_proposal
from desyr.stages.guard import contained


def teacher_error(ctx: RunContext, exprs: Mapping[str, sp.Expr]) -> tuple[float | None, dict[str, float]]:
    """eps_T of eq. teacher-compat per field on X_S, and their mean (coupled form)."""
    if ctx.teacher_values is None:
        return None, {}
    per_field = {}
    for j, f in enumerate(ctx.problem.fields):
        target = ctx.teacher_values[:, j]
        pred = evaluate(exprs[f], ctx.problem.symbols, ctx.points.search)
        denom = float(np.sum(target ** 2))
        err = float(np.sqrt(np.sum((pred - target) ** 2) / denom)) if denom > 0 else float(np.sqrt(np.mean((pred - target) ** 2)))
        per_field[f] = err if math.isfinite(err) else math.inf
    return float(np.mean(list(per_field.values()))), per_field


def measure_phi(ctx: RunContext, exprs: Mapping[str, sp.Expr]) -> Scores:
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
    scores = measure_phi(ctx, candidate.expressions)
    candidate.rho_r, candidate.rho_c, candidate.phi = scores.rho_r, scores.rho_c, scores.phi


def clean(candidate: Candidate, ctx: RunContext) -> None:
    """Propose removing negligible additive terms; accept only under eq. cleaning-acceptance.

    Besides the paper's term removal, the proposal also snaps constants that equal an
    integer up to 1e-12 (``1.0*sin(...)`` -> ``sin(...)``); the same acceptance check applies.
    """
    if not candidate.expressions or candidate.phi is None or not math.isfinite(candidate.phi):
        return
    method = ctx.method
    proposal = {f: cleaning_proposal(e, method.clean_term_tolerance, method.snap_integer_tolerance)
                for f, e in candidate.expressions.items()}
    before = sum(complexity(e) for e in candidate.expressions.values())
    after = sum(complexity(e) for e in proposal.values())
    if after >= before:
        return
    eps, eps_fields = teacher_error(ctx, proposal)
    scores = measure_phi(ctx, proposal)
    # The same factors as the relative gates (one source: ctx.method), so cleaning never
    # accepts what the gates would reject.
    ok_phi = scores.phi <= method.physics_factor * candidate.phi + method.physics_absolute
    ok_eps = eps is None or (candidate.eps_T is not None and math.isfinite(eps)
                             and eps <= method.teacher_factor * candidate.eps_T + method.teacher_absolute)
    if math.isfinite(scores.phi) and ok_phi and ok_eps:
        candidate.cleaning_note = (f"cleaned (terms below {method.clean_term_tolerance:g} dropped, round-off "
                                   f"integers snapped): complexity {before} -> {after}")
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


def run_gates(pool: list[Candidate], gates: list[Gate], ctx: RunContext) -> Selection:
    survivors = [c for c in pool if c.expressions]
    for c in pool:
        if not c.expressions:
            status = c.refit.status if c.refit else "not refit"
            c.removed_by = "eligibility"
            c.removed_reason = f"no finite refined expression ({status}: {c.refit.reason if c.refit else '-'})"
    records = []
    for gate in gates:
        decision = apply_gate(gate, survivors, ctx)
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


def apply_gate(gate: Gate, survivors: list[Candidate], ctx: RunContext) -> GateDecision:
    """One gate, held to its contract: a GateDecision that keeps some of the given candidates,
    at least one of a non-empty pool unless it gives a reason for removing each one;
    any error is one line naming the gate."""
    with contained("gate", gate.name):
        decision = gate.apply(list(survivors), ctx)
    if not isinstance(decision, GateDecision):
        raise PluginError(f"gate '{gate.name}' returned {type(decision).__name__}, not a GateDecision")
    ids = {c.id for c in survivors}
    strangers = [getattr(c, "id", repr(c)) for c in decision.kept if getattr(c, "id", None) not in ids]
    if strangers:
        raise PluginError(f"gate '{gate.name}' kept candidate(s) it was not given: {', '.join(map(str, strangers[:3]))}")
    unexplained = ids - {c.id for c in decision.kept} - set(decision.removed)
    if survivors and not decision.kept and unexplained:
        raise PluginError(f"gate '{gate.name}' removed all {len(survivors)} candidate(s) without a reason for "
                          f"{len(unexplained)}; a gate must keep at least one candidate of a non-empty pool "
                          "(or give a reason for removing each)")
    by_id = {c.id: c for c in survivors}
    decision.kept = [by_id[c.id] for c in decision.kept]
    return decision
