"""``run`` (the whole pipeline) and ``refine`` (Stages B and C on given candidates), each in stage order."""
from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from desyr.api.ends import SOLVED, Execution, RunRequest, Stages, Started, finish, start, store_teacher, write_run
from desyr.api.shares import (
    SCREEN_SHARE,
    SEARCH_SHARE,
    TEACHER_SHARE,
    VERDICT_SECONDS,
    stage_a_deadline,
    until,
)
from desyr.api.stage0 import closer, exact_attempt, spent, with_exact
from desyr.config.spec import RunSpec, read_spec
from desyr.coupled.groups import coupled_groups, refit_winner, screened_info, screening_context, screening_refiner
from desyr.errors import ConfigError
from desyr.escalation import attempt_record
from desyr.extension.guard import past, warnings_once
from desyr.extension.registry import Registry, load_registry
from desyr.extension.roles import Searcher, Teacher, TeacherModel
from desyr.model.candidates import Candidate
from desyr.model.context import RunContext, SearchInfo
from desyr.model.outcomes import RefitPassOutcome, Selection, StoppedCall, TeacherOutcome
from desyr.model.problem import Problem
from desyr.model.result import Result
from desyr.runtime.atomic import out_lock
from desyr.runtime.execution import Memo
from desyr.runtime.progress import Progress
from desyr.stages.exact_search import exact_searchers
from desyr.stages.pool import PooledCandidate, pool_searches, pooled_candidates, with_carried
from desyr.stages.refit import check_finite, parse_candidate, refine_pool, screen_finite
from desyr.stages.run_components import searchers
from desyr.stages.search import search_fields, search_seeds
from desyr.stages.search_contract import check_operators
from desyr.stages.select import run_gates
from desyr.stages.stops import Stopped, noting_stops
from desyr.stages.teach import (
    make_teacher,
    reused_teacher,
    smaller_teacher,
    teach,
    teacher_key,
    teacher_predict,
    with_teacher,
)
from desyr.stages.waves import merged, search_rounds, seed_waves, wave_line
from desyr.unary.choice import start_library
from desyr.unary.evidence import Finding, read_evidence
from desyr.verify.child import start_verifier


def run(problem: Problem, *, seed: int | None = None, registry: Registry | None = None,
        out: str | Path | None = None, progress: Progress | None = None, retrain: bool = False,
        cache_dir: str | Path = ".desyr-cache", execution: Execution | None = None, plots: bool = True,
        budget: float | None = None, budget_from: float | None = None) -> Result:
    """The whole pipeline on one problem; returns (and optionally writes) the typed result.

    From Python it starts one process of its own, the separate verifier (docs/security.md); units
    run in this process unless ``execution`` (or the config's ``[execution]``) says otherwise, and
    the figures are drawn here unless the caller started a spare (``desyr run`` does:
    :func:`desyr.report.drawer.start_drawer`).

    With a ``budget`` (seconds; or ``[escalation] budget``) a result that is not verified exact
    is tried again under the escalation policy (:mod:`desyr.escalation`) until one is, and the run
    returns within the budget plus the verdict's seconds: a component still working at its stop time is
    stopped (:mod:`desyr.stages.stops`; ``result.stopped`` names it). ``budget_from``: when the budget's
    clock started (``time.time()``; default: this call; the command line passes its own start)."""
    from desyr.escalation import escalate, policy

    registry = registry or load_registry()
    spec = read_spec(problem, registry)          # the config, checked and read once
    rule = policy(spec, budget)
    spec, why_library = start_library(spec, registry)      # no [search] unary: chosen from the problem
    (progress or Progress()).message(f"library: unary {list(spec.search.unary or ())}, because {why_library}")
    # Components are chosen (and their options checked) before the output folder is touched.
    solvers = exact_searchers(registry, spec.solvers)
    found, teacher = _run_components(registry, spec)
    started = time.time() if budget_from is None else budget_from
    request = RunRequest(spec, registry, seed, out, progress, cache_dir, retrain,
                         execution or _python_default(registry, spec),
                         wall=None if rule is None else started + rule.budget)         # stage 0 included
    with out_lock(out), noting_stops() as stops, warnings_once():
        clock = time.perf_counter()
        if spec.problem.config_text:
            start_verifier()    # its imports overlap the run's work instead of following it
        # Stage 0: the exact searchers, before any teacher; a verified candidate ends the run here
        # (under a budget, each solver call gets at most half of it)
        limit = spec.solvers.time_limit if rule is None else min(spec.solvers.time_limit, rule.budget / 2)
        exact = exact_attempt(request, solvers, limit, out if plots else None) if solvers else None
        if exact is not None and exact.result is not None and exact.result.verdict in SOLVED:
            return write_run(exact.started, with_exact(exact.result, exact, None), None, out, plots, exact.figures)
        if rule is None:
            s = start(request)
            result, model = _attempt(s, found, teacher)
            seconds = (time.perf_counter() - clock) - spent(exact)
            if exact is not None and exact.result is not None and closer(exact.result, result):
                # neither attempt is exact and stage 0's is nearer: the run reports it (docs/solvers.md)
                kept = with_exact(exact.result, exact, None)
                kept.attempts.append(attempt_record(2, "first", "the config as given", seconds, result, why_library))
                return write_run(exact.started, kept, None, out, plots)
            return write_run(s, with_exact(result, exact, seconds), model, out, plots)

        if request.execution.resume:
            (progress or Progress()).message("resume: not used with an escalation budget (each attempt is a "
                                             "different config, so none is stored); the run starts afresh")

        wall = request.wall
        memo = Memo()                       # what one attempt computed, the next need not compute again
        teachers: dict[str, TeacherOutcome] = {}    # each teacher trained, by its settings: reused as it is

        def attempt(variant: RunSpec) -> tuple[Result, tuple[Started, TeacherModel | None]]:
            s = start(replace(request, spec=variant, out=None, memo=memo))
            before = len(stops)
            result, model = _attempt(s, *_run_components(registry, variant), wall, teachers)
            result.stopped = stops[before:]        # escalation stops after an attempt with a stopped call
            return result, (s, model)

        # the exact attempt spent part of the budget
        rule = replace(rule, budget=max(rule.budget - spent(exact), 1e-9))
        result, (s, model), attempts, stop = escalate(spec, rule, registry, progress or Progress(), attempt,
                                                   first=2 if exact is not None else 1, evidence=_evidence,
                                                   why_first=why_library)
        result.attempts, result.escalation_stop, result.stopped = attempts, stop, list(stops)
        result.timings["escalation_total"] = round(sum(a.seconds for a in attempts), 4)   # every attempt
        return write_run(s, with_exact(result, exact, None), model, out, plots)


def _evidence(handle: tuple[Started, TeacherModel | None]) -> list[Finding]:
    """What an attempt's teacher shows about the functions the solution needs (escalation's library step)."""
    s, model = handle
    if model is None:
        return []
    name = s.spec.teacher.plugin or "teacher"
    problem = s.ctx.problem
    try:
        return read_evidence(lambda X: teacher_predict(model, name, X), problem.bounds, s.ctx.points.search,
                             problem.variable_names, problem.fields)
    except Exception:  # noqa: BLE001 - evidence only orders the library's growth; the base tiers still come
        return []


def _run_components(registry: Registry, spec: RunSpec) -> tuple[list[Searcher], Teacher]:
    found = [s for s in searchers(registry, spec) if isinstance(s, Searcher)]
    check_operators(found, spec.search.binary, spec.search.unary or (), spec.problem)
    return found, make_teacher(registry, spec)


def _attempt(s: Started, found: list[Searcher], teacher: Teacher, wall: float | None = None,
             teachers: dict[str, TeacherOutcome] | None = None) -> tuple[Result, TeacherModel | None]:
    s.parts.extend([teacher, *found])
    with s.units.executor:
        return _run(s, found, teacher, wall, teachers)


def _run(s: Started, found: list[Searcher], teacher: Teacher, wall: float | None,
         teachers: dict[str, TeacherOutcome] | None = None) -> tuple[Result, TeacherModel | None]:
    """The method in stage order, for one field and for several (``wall``: when a budget runs out;
    ``teachers``: the teachers earlier attempts trained, reused where the settings are the same)."""
    problem = s.pristine
    stage_a_end = stage_a_deadline(wall)
    teachers, rounds = {} if teachers is None else teachers, search_rounds(found, problem)
    key = teacher_key(s.ctx, teacher)
    # anytime: the quick searchers first try a smaller teacher, which the configured one continues from; a
    # later attempt has its teacher already, or (a larger one) continues from the last attempt's
    early = _early_round(s, teacher, rounds[0], found[0].name, (stage_a_end, wall), teachers) \
        if len(rounds) > 1 and not teachers else None
    if early is not None and (early[0].verdict in SOLVED or past(wall) or early[1] is None):
        return early[0], early[1]
    best = None if early is None else (early[0], early[1])      # what a stopped run returns: its best so far
    carried: dict[str, list[PooledCandidate]] = {} if early is None else early[3]
    # Stage A: the teacher, then K seeded searches per field, retention and pooling
    try:
        taught = reused_teacher(s.ctx, teacher, teachers.get(key)) or \
            teach(s.registry, until(s.ctx, stage_a_end, TEACHER_SHARE), teacher)
    except Stopped as exc:              # named already: without its values no search runs
        # the early round's candidates stand: the smaller teacher's searches and refits were done
        return best if best is not None and best[0].selected_id is not None else (_untaught(s, exc.record), None)
    teachers.setdefault(key, taught)
    taught_ctx = with_teacher(s.ctx, taught)
    store_teacher(s, taught)
    earlier: dict[str, float] = {} if early is None else early[2]
    for searchers_now in rounds:       # the quick searchers first, alone (anytime)
        round_start = time.perf_counter()
        result, carried = _search_round(s, problem, taught, taught_ctx, searchers_now, found[0].name,
                                        (stage_a_end, wall), earlier, carried)
        best = _better(best, (result, taught.model))
        if result.verdict in SOLVED or searchers_now is found or past(wall):    # nothing starts past the wall
            return best
        earlier["quick_searchers"] = time.perf_counter() - round_start
        label = "+".join(f.name for f in searchers_now)
        s.ctx.progress.message(f"anytime: the quick searchers ({label}) found no verified answer "
                               f"({result.verdict.replace('_', ' ')}); now every searcher")
    raise AssertionError("the last round searches with every searcher")  # pragma: no cover


def _early_round(s: Started, teacher: Teacher, quick: list[Searcher], first: str,
                 ends: tuple[float | None, float | None], teachers: dict[str, TeacherOutcome]
                 ) -> tuple[Result, TeacherModel | None, dict[str, float], dict[str, list[PooledCandidate]]] | None:
    """The quick searchers' round on the teacher's smaller budget (None where the teacher has none): a
    verified answer ends the attempt at about a quarter of the teacher's cost; otherwise the configured
    teacher goes on from that network. Its result, teacher model and the seconds it took."""
    smaller = smaller_teacher(s.registry, s.spec, teacher)
    if smaller is None:
        return None
    began, key = time.perf_counter(), teacher_key(s.ctx, smaller)
    try:
        taught = reused_teacher(s.ctx, smaller, teachers.get(key)) or \
            teach(s.registry, until(s.ctx, ends[0], TEACHER_SHARE / 2), smaller)
    except Stopped as exc:              # named already: the attempt ends as for the configured teacher
        return _untaught(s, exc.record), None, {}, {}
    teachers.setdefault(key, taught)
    result, pooled = _search_round(s, s.pristine, taught, with_teacher(s.ctx, taught), quick, first, ends, {}, {})
    if result.verdict not in SOLVED:
        s.ctx.progress.message(f"anytime: the quick searchers found no verified answer on the smaller teacher "
                               f"({result.verdict.replace('_', ' ')}); the teacher trains on from it")
    return result, taught.model, {"smaller_teacher": taught.seconds,
                                  "early_round": time.perf_counter() - began - taught.seconds}, pooled


def _better(best: tuple[Result, TeacherModel | None] | None, now: tuple[Result, TeacherModel | None]
            ) -> tuple[Result, TeacherModel | None]:
    """A round's result, unless an earlier round's is better: it has a selected candidate where this round
    has none (its searches were stopped, or the wall cut its refits), or a better verdict. Otherwise this
    round's selection stands: its pool holds the earlier rounds' candidates too."""
    if best is None or best[0].selected_id is None:
        return now
    rank = {"proved": 3, "verified": 2, "not_exact": 1}
    lost = now[0].selected_id is None or rank.get(best[0].verdict, 0) > rank.get(now[0].verdict, 0)
    return best if lost else now


def _untaught(s: Started, stop: StoppedCall | None) -> Result:
    """The attempt's result when its teacher was stopped: no values, so no search and no candidate."""
    seconds, name = (stop.seconds, stop.name) if stop is not None else (0.0, "")
    return finish("run", s, Stages([], Selection(None, []), None, None, None, {"teacher": seconds}, {"teacher": name}))


def _search_round(s: Started, problem: Problem, taught: TeacherOutcome, taught_ctx: RunContext,
                  searchers_now: list[Searcher], first: str, ends: tuple[float | None, float | None],
                  earlier: dict[str, float], carried: Mapping[str, list[PooledCandidate]]
                  ) -> tuple[Result, dict[str, list[PooledCandidate]]]:
    """One round's searches in seed waves (:mod:`desyr.stages.waves`), each followed by Stages B and C
    and the verdict; a verified answer skips the waves after it. ``ends``: Stage A's end and the wall.
    ``carried``: the rounds before it pooled, pooled again with this round's (a candidate an earlier
    round found stays a candidate); the round's result and its pool."""
    stage_a_end, wall = ends
    # quick searchers' searches cost less than the refit a second wave adds: they run as one wave
    # a quick searcher whose seeds the round before searched comes from the memo: the waves count the rest
    searching = [f for f in searchers_now if not (f.quick and "quick_searchers" in earlier)]
    waves = (seed_waves(s.spec.search, len(problem.fields) * len(searching))
             if s.spec.search.seed_waves and not all(f.quick for f in searchers_now) else [s.spec.search])
    names = [f.name for f in searchers_now]
    searched = None
    for i, settings in enumerate(waves):
        searched = merged(searched, search_fields(searchers_now, settings, until(taught_ctx, stage_a_end,
                                                                                   SEARCH_SHARE), first=first),
                          problem.fields, names)
        ctx = until(taught_ctx, None if wall is None else wall - VERDICT_SECONDS)   # Stage B starts no refit after it
        pooled, search = with_carried(*pool_searches(searched, problem.fields, names), carried)
        ctx.progress.message(f"stage A: {search.pool_size} pooled candidate(s) from "
                             f"{len(search.runs)} search(es) in {searched.seconds:.1f} s")
        rest = waves[i + 1:]
        skipped = [seed for w in rest for seed in search_seeds(ctx.seed, w.runs, w.seed_offset)]
        result = _select(s, taught, ctx, pooled, replace(search, skipped_seeds=skipped), "+".join(names),
                         {"teacher": taught.seconds, "search": searched.seconds, **earlier}, wall)
        done = not rest or result.verdict in SOLVED or past(wall)
        if rest:
            ctx.progress.message(wave_line(result.verdict, result.verdict in SOLVED, done, search.seeds, skipped,
                                           len(problem.fields) * len(names)))
        if done:
            return result, pooled
    raise AssertionError("the last wave returns")  # pragma: no cover


def _select(s: Started, taught: TeacherOutcome, ctx: RunContext,
            pooled: Mapping[str, list[PooledCandidate]], search: SearchInfo, label: str,
            timings: dict[str, float], wall: float | None = None) -> Result:
    """Stages B and C on the pooled candidates, for one field and for several, then the verdict (the
    gates have until the ``wall``: Stage B's deadline is before it)."""
    problem = s.pristine
    coupled = None
    if len(problem.fields) == 1:
        pool = pooled_candidates(next(iter(pooled.values())), problem.fields[0])
        # Stage B: physics-only refit of every finite candidate, then its checked cleaning
        refit = refine_pool(screen_finite(pool, ctx), s.refiner, ctx)
        # Stage C: the gates
        selection = run_gates(pool, s.gates, replace(ctx, deadline=wall))
        timings.update(refine=refit.seconds, select=selection.seconds)
    else:
        # Stage A, end, coupled: shared-factor augmentation, shortlists, the best groups (under a budget
        # the screening refits leave part of the time to the winner's full refit)
        stage_b_time = ctx.seconds_left()
        screening = screening_context(until(ctx, ctx.deadline, SCREEN_SHARE), s.spec.coupled.screening_points)
        groups = coupled_groups(pooled, label, s.spec.coupled, ctx, screening)
        # Stage B on the screening subset (the refiner's cheap variant), then Stage C picks one group
        screened = refine_pool(groups.pool, screening_refiner(s.refiner, s.spec.coupled), screening, scope="screen")
        selection = run_gates(groups.pool, s.gates, replace(screening, deadline=wall))
        # Stage B again, for the chosen group alone on the full set; under a budget only while a third of
        # Stage B's time is left (else the group keeps its screening refit), and a refit started may run
        # to the wall (not Stage B's deadline): it is the result
        winner = refit_winner(selection, s.refiner, replace(ctx, deadline=wall)) \
            if ctx.seconds_left() >= stage_b_time / 3 else RefitPassOutcome(0, {}, 0.0)
        pool, coupled = groups.pool, screened_info(groups, screened, selection)
        timings.update(refine=screened.seconds + winner.seconds,
                       screen=groups.seconds + screened.seconds + selection.seconds)
    stages = Stages(pool, selection, taught, search, coupled, timings,
                     {"teacher": taught.info.plugin, "searcher": label})
    return finish("run", s, stages)


def refine(problem: Problem, candidates: Iterable[str | Mapping[str, str]], *, seed: int | None = None,
           registry: Registry | None = None, use_teacher: bool = False, out: str | Path | None = None,
           progress: Progress | None = None, retrain: bool = False, cache_dir: str | Path = ".desyr-cache",
           execution: Execution | None = None, plots: bool = True) -> Result:
    """Stages B and C on user-given candidates; optionally with the configured teacher for eps_T."""
    registry = registry or load_registry()
    spec = read_spec(problem, registry)          # the config, checked and read once
    teacher = make_teacher(registry, spec) if use_teacher else None
    request = RunRequest(spec, registry, seed, out, progress, cache_dir, retrain,
                         execution or _python_default(registry, spec), "refine")
    with out_lock(out), warnings_once():
        s = start(request)
        if spec.problem.config_text:
            start_verifier()
        with s.units.executor:
            result, model = _refine(s, list(candidates), teacher)
        return write_run(s, result, model, out, plots)


def _refine(s: Started, candidates: list[str | Mapping[str, str]], teacher: Teacher | None
            ) -> tuple[Result, TeacherModel | None]:
    problem = s.pristine
    pool = []
    for i, text in enumerate(candidates):
        exprs = parse_candidate(problem, text)
        reason = check_finite(problem, exprs, s.ctx)
        if reason:
            raise ConfigError(f"candidate {i}: {reason}")
        pool.append(Candidate(f"c{i}", exprs))
    if not pool:
        raise ConfigError("no candidate given (use --candidate EXPR)")
    ctx, timings, taught = s.ctx, {}, None
    if teacher is not None:
        s.parts.append(teacher)
        taught = teach(s.registry, ctx, teacher)
        ctx, timings = with_teacher(ctx, taught), {"teacher": taught.seconds}
    refit = refine_pool(pool, s.refiner, ctx)
    selection = run_gates(pool, s.gates, ctx)
    timings.update(refine=refit.seconds, select=selection.seconds)
    components = {"teacher": taught.info.plugin} if taught else {}
    stages = Stages(pool, selection, taught, None, None, timings, components)
    return finish("refine", s, stages), taught.model if taught else None


def _python_default(registry: Registry, spec: RunSpec) -> Execution:
    """Called from Python without ``execution=``: units run in process unless the config's
    ``[execution]`` names an executor. Worker processes would import the calling script again
    (an unguarded script would run twice) and cannot see classes defined in it or in a
    notebook; ask for ``Execution("processes")`` explicitly, under ``if __name__ == "__main__":``.
    The command line passes its own execution settings (default: the local cores)."""
    if spec.execution.plugin is None:
        return Execution(executor=registry.in_process_executor())
    return Execution()


