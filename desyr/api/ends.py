"""The shared start and end of ``run`` and ``refine``: check and choose everything before any work
(:func:`start`), then verify on fresh points, identify the exact form, ask the separate verifier and
assemble the typed result (:func:`finish`); :func:`write_result` writes it atomically."""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from desyr._version import __version__
from desyr.api.shares import LEAST_VERDICT, verdict_seconds
from desyr.config.spec import RunSpec
from desyr.errors import ConfigError, PluginError
from desyr.extension.registry import Registry
from desyr.extension.role_names import ROLES
from desyr.extension.roles import Component, Gate, Refiner, TeacherModel
from desyr.model.candidate_record import candidate_record
from desyr.model.candidates import Candidate
from desyr.model.context import CoupledInfo, RunContext, SearchInfo
from desyr.model.frozen import thawed
from desyr.model.outcomes import ComponentOrigin, Outcome, Selection, TeacherOutcome
from desyr.model.points import VerificationPoints, make_point_sets, make_verification_points
from desyr.model.problem import Problem
from desyr.model.residuals import verifier_on
from desyr.model.result import (
    SCHEMA,
    ExecutionRecord,
    ProblemInfo,
    Provenance,
    Residuals,
    Result,
    RewriteRecord,
    SelectionRecord,
)
from desyr.model.result import load_result as read_result
from desyr.report.figures import DrawnFigures
from desyr.report.notebook import NOTEBOOK_VIEWS
from desyr.runtime.atomic import write_text_atomic
from desyr.runtime.execution import Memo, Units, make_executor
from desyr.runtime.progress import Progress
from desyr.runtime.store import RunStore, config_hash, digest, store_key
from desyr.stages.closed_form import choose_gauge, identify
from desyr.stages.run_components import component, gate_sequence, searcher_names
from desyr.stages.run_residuals import series_truncation, verify_selection
from desyr.stages.teach import teacher_predict
from desyr.symbolic.expressions import expression_text
from desyr.symbolic.physics import Verification
from desyr.verify.attach import attach_verdict

#: verdicts that end a run: at the exact attempt, after a search round or a seed wave
SOLVED = ("proved", "verified")


@dataclass(frozen=True)
class Started:
    """What the shared start hands to a pipeline."""

    ctx: RunContext
    pristine: Problem          # the problem as read (frozen); components get it without its reference
    registry: Registry
    refiner: Refiner
    gates: list[Gate]
    clock: float
    units: Units
    seed: int
    spec: RunSpec              # the run's typed settings
    #: the components made for the run (the pipeline adds its teacher and searchers), for their origins
    parts: list[Component] = field(default_factory=list)


@dataclass(frozen=True)
class Stages:
    """What the stages of one pipeline returned, for the result."""

    pool: list[Candidate]
    selection: Selection
    teacher: TeacherOutcome | None
    search: SearchInfo | None
    coupled: CoupledInfo | None
    timings: dict[str, float]
    components: dict[str, str]


@dataclass(frozen=True)
class Execution:
    """Where a run's units run (``[execution]`` of the config unless given) and whether to resume."""

    executor: str | None = None
    workers: int | None = None
    options: Mapping[str, Any] | None = None      # executor options, e.g. {"scheduler": "tcp://host:8786"}
    resume: bool = False                           # reuse the finished units in OUT/store


@dataclass(frozen=True)
class RunRequest:
    """What one attempt of ``run`` or ``refine`` starts from: the checked settings (their ``problem``
    frozen, read once by ``read_spec``) and where and how the attempt runs."""

    spec: RunSpec
    registry: Registry
    seed: int | None = None                 # None: the config's [points] seed
    out: str | Path | None = None           # the run's folder (its unit store); None: none
    progress: Progress | None = None
    cache_dir: str | Path = ".desyr-cache"
    retrain: bool = False
    execution: Execution = Execution()
    command: str = "run"
    wall: float | None = None               # time.time() by which the run returns (--budget); None: no wall
    memo: Memo | None = None                # units computed earlier in this run (escalation's attempts share it)


def start(request: RunRequest) -> Started:
    """Everything that can fail on bad input fails here, before any work."""
    clock = time.perf_counter()
    spec, registry, execution = request.spec, request.registry, request.execution
    problem = spec.problem
    seed = spec.points.seed if request.seed is None else request.seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ConfigError(f"seed must be an integer in [0, 2**32), got {seed!r}")
    refiner = component(registry, spec, "refiner", "refine")
    assert isinstance(refiner, Refiner)
    gates = [g for g in gate_sequence(registry, spec) if isinstance(g, Gate)]
    executor = make_executor(registry, spec, execution.executor, execution.workers, dict(execution.options or {}))
    store = None
    if request.out is not None:
        config = config_hash(spec)
        key = store_key(config, int(seed), _unit_components(registry, spec, request.command, refiner))
        store = RunStore(request.out, key, {"config_sha256": config, "seed": int(seed), "desyr": __version__},
                         execution.resume)
    progress = request.progress or Progress()
    units = Units(executor, store, progress=progress, memo=request.memo if request.memo is not None else Memo())
    # Components get the problem without the reference: it is for post hoc errors only. The problem
    # is frozen, so the one they get and the one the result is verified against cannot drift apart.
    seen = replace(problem, reference=None)
    ctx = RunContext(seen, make_point_sets(problem, int(seed)), seed=int(seed),
                     method=spec.method, cache_dir=Path(request.cache_dir), retrain=request.retrain,
                     progress=progress, units=units, wall=request.wall)
    if store is not None and store.note:
        ctx.progress.message(f"resume: {store.note}")
    return Started(ctx, problem, registry, refiner, gates, clock, units, int(seed), spec,
                    [refiner, *gates, executor])


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


def store_teacher(s: Started, taught: TeacherOutcome) -> None:
    """Which teacher the stored searches saw (its facts include the teacher cache key)."""
    store = s.units.store
    if store is None:
        return
    store.put_teacher({"plugin": taught.info.plugin, "facts": taught.info.facts,
                       "values_sha256": digest(np.ascontiguousarray(taught.values).tobytes())})


def finish(command: str, s: Started, stages: Stages, meanwhile: Callable[[Result], None] | None = None) -> Result:
    """The shared end: verify on fresh points, identify the exact form, assemble the typed result and ask
    the separate verifier (``meanwhile`` runs while it works: the run draws its figures then)."""
    selection = stages.selection
    _read_back(selection, s.pristine)
    points = make_verification_points(s.pristine, s.seed)
    verified = verifier_on(s.pristine, points)      # the checks below measure the same expressions
    gauges = _gauged(selection, s.pristine, points, verified)
    teacher_values = None
    if stages.teacher is not None and s.pristine.reference is not None:
        teacher_values = teacher_predict(stages.teacher.model, stages.teacher.info.plugin, points.interior)
    outcome = verify_selection(selection, s.pristine, points, teacher_values, verified)
    timings = {**stages.timings, "verify": outcome.seconds}
    chosen = selection.selected
    exact = None
    if chosen is not None and chosen.expressions:
        begun = time.perf_counter()
        exact = identify(s.pristine, chosen.expressions, points, s.seed, verified)
        exact.rewrites = gauges + exact.rewrites
        timings["identify"] = time.perf_counter() - begun
    timings["total"] = time.perf_counter() - s.clock
    components = {**stages.components, "refiner": s.refiner.name, "gates": ",".join(g.name for g in s.gates)}
    result = build_result(command, s, stages, outcome, components, timings)
    result.exact_form = exact
    if chosen is not None and chosen.expressions:
        result.series = series_truncation(s.pristine, chosen.expressions, points)
    # The verdict is the separate verifier's, from the config text and the printed expressions alone.
    begun = time.perf_counter()
    attach_verdict(result, s.pristine, None if meanwhile is None else lambda: meanwhile(result),
                   verdict_seconds(s.ctx.wall))
    result.timings["verifier"] = round(time.perf_counter() - begun, 4)
    result.timings["total"] = round(time.perf_counter() - s.clock, 4)
    return result


def write_run(s: Started, result: Result, model: TeacherModel | None, out: str | Path | None, plots: bool,
              drawn: DrawnFigures | None = None) -> Result:
    """``result`` into ``out`` (``drawn``: its figures, when drawn while the verifier worked)."""
    if out is not None:
        figures = drawn if drawn is not None else (draw_figures(s, result, model, out) if plots else None)
        write_result(result, out, figures)
    return result


def _gauged(selection: Selection, problem: Problem, points: VerificationPoints,
            verified: Callable[[Mapping[str, sp.Expr]], Verification]) -> list[RewriteRecord]:
    """The selected candidate's fields that the problem leaves free up to a function, as the simplest
    member the data allow (:func:`desyr.stages.closed_form.choose_gauge`), said in its cleaning note."""
    chosen = selection.selected
    if chosen is None or not chosen.expressions:
        return []
    chosen.expressions, records = choose_gauge(problem, chosen.expressions, points, verified)
    if records:
        note = "gauge chosen (" + "; ".join(f"{r.field}: {r.reason}" for r in records) + ")"
        chosen.cleaning_note = f"{chosen.cleaning_note}; {note}" if chosen.cleaning_note else note
    return records


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
        if set(chosen.expressions) != set(problem.solution_names):
            raise ValueError(f"fields {sorted(chosen.expressions)}")
    except Exception as exc:  # a component left something that is not an expression of this problem
        raise PluginError(f"the selected candidate {chosen.id} cannot be read back as an expression of the "
                          f"problem ({type(exc).__name__}: {exc}); a refiner or gate changed it") from None


def draw_figures(s: Started, result: Result, model: TeacherModel | None, out: str | Path) -> DrawnFigures:
    """Draw the run's figures into ``out``."""
    from desyr.report.drawer import draw
    from desyr.report.figures import NO_MATPLOTLIB, have_matplotlib, plan_run_figures

    if not have_matplotlib():
        return DrawnFigures((), NO_MATPLOTLIB)
    seconds = verdict_seconds(s.ctx.wall)       # under a budget, what its promise leaves after the verdict
    if seconds is not None and seconds <= LEAST_VERDICT:
        return DrawnFigures((), "the run's budget left no time for figures")
    predict = None
    if model is not None and result.teacher is not None:
        plugin = result.teacher.plugin

        def predict(X: np.ndarray) -> np.ndarray:
            return teacher_predict(model, plugin, X)
    Path(out).mkdir(parents=True, exist_ok=True)
    drawn = draw(plan_run_figures(result, s.pristine, out, teacher_predict=predict), seconds)
    return DrawnFigures(tuple(drawn), None if drawn or seconds is None else "the run's budget left no time for figures")


def build_result(command: str, s: Started, stages: Stages, outcome: Outcome, components: dict[str, str],
                 timings: dict[str, float]) -> Result:
    problem, pool = s.pristine, stages.pool
    chosen = outcome.selection.selected
    v = outcome.verification
    residuals = Residuals(v.R_eq, v.R_con, list(v.R_eq_per_equation), list(v.R_con_per_constraint),
                          v.relative) if v else None
    tol = s.spec.method.exact_tolerance
    exact = bool(residuals and residuals.worst() <= tol)      # relative to the problem's scale, as the verifier
    has_exprs = chosen is not None and bool(chosen.expressions)
    return Result(
        command=command,
        problem=ProblemInfo(problem.name, problem.title, problem.source, list(problem.fields),
                            list(problem.variable_names), problem.unknown_names, list(problem.parameters)),
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
        candidates=[candidate_record(c, outcome.selection.removed.get(c.id)) for c in pool],
        teacher=stages.teacher.info if stages.teacher else None, search=stages.search, coupled=stages.coupled,
        timings={k: round(t, 4) for k, t in timings.items()},
        provenance=Provenance(__version__, components, config_hash(s.spec), ExecutionRecord(**s.units.record()),
                              component_origins(s.registry, s.parts, components)),
        schema=SCHEMA, views=NOTEBOOK_VIEWS)


def component_origins(registry: Registry, parts: list[Component], components: Mapping[str, str]
                      ) -> list[ComponentOrigin]:
    """Where each component the result names came from (``desyr plugins``' origin, its distribution and
    version), and the executor's; the core's own (the in-process executor) is left out."""
    named = {role: set(re.split(r"[+,]", names)) for role, names in components.items()}
    out: list[ComponentOrigin] = []
    for part in parts:
        info = registry.origin(part)
        listed = part.role == "executor" or part.name in named.get("gates" if part.role == "gate" else part.role, ())
        if info is None or not listed or any((o.role, o.name) == (part.role, part.name) for o in out):
            continue
        dist, version = info.distribution or (None, None)
        out.append(ComponentOrigin(part.role, part.name, info.origin, dist, version))
    return sorted(out, key=lambda o: ROLES.index(o.role) if o.role in ROLES else len(ROLES))


def load_result(path: str | Path) -> Result:
    """Read ``result.json`` (or a folder holding one) back into a :class:`~desyr.model.result.Result` that
    shows itself in a notebook with the report's views, as the results of ``run`` and ``refine`` do."""
    return read_result(path, NOTEBOOK_VIEWS)


def write_result(result: Result, out: str | Path, figures: DrawnFigures | None = None) -> Path:
    """``report.md``, ``report.html`` and then ``result.json`` in ``out``, each atomically: a
    ``result.json`` that exists is complete, and it is written last, so its presence means the run
    finished. ``figures`` were drawn into ``out`` (None: the reports have no figure section)."""
    from desyr.report.html import render_html
    from desyr.report.markdown import render_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "report.md", render_report(result, figures.section() if figures else None))
    write_text_atomic(out / "report.html", render_html(result, figures, out))
    write_text_atomic(out / "result.json", result.to_json())
    return out
