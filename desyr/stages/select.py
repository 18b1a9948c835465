"""Stage C: the gate sequence over the measured, cleaned candidates."""
from __future__ import annotations

import math
import time

import sympy as sp

from desyr.errors import PluginError
from desyr.extension.guard import contained, overran
from desyr.extension.roles import Gate, GateDecision
from desyr.model.candidates import Candidate, candidate_view, changed_fields
from desyr.model.constants import METHOD, MethodConstants
from desyr.model.context import RunContext
from desyr.model.outcomes import GateRecord, Selection, StoppedCall
from desyr.stages.stops import Stopped, late_by, note_stop, stop_time, stopped_at
from desyr.stages.watch import context_parts, unchanged
from desyr.symbolic.series import has_series


def preference_key(c: Candidate) -> tuple[int, float, float | None, float]:
    """Paper tie-break order: smallest final complexity, then teacher error, Phi, search seed."""
    eps = c.eps_T if c.eps_T is not None else 0.0
    seed = c.search_seed if c.search_seed is not None else math.inf
    return (c.complexity, eps, c.phi, seed)


def run_gates(pool: list[Candidate], gates: list[Gate], ctx: RunContext) -> Selection:
    """Stage C: every gate in turn over the candidates with a refined expression; the selection
    with the gates' records, who removed each candidate and why (beside the candidates, never
    written onto them), and the seconds. Under a deadline the gates share one stop time: a gate still
    deciding then is stopped and removes no candidate, and none starts after it."""
    start = time.perf_counter()
    deadline = getattr(ctx, "deadline", None)         # (tests hand the gates stand-in contexts)
    at = None if deadline is None else stop_time(deadline, ctx.seconds_left(), ctx.wall)
    survivors = [c for c in pool if c.expressions]
    verdicts: dict[str, tuple[str, str]] = {}
    for c in pool:
        if not c.expressions:
            status = c.refit.status if c.refit else "not refit"
            verdicts[c.id] = ("eligibility", f"no finite refined expression ({status}: "
                                             f"{c.refit.reason if c.refit else '-'})")
    records: list[GateRecord] = []
    for gate in gates:
        decision = _bounded_gate(gate, survivors, ctx, at)
        _record(records, verdicts, gate.name, decision, survivors)
        survivors = list(decision.kept)
    if any(r.note.startswith(PASSED_OVER) for r in records) and survivors:
        # a gate passed over under --budget decided nothing: the physics still does (cheap, the core's own)
        decision = physics_fallback(survivors, getattr(ctx, "method", METHOD))
        _record(records, verdicts, PHYSICS_FALLBACK, decision, survivors)
        survivors = list(decision.kept)
    fallback = None
    if len(survivors) > 1:
        # The configured gates left a tie; settle it with the paper's preference order.
        fallback = f"{len(survivors)} candidates survived the gates; chose by complexity, eps_T, Phi, seed"
        survivors = sorted(survivors, key=preference_key)[:1]
    return Selection(survivors[0] if survivors else None, records, fallback, time.perf_counter() - start, verdicts)


def _record(records: list[GateRecord], verdicts: dict[str, tuple[str, str]], name: str, decision: GateDecision,
            survivors: list[Candidate]) -> None:
    """The gate's record, and who removed each candidate it removed and why."""
    kept_ids = {c.id for c in decision.kept}
    unexplained = [c.id for c in survivors if c.id not in kept_ids and c.id not in decision.removed]
    removed = {**decision.removed, **{i: "removed without a reason" for i in unexplained}}
    verdicts.update((c.id, (name, removed[c.id])) for c in survivors if c.id in removed)
    records.append(GateRecord(name, decision.active, decision.note, sorted(kept_ids), removed))


#: how the note of a gate passed over under ``--budget`` begins (stopped, or not started)
PASSED_OVER = "passed over (--budget)"
#: the record of the core's physics check after a gate was passed over
PHYSICS_FALLBACK = "physics_fallback"


def physics_fallback(pool: list[Candidate], method: MethodConstants) -> GateDecision:
    """What the selection rests on when a gate was passed over under a budget: the finite candidates,
    the converged ones among them if any, and of those the ones :func:`physics_equivalent` keeps (as the
    paper's physics gate); the preference order then picks the simplest. A gate that was passed over
    decided nothing, and without this the preference order alone would prefer a simpler candidate
    that does not solve the equations over one that does."""
    finite = [c for c in pool if c.finite()]
    if not finite:
        return GateDecision(list(pool), active=False, note="no finite candidate: every candidate kept")
    converged = [c for c in finite if c.converged] or finite
    physics = physics_equivalent(converged, method.physics_factor, method.physics_absolute)
    removed = {c.id: ("non-finite expression or selection quantities" if c not in finite else "not converged")
               for c in pool if c not in converged}
    return GateDecision(physics.kept, {**removed, **physics.removed},
                        note=f"a gate was passed over (--budget): the physics decides; {physics.note}")


#: a finite candidate whose physics score is above this does not solve the equations (a refit of exact
#: constants leaves far less), so a series with exact coefficients is verified before it
FINITE_NOT_EXACT_PHI = 1e-6


def exact_series(c: Candidate) -> bool:
    """Whether ``c`` holds a sum and no fitted number: a series whose coefficients are exact (an exact
    method's, or a user's). Its physics score is that of a truncation, not of the series."""
    exprs = c.expressions or {}
    return (any(has_series(e) for e in exprs.values())
            and not any(e.has(sp.Float) for e in exprs.values()))


def physics_equivalent(pool: list[Candidate], factor: float, absolute: float) -> GateDecision:
    """The physics-equivalence rule, ``Phi <= factor x Phi_min + absolute`` (eq. physics-equivalence-gate),
    over candidates whose physics score measures them. A series with exact coefficients is measured on
    its truncation only, and a fitted finite formula's smaller residual says nothing against it: unless a
    finite candidate solves the equations (score at most :data:`FINITE_NOT_EXACT_PHI`), such series are
    kept whatever their truncated score and the finite candidates, which then solve the equations no
    better than to their own score, are removed; the verifier judges the series by its proof. Without
    such a series (every finite-formula problem) the rule is the paper's, unchanged."""
    if not pool:
        return GateDecision([], note="empty pool")
    series = [c for c in pool if exact_series(c)]
    measured = [c for c in pool if c not in series]
    best_measured = min((float(c.phi) for c in measured if c.phi is not None), default=math.inf)
    if series and best_measured > FINITE_NOT_EXACT_PHI:
        names = ", ".join(c.id for c in series[:3])
        removed = {c.id: (f"physics score {c.phi:.3g} > {FINITE_NOT_EXACT_PHI:g}: not exact, and a series with "
                          f"exact coefficients ({names}) is judged by the verifier") for c in measured}
        return GateDecision(series, removed, note=f"{len(series)} series with exact coefficients kept: a "
                            "truncated sum's physics score is not compared with a finite formula's")
    best = min(float(c.phi) for c in pool if c.phi is not None)
    limit = factor * best + absolute
    kept = [c for c in pool if c.phi is not None and c.phi <= limit]
    removed = {c.id: f"physics score {c.phi:.3g} > {limit:.3g} ({factor:g} x minimum + {absolute:g})"
               for c in pool if c not in kept}
    return GateDecision(kept, removed, note=f"minimum physics score = {best:.3g}")


def _bounded_gate(gate: Gate, survivors: list[Candidate], ctx: RunContext, at: float | None) -> GateDecision:
    """:func:`apply_gate` until the gates' stop time ``at``: a gate stopped there, or not started because
    it had passed, keeps every candidate (with a note); one that overran its share is named."""
    if at is None:
        return apply_gate(gate, survivors, ctx)
    if time.time() >= at:
        return GateDecision(list(survivors), active=False,
                            note=f"{PASSED_OVER}: not run, the gates' stop time had passed")
    share, start = ctx.seconds_left(), time.perf_counter()
    try:
        with stopped_at(at):
            decision = apply_gate(gate, survivors, ctx)
    except Stopped:
        took = time.perf_counter() - start
        note_stop(ctx.progress, StoppedCall("gate", gate.name, took, share, "it removes no candidate, no gate starts "
                                            "after it, and the physics decides", "apply()", late_by(at)), gate)
        return GateDecision(list(survivors), active=False, note=f"{PASSED_OVER}: stopped after {took:.1f} s, "
                            "removed no candidate")
    overran(gate, "gate", gate.name, time.perf_counter() - start, share, "apply()")
    return decision


def apply_gate(gate: Gate, survivors: list[Candidate], ctx: RunContext) -> GateDecision:
    """One gate, held to its contract: a GateDecision that keeps some of the given candidates,
    at least one of a non-empty pool unless it gives a reason for removing each one, and leaves
    the candidates as they were (it reads copies: a change is refused, never used);
    any error is one line naming the gate."""
    views = [candidate_view(c) for c in survivors]
    with contained("gate", gate.name), unchanged("gate", gate.name, context_parts(ctx)):
        decision = gate.apply(list(views), ctx)
    for c, view in zip(survivors, views):
        changed = changed_fields(c, view)
        if changed:
            raise PluginError(f"gate '{gate.name}' broke its contract: it changed candidate {c.id}'s "
                              f"{', '.join(changed)}; a gate only decides (kept, and a reason for each removed)")
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
