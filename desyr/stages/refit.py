"""Stage B: freeze each candidate's tree and refit its constants from the physics alone: each candidate
one unit (shortest first, in turns), measured and cleaned, its refiner's broken contracts named. The
record a refit leaves, and how a stored one is checked and read back, is :mod:`desyr.stages.refit_record`."""
from __future__ import annotations

import copy
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import sympy as sp

from desyr.errors import ConfigError, PluginError
from desyr.extension.guard import overran, warn_at_component
from desyr.extension.roles import Refiner, UnitFailure
from desyr.model.candidates import (
    Candidate,
    RefitOutcome,
    stage_b_fields,
)
from desyr.model.constants import MethodConstants
from desyr.model.context import RunContext
from desyr.model.outcomes import RefitPassOutcome, StoppedCall
from desyr.model.problem import Problem
from desyr.model.unknowns import starting_values
from desyr.runtime.execution import MemoKey, Units, serial_units
from desyr.runtime.executor_map import Unanswered
from desyr.runtime.progress import Progress
from desyr.runtime.store import digest
from desyr.stages.measure import ReducedRefit, clean, measure
from desyr.stages.refit_contract import (
    Tampered,
    UnreadableRefit,
    checked_expressions,
    checked_outcome,
    contracted_refit,
    family_points,
    in_family,
)
from desyr.stages.refit_record import (
    BROKE,
    OUT_OF_TIME,
    TAMPERED,
    apply_refit_record,
    check_refit_record,
    failed_record,
    stopped_record,
    stored_value,
)
from desyr.stages.stops import BACKSTOP, Stopped, executor_stop, grace, late_by, note_stop, stop_time, stopped_at
from desyr.stages.unknowns import identify_unknowns, outside_bounds, seeded
from desyr.stages.watch import unchanged
from desyr.symbolic.expressions import ExpressionError
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.series import not_finite
from desyr.symbolic.time_limit import Expired


def parse_candidate(problem: Problem, text: str | Mapping[str, str]) -> dict[str, sp.Expr]:
    """``"sin(3.14*x)"`` for one field, ``"u = ...; v = ..."`` or a dict for several; an inverse
    problem's unknowns may be given too (``"u = ...; nu = 0.1"``), else the refit starts them."""
    if isinstance(text, Mapping):
        parts = dict(text)
    elif len(problem.fields) == 1 and "=" not in text:
        parts = {problem.fields[0]: text}
    else:
        parts = {}
        for piece in text.split(";"):
            name, sep, body = piece.partition("=")
            if not sep:
                raise ConfigError(f"candidate {text!r:.80}: write 'field = expression' separated by ';'")
            parts[name.strip()] = body.strip()
    if not set(problem.fields) <= set(parts) <= set(problem.fields) | set(problem.unknown_names):
        extra = f" (and optionally the unknowns {', '.join(problem.unknown_names)})" if problem.unknowns else ""
        raise ConfigError(f"candidate {text!r:.80}: needs exactly the fields {', '.join(problem.fields)}{extra}")
    try:
        out = {f: problem.parse(parts[f]) for f in [*problem.fields, *problem.unknown_names] if f in parts}
    except ExpressionError as exc:
        raise ConfigError(f"candidate {text!r:.80}: {exc}") from None
    for name in problem.unknown_names:
        if name in out and not out[name].is_number:
            raise ConfigError(f"candidate {text!r:.80}: the unknown {name} must be a number, got {out[name]}")
    return out


def check_finite(problem: Problem, exprs: Mapping[str, sp.Expr], ctx: RunContext) -> str | None:
    """A reason if the expression is non-finite somewhere on the refinement or constraint points."""
    X = np.vstack([ctx.points.refine] + list(ctx.points.constraints))
    start = {**starting_values(problem.unknowns, ctx.unknown_estimates), **exprs}   # where the refit starts
    for f, e in exprs.items():
        e = problem.resolved(e, start)
        if not_finite(e):
            return f"{f} = {e} is not finite"
        try:
            values = evaluate(e, problem.symbols, X)
        except Exception as exc:  # an expression numpy cannot evaluate is not finite anywhere useful
            return f"{f} = {e} cannot be evaluated ({type(exc).__name__})"
        if not np.all(np.isfinite(values)):
            bad = X[~np.isfinite(values)][0]
            where = ", ".join(f"{v} = {x:.4g}" for v, x in zip(problem.variable_names, bad))
            return f"{f} = {e} is not finite at {where}"
    return None


def screen_finite(pool: list[Candidate], ctx: RunContext) -> list[Candidate]:
    """Candidates that are non-finite on the point sets are recorded as failed and not refit."""
    keep = []
    for cand in pool:
        reason = check_finite(ctx.problem, cand.search_expressions, ctx)
        if reason:
            cand.refit = RefitOutcome({}, "failed", False, reason=f"non-finite before refit: {reason}")
        else:
            keep.append(cand)
    return keep


def refine_pool(pool: list[Candidate], refiner: Refiner, ctx: RunContext, scope: str = "refit") -> RefitPassOutcome:
    """Stage B for every candidate, shortest first, then measurement and checked cleaning.

    Each candidate is one unit (run by the executor, or read back from the run store; ``scope``
    tells apart refits of the same candidate with other settings, e.g. coupled screening).
    Errors are isolated per candidate: a refiner that raises, or returns something
    that is not a :class:`RefitOutcome`, marks that candidate failed with the reason."""
    for cand in pool:
        seeded(cand, ctx)
    order = sorted(pool, key=lambda c: c.complexity)
    start = time.perf_counter()
    units = ctx.units or serial_units()
    unit_ctx = _unit_context(ctx)
    share = None if ctx.deadline is None else ctx.seconds_left()
    setting = digest(refiner.name, sorted(refiner.settings.items()))
    named = [(f"{scope}-{digest(setting, sorted((f, sp.srepr(e)) for f, e in c.search_expressions.items()))[:24]}",
              (refiner, c, unit_ctx)) for c in order]
    at = None if share is None else stop_time(ctx.deadline, share, ctx.wall)
    run = _Refits(units, ctx, None if at is None else at + BACKSTOP, start, share or 0.0)
    records = run.in_turns(named) if scope == "refit" and not ctx.problem.unknowns else run.all(named)
    answers = run.answers
    for i, (cand, record) in enumerate(zip(order, records), 1):
        apply_refit_record(cand, record, ctx.problem)
        ctx.progress.bar("refit", i, len(order), status=cand.refit.status if cand.refit else "failed")
    broken_refits(refiner, records)
    seconds = time.perf_counter() - start
    stopped = [(float(r["stopped"]), float(r.get("late", 0.0))) for r in records if r.get("stopped")]
    if stopped:
        one = len(stopped) == 1
        note_stop(ctx.progress, StoppedCall(
            "refiner", refiner.name, max(stopped)[0], share or 0.0,
            f"{'that candidate counts' if one else 'those candidates count'} as not refit (timeout)",
            "its refit" if len(records) == 1 else f"{len(stopped)} of its {len(records)} refits",
            max(late for _, late in stopped)), refiner)
    elif share is not None and not any(isinstance(a, Unanswered) and a.executor for a in answers):
        overran(refiner, "refiner", refiner.name, seconds, share, "Stage B's refits")
    counts: dict[str, int] = {}
    for c in pool:
        status = c.refit.status if c.refit else "pending"
        counts[status] = counts.get(status, 0) + 1
    ctx.progress.message(f"stage B: refit {len(pool)} candidate(s) in {time.perf_counter() - start:.2f} s "
                         f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    return RefitPassOutcome(len(order), counts, seconds)


#: the refits of the first turn; each later turn doubles (a fixed schedule, not the executor's workers, so
#: which candidates are refit is the same on every executor)
FIRST_TURN = 2
#: why a longer candidate is not refit
SHORTER_EXACT = "not refit: a shorter candidate's refit already meets the physics to the exact tolerance"


@dataclass(frozen=True)
class _Refits:
    """How one pool's refit units run: the run's units, its context, when the executor stops waiting
    (under a budget) and when the pool's refits began."""

    units: Units
    ctx: RunContext
    until: float | None
    start: float
    share: float
    answers: list[Any] = field(default_factory=list)     # every unit's raw answer, for the overrun checks

    def all(self, named: list[tuple[str, Any]]) -> list[dict[str, Any]]:
        answers = self.units.run("refit", named, refit_unit, check_refit_record, self.until,
                                 memo_key=_memo_key(self.ctx), fits=_finished)
        executor_stop(self.ctx.progress, answers, self.units.executor)
        self.answers.extend(answers)
        return [_unit_answer(r, time.perf_counter() - self.start, self.share) for r in answers]

    def in_turns(self, named: list[tuple[str, Any]]) -> list[dict[str, Any]]:
        """The refits shortest first, in turns of 2, 2, 4, 8, ... candidates; once a refit meets the
        physics to the exact tolerance, no longer candidate is refit (it cannot be simpler, and the longest
        trees were the slowest refits: two of them took 63 s of SSDE's Poisson 2-D attempt, after the
        answer was refit)."""
        records: list[dict[str, Any]] = []
        turn = FIRST_TURN
        while len(records) < len(named):
            if any(_meets_physics(r, self.ctx.method.exact_tolerance) for r in records):
                return records + [failed_record(SHORTER_EXACT)] * (len(named) - len(records))
            records += self.all(named[len(records):len(records) + turn])
            turn = turn if len(records) <= FIRST_TURN else 2 * turn
        return records


def _meets_physics(record: dict[str, Any], tolerance: float) -> bool:
    """A refit record whose interior and constraint residuals are both within ``tolerance``."""
    values = [record.get("rho_r"), record.get("rho_c")]
    return bool(record.get("expressions")) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v <= tolerance
        for v in values if v is not None) and record.get("rho_r") is not None


def _memo_key(ctx: RunContext) -> MemoKey:
    """A refit's key in the run's memo: its unit name (scope, refiner settings, candidate) and what the
    record also depends on, the teacher's values (eps_T and the checked cleaning read them), the points
    and the method's constants, so a later attempt reuses a refit only where it would come out the same."""
    teacher = b"" if ctx.teacher_values is None else np.ascontiguousarray(ctx.teacher_values).tobytes()
    points = [np.ascontiguousarray(P).tobytes() for P in (ctx.points.refine, *ctx.points.constraints)]
    salt = digest(teacher, *points, repr(ctx.method), repr(ctx.unknown_estimates))

    def key(name: str, item: object) -> str:
        return f"{name}-{salt[:24]}"

    return key


def _finished(item: object, record: dict[str, Any]) -> bool:
    """A refit worth remembering: not one that the run's deadline cut short or skipped."""
    refit = record.get("refit") if isinstance(record, dict) else None
    return isinstance(refit, dict) and refit.get("status") != "timeout" and refit.get("reason") != OUT_OF_TIME \
        and BROKE not in record


def _unit_context(ctx: RunContext) -> RunContext:
    """What a refit unit needs of the run, and nothing that cannot travel to a worker."""
    return replace(ctx, progress=Progress(verbose=False), units=None)


def refit_unit(item: tuple[Refiner, Candidate, RunContext]) -> dict[str, Any]:
    """One candidate's refit, measurement and checked cleaning as a JSON-safe record. Under a deadline
    the refiner gets the time left (``Refiner.within``), and a refit still running at its stop time is
    stopped where a signal reaches it: the candidate then counts as not refit (timeout)."""
    refiner, cand, ctx = item
    at = None
    if ctx.deadline is not None:
        if time.time() >= ctx.deadline:
            # shortest first: under a budget the simplest candidates are the ones refit (--budget)
            return failed_record(OUT_OF_TIME)
        left = ctx.seconds_left()
        refiner, at = refiner.within(left), stop_time(ctx.deadline, left, ctx.wall)
    start = time.perf_counter()
    try:
        with stopped_at(at):
            return _refit_record(refiner, copy.copy(cand), ctx)
    except Stopped:
        return {**stopped_record(time.perf_counter() - start), "late": round(late_by(at), 3)}


def _refit_record(refiner: Refiner, cand: Candidate, ctx: RunContext) -> dict[str, Any]:
    try:
        outcome, refined = contracted_refit(refiner, cand, ctx.problem, ctx.points)
    except (KeyboardInterrupt, MemoryError, Expired):
        raise
    except UnreadableRefit as exc:  # a complex-valued tree's refit: this candidate fails, not the refiner
        return failed_record(str(exc))
    except BaseException as exc:  # the refiner broke its contract on this candidate: recorded as such
        return {**failed_record(f"{type(exc).__name__}: {exc}"), BROKE: TAMPERED if isinstance(exc, Tampered) else True}
    try:
        cand.refit, cand.expressions = outcome, refined or None
        # after the joint fit has let the data pick the branch, refits hold the physics alone
        physics = replace(ctx, problem=ctx.problem.physics_only())
        outside = outside_bounds(ctx.problem, cand.expressions or {})
        if outside:        # u = 0 with nu = 1e-4 fits the physics: the declared range rules it out
            cand.refit = replace(outcome, status="failed", converged=False, reason=outside)
            cand.expressions = None
        measure(cand, ctx)
        if cand.expressions and not (cand.phi is not None and math.isfinite(cand.phi)):
            cand.refit = replace(outcome, status="failed", converged=False, reason=_NON_FINITE)
        clean(cand, ctx, _reduced_refit(refiner, cand, physics))
        if ctx.problem.unknowns and cand.expressions:
            # on the cleaned tree: a search's spurious 1e-5 terms would stall the refits that name them
            # its refits are refit again or compared by their numbers: sympy.simplify was half their time
            cand.unknowns_note = identify_unknowns(cand, _reduced_refit(refiner, cand, ctx, simplify=False),
                                                   _reduced_refit(refiner, cand, physics, simplify=False),
                                                   ctx) or None
            measure(cand, ctx)
            clean(cand, ctx)        # what the named values left at round-off (a 4e-28*sin term) goes
    except (KeyboardInterrupt, MemoryError, Expired):
        raise
    except Tampered as exc:      # a reduced tree's refit changed the problem or the points
        return {**failed_record(str(exc)), BROKE: TAMPERED}
    except BaseException as exc:  # one unusable candidate must not end the run; record why
        return failed_record(f"{type(exc).__name__}: {exc}")
    return {name: stored_value(getattr(cand, name)) for name in stage_b_fields()}


def broken_refits(refiner: Refiner, records: list[dict[str, Any]]) -> None:
    """When the refiner broke its contract on every candidate, the run stops naming it (a broken refiner
    would otherwise select nothing and escalate); on some, a warning names it."""
    broken = [r["refit"]["reason"] for r in records if r.get(BROKE)]
    if not broken:
        return
    tampered = [r["refit"]["reason"] for r in records if r.get(BROKE) == TAMPERED]
    if tampered:
        raise PluginError(_first_line(tampered[0]).removeprefix(f"{Tampered.__name__}: "))
    if len(broken) == len(records):
        raise PluginError(f"refiner '{refiner.name}' broke its contract on all {len(records)} candidate(s): "
                          f"{_first_line(broken[0])}; return a RefitOutcome for the candidate's own fields "
                          "(status 'failed' with no expressions when the fit fails)")
    warn_at_component(refiner, f"refiner '{refiner.name}' broke its contract on {len(broken)} of {len(records)} "
                      f"candidate(s), which count as failed: {_first_line(broken[0])}")


def _first_line(text: str) -> str:
    return (text.splitlines() or ["(no message)"])[0][:300]


#: why a refined expression whose residuals are not finite fails (a kink's DiracDelta evaluates to nan)
_NON_FINITE = ("residuals not finite on the refinement or constraint points (e.g. a DiracDelta from "
               "differentiating abs: not a classical solution)")


def reduction_refiner(refiner: Refiner, method: MethodConstants, simplify: bool = True) -> Refiner:
    """The run's refiner for Stage C's reduced trees: the same class and options, its ``timeout``
    capped at ``cleaning_refit_seconds`` where it declares one; with ``simplify=False``, its
    ``simplify`` option off where it declares one (a refit whose tree is refit again needs none)."""
    options = type(refiner).options
    changes: dict[str, Any] = {}
    if "timeout" in options:
        changes["timeout"] = min(float(refiner.settings.get("timeout", method.cleaning_refit_seconds)),
                                 method.cleaning_refit_seconds)
    if not simplify and "simplify" in options:
        changes["simplify"] = False
    # the same class, not a lookup by name: a shadowed refiner chosen as PLUGIN:NAME stays itself
    return type(refiner)(**{**refiner.settings, **changes}) if changes else refiner


def _reduced_refit(refiner: Refiner, cand: Candidate, ctx: RunContext, simplify: bool = True) -> ReducedRefit:
    """Stage B on a reduced tree of ``cand`` (for :func:`desyr.stages.select.clean`): status and
    checked expressions, physics only, exactly as the candidate's own refit."""
    capped: list[Refiner] = []

    def refit(exprs: Mapping[str, sp.Expr]) -> tuple[str, dict[str, sp.Expr]]:
        if not capped:
            capped.append(reduction_refiner(refiner, ctx.method, simplify))
        probe = Candidate(f"{cand.id}-reduced", dict(exprs), searcher=cand.searcher, search_seed=cand.search_seed)
        with unchanged("refiner", refiner.name, {"problem": ctx.problem, "points": ctx.points}, Tampered):
            answer = capped[0].refine(probe, ctx.problem, ctx.points)
        outcome = checked_outcome(answer, refiner.name)
        fitted = checked_expressions(outcome, probe, ctx.problem)
        in_family(fitted, probe, ctx.problem, family_points(ctx.points))
        return outcome.status, fitted
    return refit


def _unit_answer(answer: dict[str, Any] | UnitFailure, waited: float, share: float) -> dict[str, Any]:
    """A refit unit's record; a unit that failed counts as failed, one the executor stopped waiting on
    as stopped."""
    if isinstance(answer, Unanswered) and answer.stopped:     # it ran here and caught its stops
        return {**stopped_record(answer.seconds), "late": round(max(answer.seconds - share - grace(share), 0.0), 3)}
    if isinstance(answer, Unanswered) and not answer.executor:
        return failed_record(OUT_OF_TIME)
    if isinstance(answer, UnitFailure):
        return stopped_record(waited) if answer.stopped else failed_record(answer.message)
    return answer

