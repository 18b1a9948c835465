"""The Python API: ``run`` (the whole pipeline), ``refine`` (Stages B and C on given candidates),
``load_problem`` and ``load_result``.

Both entry points share one start (:func:`_start`: check the output folder and the
settings, choose the components, snapshot the problem) and one end
(:func:`_finish`: verify on fresh points, assemble the typed result, write it).
Read top to bottom, ``run`` is the method in stage order.
"""
from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from desyr._version import __version__
from desyr.config.components import component, gate_sequence, searcher_names, searchers
from desyr.config.loading import load_problem
from desyr.config.spec import RunSpec, config_hash, read_spec, section_settings, thawed
from desyr.coupled.groups import coupled_groups, refit_winner, screened_info, screening_context, screening_refiner
from desyr.errors import ConfigError, PluginError
from desyr.extension.registry import Registry, load_registry
from desyr.extension.roles import Gate, Refiner, Searcher, Teacher, TeacherModel
from desyr.model.candidates import Candidate
from desyr.model.context import CoupledInfo, RunContext, SearchInfo
from desyr.model.outcomes import Outcome, Selection, TeacherOutcome
from desyr.model.points import make_point_sets, make_verification_points
from desyr.model.problem import Problem
from desyr.model.result import (
    SCHEMA,
    ExecutionRecord,
    ProblemInfo,
    Provenance,
    Residuals,
    Result,
    SelectionRecord,
    candidate_record,
    load_result,
)
from desyr.runtime.atomic import out_lock, write_text_atomic
from desyr.runtime.execution import Units, make_executor
from desyr.runtime.progress import Progress
from desyr.runtime.store import RunStore, digest, store_key
from desyr.stages.closed_form import identify
from desyr.stages.pool import pool_searches, pooled_candidates
from desyr.stages.refit import check_finite, parse_candidate, refine_pool, screen_finite
from desyr.stages.search import check_operators, search_fields
from desyr.stages.select import run_gates
from desyr.stages.teach import make_teacher, teach, teacher_predict, with_teacher
from desyr.stages.verify import verify_selection
from desyr.symbolic.expressions import expression_text
from desyr.verify.attach import attach_verdict

__all__ = ["run", "refine", "load_problem", "load_result", "Result", "Execution"]


@dataclass(frozen=True)
class _Started:
    """What the shared start hands to a pipeline."""

    ctx: RunContext
    pristine: Problem          # the problem as read; no component ever receives this object
    registry: Registry
    refiner: Refiner
    gates: list[Gate]
    clock: float
    units: Units
    seed: int
    spec: RunSpec              # the run's typed settings


@dataclass(frozen=True)
class _Stages:
    """What the stages of one pipeline returned, for the result."""

    pool: list[Candidate]
    selection: Selection
    teacher: TeacherOutcome | None
    search: SearchInfo | None
    coupled: CoupledInfo | None
    timings: dict[str, float]
    components: dict[str, str]


# ------------------------------------------------------------------ public API
@dataclass(frozen=True)
class Execution:
    """Where a run's units run (``[execution]`` of the config unless given) and whether to resume."""

    executor: str | None = None
    workers: int | None = None
    options: Mapping[str, Any] | None = None      # executor options, e.g. {"scheduler": "tcp://host:8786"}
    resume: bool = False                           # reuse the finished units in OUT/store


def run(problem: Problem, *, seed: int | None = None, registry: Registry | None = None,
        out: str | Path | None = None, progress: Progress | None = None, retrain: bool = False,
        cache_dir: str | Path = ".desyr-cache", execution: Execution | None = None, plots: bool = True,
        budget: float | None = None) -> Result:
    """The whole pipeline on one problem; returns (and optionally writes) the typed result.

    With a ``budget`` (seconds; or ``[escalation] budget``) a result that is not verified exact
    is tried again under the escalation policy (:mod:`desyr.escalation`) until one is."""
    from desyr.escalation import escalate, policy

    registry = registry or load_registry()
    spec = read_spec(problem, registry)          # the config, checked and read once
    rule = policy(spec, budget)
    # Components are chosen (and their options checked) before the output folder is touched.
    found, teacher = _run_components(registry, spec)
    execution = execution or _python_default(registry, problem)
    with out_lock(out):
        if rule is None:
            s = _start(problem, seed, registry, out, progress, cache_dir, retrain, execution, "run")
            result, model = _attempt(s, problem, found, teacher)
            return _write(s, result, model, out, plots)

        if execution.resume:
            (progress or Progress()).message("resume: not used with an escalation budget (each attempt is a "
                                             "different config, so none is stored); the run starts afresh")

        def attempt(variant: RunSpec) -> tuple[Result, tuple[_Started, TeacherModel | None]]:
            s = _start(problem, seed, registry, None, progress, cache_dir, retrain, execution, "run", variant)
            result, model = _attempt(s, problem, *_run_components(registry, variant))
            return result, (s, model)

        result, (s, model), attempts, stop = escalate(spec, rule, registry, progress or Progress(), attempt)
        result.attempts, result.escalation_stop = attempts, stop
        result.timings["escalation_total"] = round(sum(a.seconds for a in attempts), 4)   # every attempt
        return _write(s, result, model, out, plots)


def _run_components(registry: Registry, spec: RunSpec) -> tuple[list[Searcher], Teacher]:
    found = [s for s in searchers(registry, spec) if isinstance(s, Searcher)]
    check_operators(found, spec.search.binary, spec.search.unary, spec.problem)
    return found, make_teacher(registry, spec)


def _attempt(s: _Started, problem: Problem, found: list[Searcher], teacher: Teacher
             ) -> tuple[Result, TeacherModel | None]:
    with s.units.executor:
        return _run(s, problem, found, teacher)


def _run(s: _Started, problem: Problem, found: list[Searcher], teacher: Teacher) -> tuple[Result, TeacherModel]:
    """The method in stage order, for one field and for several."""
    ctx = s.ctx
    # Stage A: the teacher, then K seeded searches per field, retention and pooling
    taught = teach(s.registry, ctx, teacher)
    ctx = with_teacher(ctx, taught)
    _store_teacher(s, taught)
    searched = search_fields(found, s.spec.search, ctx)
    pooled, search = pool_searches(searched, problem.fields, [f.name for f in found])
    ctx.progress.message(f"stage A: {search.pool_size} pooled candidate(s) from "
                         f"{len(search.runs)} search(es) in {searched.seconds:.1f} s")
    label = "+".join(f.name for f in found)
    timings = {"teacher": taught.seconds, "search": searched.seconds}
    coupled = None
    if len(problem.fields) == 1:
        pool = pooled_candidates(next(iter(pooled.values())), problem.fields[0])
        # Stage B: physics-only refit of every finite candidate, then its checked cleaning
        refit = refine_pool(screen_finite(pool, ctx), s.refiner, ctx)
        # Stage C: the gates
        selection = run_gates(pool, s.gates, ctx)
        timings.update(refine=refit.seconds, select=selection.seconds)
    else:
        # Stage A, end, coupled: shared-factor augmentation, shortlists, the best groups
        screening = screening_context(ctx, s.spec.coupled.screening_points)
        groups = coupled_groups(pooled, label, s.spec.coupled, ctx, screening)
        # Stage B on the screening subset (the refiner's cheap variant), then Stage C picks one group
        screened = refine_pool(groups.pool, screening_refiner(s.refiner, s.spec.coupled), screening, scope="screen")
        selection = run_gates(groups.pool, s.gates, screening)
        # Stage B again, for the chosen group alone on the full set
        winner = refit_winner(selection, s.refiner, ctx)
        pool, coupled = groups.pool, screened_info(groups, screened, selection)
        timings.update(refine=screened.seconds + winner.seconds,
                       screen=groups.seconds + screened.seconds + selection.seconds)
    stages = _Stages(pool, selection, taught, search, coupled, timings,
                     {"teacher": taught.info.plugin, "searcher": label})
    return _finish("run", s, stages), taught.model


def refine(problem: Problem, candidates: Iterable[str | Mapping[str, str]], *, seed: int | None = None,
           registry: Registry | None = None, use_teacher: bool = False, out: str | Path | None = None,
           progress: Progress | None = None, retrain: bool = False, cache_dir: str | Path = ".desyr-cache",
           execution: Execution | None = None, plots: bool = True) -> Result:
    """Stages B and C on user-given candidates; optionally with the configured teacher for eps_T."""
    registry = registry or load_registry()
    teacher = make_teacher(registry, problem) if use_teacher else None
    with out_lock(out):
        s = _start(problem, seed, registry, out, progress, cache_dir, retrain, execution or _python_default(registry, problem),
                   "refine")
        with s.units.executor:
            result, model = _refine(s, problem, list(candidates), teacher)
        return _write(s, result, model, out, plots)


def _refine(s: _Started, problem: Problem, candidates: list[str | Mapping[str, str]], teacher: Teacher | None
            ) -> tuple[Result, TeacherModel | None]:
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
        taught = teach(s.registry, ctx, teacher)
        ctx, timings = with_teacher(ctx, taught), {"teacher": taught.seconds}
    refit = refine_pool(pool, s.refiner, ctx)
    selection = run_gates(pool, s.gates, ctx)
    timings.update(refine=refit.seconds, select=selection.seconds)
    components = {"teacher": taught.info.plugin} if taught else {}
    stages = _Stages(pool, selection, taught, None, None, timings, components)
    return _finish("refine", s, stages), taught.model if taught else None


def _python_default(registry: Registry, problem: Problem) -> Execution:
    """Called from Python without ``execution=``: units run in process unless the config's
    ``[execution]`` names an executor. Worker processes would import the calling script again
    (an unguarded script would run twice) and cannot see classes defined in it or in a
    notebook; ask for ``Execution("processes")`` explicitly, under ``if __name__ == "__main__":``.
    The command line passes its own execution settings (default: the local cores)."""
    if section_settings(problem, "execution").plugin is None:
        return Execution(executor=registry.in_process_executor())
    return Execution()


# ------------------------------------------------------------------ start and end
def _start(problem: Problem, seed: int | None, registry: Registry | None, out: str | Path | None,
           progress: Progress | None, cache_dir: str | Path, retrain: bool, execution: Execution,
           command: str, spec: RunSpec | None = None) -> _Started:
    """Everything that can fail on bad input fails here, before any work (``spec``: settings derived
    from ``problem``'s, by escalation; default: ``problem``'s own)."""
    clock = time.perf_counter()
    registry = registry or load_registry()
    spec = spec or read_spec(problem, registry)
    seed = problem.points["seed"] if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ConfigError(f"seed must be an integer in [0, 2**32), got {seed!r}")
    refiner = component(registry, spec, "refiner", "refine")
    assert isinstance(refiner, Refiner)
    gates = [g for g in gate_sequence(registry, spec) if isinstance(g, Gate)]
    executor = make_executor(registry, problem, execution.executor, execution.workers, dict(execution.options or {}),
                             settings=spec.execution)
    pristine = copy.deepcopy(problem)
    store = None
    if out is not None:
        config = config_hash(spec)
        key = store_key(config, int(seed), _unit_components(registry, spec, command, refiner))
        store = RunStore(out, key, {"config_sha256": config, "seed": int(seed), "desyr": __version__},
                         execution.resume)
    progress = progress or Progress()
    units = Units(executor, store, progress=progress)
    # Components get a copy without the reference: it is for post hoc errors only.
    seen = copy.deepcopy(problem)
    seen.reference = None
    ctx = RunContext(seen, make_point_sets(problem, int(seed)), seed=int(seed),
                     method=spec.method, cache_dir=Path(cache_dir), retrain=retrain,
                     progress=progress, units=units)
    if store is not None and store.note:
        ctx.progress.message(f"resume: {store.note}")
    return _Started(ctx, pristine, registry, refiner, gates, clock, units, int(seed), spec)


def _unit_components(registry: Registry, spec: RunSpec, command: str, refiner: Refiner) -> dict[str, Any]:
    """The component choices a stored unit depends on (resolved defaults included)."""
    chosen: dict[str, Any] = {"command": command, "refiner": [refiner.name, refiner.settings]}
    for role, sec in (("teacher", spec.teacher), ("searcher", spec.search)):
        try:
            name = "+".join(searcher_names(registry, spec)) if role == "searcher" else \
                sec.plugin or registry.default(role)
        except ConfigError:
            name = None                # refine without a searcher installed: no search units anyway
        chosen[role] = [name, thawed(sec.options)]
    return chosen


def _store_teacher(s: _Started, taught: TeacherOutcome) -> None:
    """Which teacher the stored searches saw (its facts include the teacher cache key)."""
    store = s.units.store
    if store is None:
        return
    store.put_teacher({"plugin": taught.info.plugin, "facts": taught.info.facts,
                       "values_sha256": digest(np.ascontiguousarray(taught.values).tobytes())})


def _finish(command: str, s: _Started, stages: _Stages) -> Result:
    selection = stages.selection
    _read_back(selection, s.pristine)
    points = make_verification_points(s.pristine, s.seed)
    teacher_values = None
    if stages.teacher is not None and s.pristine.reference is not None:
        teacher_values = teacher_predict(stages.teacher.model, stages.teacher.info.plugin, points.interior)
    outcome = verify_selection(selection, s.pristine, points, teacher_values)
    timings = {**stages.timings, "verify": outcome.seconds}
    chosen = selection.selected
    exact = None
    if chosen is not None and chosen.expressions:
        start = time.perf_counter()
        exact = identify(s.pristine, chosen.expressions, points, s.seed)
        timings["identify"] = time.perf_counter() - start
    timings["total"] = time.perf_counter() - s.clock
    components = {**stages.components, "refiner": s.refiner.name, "gates": ",".join(g.name for g in s.gates)}
    result = build_result(command, s, stages, outcome, components, timings)
    result.exact_form = exact
    # The verdict is the separate verifier's, from the config text and the printed expressions alone.
    start = time.perf_counter()
    attach_verdict(result, s.pristine)
    result.timings["verifier"] = round(time.perf_counter() - start, 4)
    result.timings["total"] = round(time.perf_counter() - s.clock, 4)
    return result


def _write(s: _Started, result: Result, model: TeacherModel | None, out: str | Path | None, plots: bool) -> Result:
    if out is not None:
        figures = _figures(s, result, model, out) if plots else None
        write_result(result, out, figures)
    return result


def _read_back(selection: Selection, problem: Problem) -> None:
    """Verify exactly what the result will print: the selected expressions are replaced by their
    printed text read back with the bounded parser (which knows no Piecewise, no undefined
    function, nothing a component could use to fit the verification points alone)."""
    chosen = selection.selected
    if chosen is None or not chosen.expressions:
        return
    try:
        strangers = [f for f, e in chosen.expressions.items() if not isinstance(e, sp.Expr)]
        if strangers:
            raise TypeError(f"{', '.join(strangers)} is not a sympy expression")
        chosen.expressions = {f: problem.parse(str(expression_text(e))) for f, e in chosen.expressions.items()}
        if set(chosen.expressions) != set(problem.fields):
            raise ValueError(f"fields {sorted(chosen.expressions)}")
    except Exception as exc:  # a component left something that is not an expression of this problem
        raise PluginError(f"the selected candidate {chosen.id} cannot be read back as an expression of the "
                          f"problem ({type(exc).__name__}: {exc}); a refiner or gate changed it") from None


def _figures(s: _Started, result: Result, model: TeacherModel | None, out: str | Path) -> list[str]:
    """Draw the run's figures into ``out``; the report section that embeds them."""
    from desyr.report.figures import NO_MATPLOTLIB, figure_section, have_matplotlib, write_run_figures

    if not have_matplotlib():
        return figure_section([], NO_MATPLOTLIB)
    predict = None
    if model is not None and result.teacher is not None:
        plugin = result.teacher.plugin

        def predict(X: np.ndarray) -> np.ndarray:
            return teacher_predict(model, plugin, X)
    Path(out).mkdir(parents=True, exist_ok=True)
    return figure_section(write_run_figures(result, s.pristine, out, teacher_predict=predict))


def build_result(command: str, s: _Started, stages: _Stages, outcome: Outcome, components: dict[str, str],
                 timings: dict[str, float]) -> Result:
    problem, pool = s.pristine, stages.pool
    chosen = outcome.selection.selected
    v = outcome.verification
    residuals = Residuals(v.R_eq, v.R_con, list(v.R_eq_per_equation), list(v.R_con_per_constraint)) if v else None
    tol = s.spec.method.exact_tolerance
    exact = bool(v and all(r is not None and r <= tol for r in (v.R_eq, v.R_con if v.R_con is not None else 0.0)))
    has_exprs = chosen is not None and bool(chosen.expressions)
    return Result(
        command=command,
        problem=ProblemInfo(problem.name, problem.title, problem.source, list(problem.fields),
                            list(problem.variable_names)),
        seed=s.seed,
        expression={f: str(expression_text(e)) for f, e in chosen.expressions.items()}
        if has_exprs and chosen and chosen.expressions else None,
        pre_refit_expression={f: str(expression_text(e)) for f, e in chosen.search_expressions.items()}
        if has_exprs and chosen else None,
        selected_id=chosen.id if has_exprs and chosen else None,
        converged=bool(chosen and chosen.converged),
        status=chosen.refit.status if chosen and chosen.refit else "no_candidate",
        complexity=chosen.complexity if has_exprs and chosen else None,
        exact=exact, exact_tolerance=tol, residuals=residuals, errors=outcome.errors,
        selection=SelectionRecord(outcome.selection.records, outcome.selection.fallback),
        candidates=[candidate_record(c) for c in pool],
        teacher=stages.teacher.info if stages.teacher else None, search=stages.search, coupled=stages.coupled,
        timings={k: round(t, 4) for k, t in timings.items()},
        provenance=Provenance(__version__, components, config_hash(s.spec), ExecutionRecord(**s.units.record())),
        schema=SCHEMA)


def write_result(result: Result, out: str | Path, figures: list[str] | None = None) -> Path:
    """``report.md`` and then ``result.json`` in ``out``, each atomically: a ``result.json``
    that exists is complete, and it is written last, so its presence means the run finished."""
    from desyr.report.markdown import render_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "report.md", render_report(result, figures))
    write_text_atomic(out / "result.json", result.to_json())
    return out
