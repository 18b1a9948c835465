"""Stage 0 of ``run``: the exact searchers propose candidates from the equations alone, before any
teacher; Stages B and C and the verdict follow in this process (there are few candidates). A verified
answer ends the run here; otherwise the attempt is kept beside the teacher's (:func:`closer`) and
heads the attempts table (:func:`with_exact`)."""
from __future__ import annotations

import math
import os
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from desyr.api.ends import SOLVED, Execution, RunRequest, Stages, Started, draw_figures, finish, start
from desyr.api.shares import STAGE0_SHARE, until
from desyr.escalation import attempt_record, candidate_failures
from desyr.extension.roles import ExactSearcher
from desyr.model.result import AttemptRecord, Result
from desyr.report.figures import DrawnFigures
from desyr.runtime.ahead import imports_ahead
from desyr.stages.exact_search import SolveOutcome, propose_candidates
from desyr.stages.refit import refine_pool
from desyr.stages.select import run_gates


@dataclass(frozen=True)
class ExactAttempt:
    """Stage 0's attempt: its result (None when no exact searcher proposed anything), start and calls."""

    result: Result | None
    started: Started
    solved: SolveOutcome
    seconds: float
    figures: DrawnFigures | None = None     # drawn while the verifier worked (into the run's folder)


def exact_attempt(request: RunRequest, solvers: list[ExactSearcher], time_limit: float,
                  figures_to: str | Path | None) -> ExactAttempt:
    """Stage 0, then Stages B and C on its proposals, in this process (there are few of them); each
    solver call bounded by ``time_limit`` seconds. With ``figures_to``, the result's figures are drawn
    there while the verifier works: seconds count on this path."""
    clock = time.perf_counter()
    here = Execution(executor=request.registry.in_process_executor())
    s = start(replace(request, out=None, execution=here))
    s.parts.extend(solvers)
    # the refiner's heavy imports overlap the solver children's work instead of following it
    with imports_ahead(getattr(s.refiner, "imports_ahead", ())):
        solved = propose_candidates(solvers, s.ctx.problem, time_limit, request.wall, s.ctx.progress)
    s.ctx.progress.message(f"stage 0: {len(solved.pool)} candidate(s) from the exact searchers "
                           f"({', '.join(x.name for x in solvers)}) in {solved.seconds:.1f} s")
    if not solved.pool:
        return ExactAttempt(None, s, solved, time.perf_counter() - clock)
    pool = list(solved.pool)
    ctx = until(s.ctx, request.wall, STAGE0_SHARE)            # under a budget: the rest is the teacher's path
    with s.units.executor:
        refit = refine_pool(pool, s.refiner, ctx)            # Stage B: every constant refit from the physics
        selection = run_gates(pool, s.gates, ctx)            # Stage C (no teacher: its gate is inactive)
    timings = {"solve": solved.seconds, "refine": refit.seconds, "select": selection.seconds}
    stages = Stages(pool, selection, None, None, None, timings, {"searcher": "+".join(x.name for x in solvers)})
    # drawn aside, and moved in only if this result is the run's: an unsolved stage 0 leaves no figure
    staging = None if figures_to is None else Path(figures_to) / ".stage0-figures"
    drawn: list[DrawnFigures] = []

    def draw(unverified: Result) -> None:
        if staging is not None:
            try:
                drawn.append(draw_figures(s, unverified, None, staging))
            except Exception:  # noqa: BLE001 - a figure never costs a result; write_run draws them again
                pass

    result = finish("run", s, stages, draw)
    s.ctx.progress.message(f"stage 0: the exact attempt is {result.verdict.replace('_', ' ')}")
    if result.verdict not in SOLVED:
        for line in candidate_failures(result):        # why, candidate by candidate: not only "failed 2"
            s.ctx.progress.message(f"stage 0: {line}")
    figures = None
    if staging is not None and figures_to is not None:
        if drawn and result.verdict in SOLVED:
            try:
                for path in (staging.iterdir() if staging.is_dir() else ()):
                    os.replace(path, Path(figures_to) / path.name)
                figures = drawn[0]
            except OSError:     # e.g. a folder where a figure goes: write_run draws them again, or leaves them out
                figures = None
        shutil.rmtree(staging, ignore_errors=True)
    return ExactAttempt(result, s, solved, time.perf_counter() - clock, figures)


def closer(a: Result, b: Result) -> bool:
    """Whether result ``a`` is better than ``b``: a better verdict, or the same one with a smaller
    largest residual on the fresh points."""
    rank = {"proved": 3, "verified": 2, "not_exact": 1}

    def worst(r: Result) -> float:
        return r.residuals.worst() if r.residuals is not None else math.inf

    ra, rb = rank.get(a.verdict, 0), rank.get(b.verdict, 0)
    return ra > rb or (ra == rb and worst(a) < worst(b))


def spent(exact: ExactAttempt | None) -> float:
    """The seconds stage 0 took (0 when no exact searcher ran)."""
    return exact.seconds if exact is not None else 0.0


def with_exact(result: Result, exact: ExactAttempt | None, seconds: float | None) -> Result:
    """The attempts table with the exact attempt first (and the teacher's attempt, when it was the only
    other), and stage 0's solver calls; the result unchanged when no exact searcher ran."""
    if exact is None:
        return result
    calls = list(exact.solved.records)
    first = (replace(attempt_record(1, "exact_solvers", _proposed(exact), exact.seconds, exact.result),
                     failures=candidate_failures(exact.result))
             if exact.result is not None else
             AttemptRecord(1, "exact_solvers", _proposed(exact), round(exact.seconds, 3), False, None, None,
                           "+".join(sorted({c.searcher for c in calls}))))
    later = result.attempts or ([attempt_record(1, "first", "the config as given", seconds, result)]
                                if seconds is not None and result is not exact.result else [])
    if result is exact.result:
        later = []
    # stage 0 is attempt 1; escalation already numbered its attempts from 2 (its stop reason names them)
    result.attempts = [first] + [replace(a, index=i) for i, a in enumerate(later, 2)]
    result.solvers = calls
    return result


def _proposed(exact: ExactAttempt) -> str:
    solved = [c for c in exact.solved.records if c.outcome.startswith("candidates")]
    where = ", ".join(f"{c.searcher}:{c.solver}" for c in solved) or "no solver proposed a candidate"
    return f"{len(exact.solved.pool)} proposal(s) before any teacher ({where})"
