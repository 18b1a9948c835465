"""Stage 0 of the anytime pipeline: exact searchers propose complete candidates from the equations
alone, before any teacher is trained (``[solvers]``, docs/solvers.md).

The proposals are ordinary candidates: the same Stage B refit, gates and verifier decide them.
Each one is read back through the problem's own parser first, so a proposal that could not be
written to ``result.json`` and read again never enters the pool.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from desyr.config.spec import SolversSettings
from desyr.errors import ConfigError
from desyr.extension.guard import contained
from desyr.extension.registry import Registry
from desyr.extension.roles import ExactSearcher
from desyr.model.candidates import Candidate
from desyr.model.context import Reporter, StderrLines
from desyr.model.frozen import thawed
from desyr.model.outcomes import StoppedCall
from desyr.model.problem import Problem
from desyr.model.result import SolverCall
from desyr.model.search import Proposals, SolverAttempt
from desyr.stages.completion import complete_fields
from desyr.stages.stops import Stopped, late_by, no_time, note_stop, stop_time, stopped_at
from desyr.stages.watch import unchanged
from desyr.symbolic.expressions import ExpressionError, expression_text


@dataclass(frozen=True)
class SolveOutcome:
    """The candidates the exact searchers proposed (in their order), every call, and the stage's time."""

    pool: tuple[Candidate, ...]
    records: tuple[SolverCall, ...]
    seconds: float


def exact_searchers(registry: Registry, settings: SolversSettings) -> list[ExactSearcher]:
    """The configured exact searchers (``[solvers] plugins``; default: every installed one), with the
    options of ``[solvers.options.<name>]``; none when ``[solvers] enabled = false``."""
    if not settings.enabled:
        return []
    installed = [n for n in registry.names("searcher")
                 if not getattr(registry.get("searcher", n), "needs_teacher", True)]
    names = list(settings.plugins) if settings.plugins is not None else installed
    made = []
    for name in names:
        if name not in installed:
            raise ConfigError(f"[solvers] plugins: '{name}' is not an installed exact searcher "
                              f"(installed: {', '.join(installed) or 'none'})")
        made.append(registry.create("searcher", name, thawed(settings.options.get(name, {}))))
    return [s for s in made if isinstance(s, ExactSearcher)]


def propose_candidates(searchers: list[ExactSearcher], problem: Problem, time_limit: float,
                       wall: float | None = None, progress: Reporter | None = None) -> SolveOutcome:
    """Every exact searcher's proposals as candidates ``x0, x1, ...`` (searcher ``NAME:SOLVER``). Under
    a budget's ``wall`` an exact searcher still proposing at the wall's stop time is stopped (named on
    ``progress``) and proposes nothing: its solver calls are bounded by ``time_limit`` already."""
    start = time.perf_counter()
    pool: list[Candidate] = []
    records: list[SolverCall] = []
    for searcher in searchers:
        began, share = time.perf_counter(), 0.0 if wall is None else max(wall - time.time(), 0.0)
        if wall is not None and share <= 0:
            no_time(progress or StderrLines(), "searcher", searcher.name, "propose()", "it proposes nothing")
            records.append(SolverCall(searcher.name, "propose", 0.0, "skipped", "the run had no time left for it (--budget)"))
            continue
        at = None if wall is None else stop_time(wall, share, wall)
        try:
            with stopped_at(at), contained("searcher", searcher.name), \
                    unchanged("searcher", searcher.name, {"problem": problem}):
                found = searcher.propose(problem, time_limit)
                if not isinstance(found, Proposals):
                    raise TypeError(f"propose returned {type(found).__name__}, not Proposals")
        except Stopped:
            note_stop(progress or StderrLines(), StoppedCall("searcher", searcher.name, time.perf_counter() - began,
                                                             share, "it proposes nothing", "propose()", late_by(at)),
                      searcher)
            records.append(SolverCall(searcher.name, "propose", time.perf_counter() - began, "stopped",
                                      "stopped at the budget's wall"))
            continue
        records += [_record(searcher.name, a) for a in found.attempts]
        for exprs, origin in zip(found.candidates, found.origins or ("",) * len(found.candidates)):
            given, why = _completed(problem, exprs)
            parsed, why = (None, why) if why else _read_back(problem, given)
            if parsed is None:
                records.append(SolverCall(searcher.name, origin, 0.0, "dropped", why))
                continue
            pool.append(Candidate(f"x{len(pool)}", parsed,
                                  searcher=f"{searcher.name}:{origin}" if origin else searcher.name))
    return SolveOutcome(tuple(pool), tuple(records), time.perf_counter() - start)


def _record(searcher: str, attempt: SolverAttempt) -> SolverCall:
    return SolverCall(searcher, str(attempt.solver), float(attempt.seconds), str(attempt.outcome),
                        str(attempt.detail))


def _completed(problem: Problem, exprs: object) -> tuple[object, str]:
    """A proposal that leaves out fields the equations hold only through their gradient (a pressure)
    or without derivatives, with those fields derived from the others (docs/solvers.md, "Field
    completion"); any other proposal as it is.  The second item says why a completion failed."""
    if not isinstance(exprs, Mapping) or not exprs or not set(exprs) < set(problem.fields):
        return exprs, ""
    missing = sorted(set(problem.fields) - set(exprs))
    given, why = _read_back(problem, exprs, partial=True)      # in the problem's own symbols
    done = None if given is None else complete_fields(problem, given)
    return (done, "") if done is not None else (exprs, why or f"{', '.join(missing)} could not be completed")


def _read_back(problem: Problem, exprs: object, partial: bool = False) -> tuple[dict[str, sp.Expr] | None, str]:
    """The proposal in the problem's own symbols, or None and why when it is not one expression per
    field (some fields, where ``partial``) that prints and parses back."""
    if not isinstance(exprs, Mapping) or not (set(exprs) <= set(problem.fields) if partial
                                              else set(exprs) == set(problem.fields)):
        return None, "does not read back: not one expression per field"
    try:
        return {f: problem.parse(str(expression_text(e))) for f, e in exprs.items()}, ""
    except (ExpressionError, TypeError, ValueError, AttributeError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        return None, f"does not read back: {first[:200]}"
