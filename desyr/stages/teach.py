"""Stage A, first half: obtain the teacher and its samples on X_S."""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from desyr.errors import ConfigError
from desyr.extension.guard import contained, overran, warn_unsafe_info
from desyr.extension.registry import Registry
from desyr.extension.roles import Teacher, TeacherModel
from desyr.model.context import RunContext, TeacherInfo
from desyr.model.outcomes import StoppedCall, TeacherOutcome
from desyr.model.search import jsonable
from desyr.runtime.store import digest
from desyr.stages.run_components import component
from desyr.stages.stops import NoTime, Stopped, late_by, no_time, note_stop, stop_time, stopped_at
from desyr.stages.watch import context_parts, unchanged

if TYPE_CHECKING:  # pragma: no cover
    from desyr.config.spec import RunSpec


def make_teacher(registry: Registry, spec: RunSpec) -> Teacher:
    """The configured teacher (the default teacher when the config names none), options checked."""
    teacher = component(registry, spec, "teacher", "teacher")
    assert isinstance(teacher, Teacher)
    return teacher


def teach(registry: Registry, ctx: RunContext, teacher: Teacher) -> TeacherOutcome:
    """Prepare the teacher (:func:`make_teacher`); its values on the search points (the caller derives
    the context that carries them to the later stages). Under a deadline, a teacher still working at its
    stop time is stopped, named in one line, and :class:`~desyr.stages.stops.Stopped` raised."""
    start = time.perf_counter()
    share = None if ctx.deadline is None else ctx.seconds_left()
    if share is not None and share <= 0:
        no_time(ctx.progress, "teacher", teacher.name, "prepare() and predict()", _WITHOUT_VALUES)
        raise NoTime()
    ctx.progress.message(f"teacher: {teacher.name}")
    at = None if share is None else stop_time(ctx.deadline, share, ctx.wall)
    try:
        with stopped_at(at), contained("teacher", teacher.name), \
                unchanged("teacher", teacher.name, context_parts(ctx)):
            model = checked_model(teacher.prepare(ctx.problem, ctx), teacher.name)
            raw = model.predict(ctx.points.search)
    except Stopped:
        stop = StoppedCall("teacher", teacher.name, time.perf_counter() - start, share or 0.0, _WITHOUT_VALUES,
                           "prepare() and predict()", late_by(at))
        note_stop(ctx.progress, stop, teacher)
        raise Stopped(stop) from None
    values = checked_teacher_values(raw, len(ctx.points.search), ctx.problem.fields, teacher.name)
    seconds = time.perf_counter() - start
    if share is not None:
        overran(teacher, "teacher", teacher.name, seconds, share, "prepare() and predict()")
    with contained("teacher", teacher.name), unchanged("teacher", teacher.name, context_parts(ctx)):
        facts = model.info()
        info = TeacherInfo(teacher.name, jsonable(facts))
    warn_unsafe_info(teacher, "teacher", "info()", facts)
    return TeacherOutcome(info, values, seconds, model)


def smaller_teacher(registry: Registry, spec: RunSpec, teacher: Teacher) -> Teacher | None:
    """The configured teacher at its smaller budget (``Teacher.smaller_budget``), or None where it has none."""
    from desyr.config.spec import frozen, thawed

    options = teacher.smaller_budget()
    if not options:
        return None
    smaller = frozen({**thawed(spec.teacher.options), **options})
    return make_teacher(registry, replace(spec, teacher=replace(spec.teacher, options=smaller)))


def teacher_key(ctx: RunContext, teacher: Teacher) -> str:
    """What makes two attempts' teachers the same: the plugin, its settings, the seed and the search points."""
    return digest(teacher.name, sorted(teacher.settings.items()), ctx.seed,
                  np.ascontiguousarray(ctx.points.search).tobytes())


def reused_teacher(ctx: RunContext, teacher: Teacher, earlier: TeacherOutcome | None) -> TeacherOutcome | None:
    """An earlier attempt's teacher with the same settings (escalation's search-side steps change only the
    searches), as this attempt's: it costs no time, and its facts say ``reused``; None when there is none."""
    if earlier is None:
        return None
    ctx.progress.message(f"teacher: {teacher.name}, with an earlier attempt's settings: that teacher is reused")
    return replace(earlier, seconds=0.0, info=replace(earlier.info, facts={**earlier.info.facts, "reused": True}))

_WITHOUT_VALUES = "without its values no search runs: the attempt selects no candidate"


def with_teacher(ctx: RunContext, taught: TeacherOutcome) -> RunContext:
    """The context the stages after the teacher read: the same run, with the teacher's values and its
    estimates of the unknown coefficients (``info()["unknowns"]``, where it trained them)."""
    return replace(ctx, teacher_values=taught.values, unknown_estimates=unknown_estimates(ctx, taught.info.facts))


def unknown_estimates(ctx: RunContext, info: Any) -> dict[str, float]:
    """The teacher's finite estimates of the problem's unknowns, each held inside its bounds."""
    given = info.get("unknowns") if isinstance(info, dict) else None
    if not isinstance(given, dict):
        return {}
    out = {}
    for unknown in ctx.problem.unknowns:
        value = given.get(unknown.name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value):
            out[unknown.name] = float(np.clip(value, unknown.lo, unknown.hi))
    return out


def checked_model(model: object, name: str) -> TeacherModel:
    """The teacher's answer held to its type (shared by ``desyr run`` and :mod:`desyr.testing`)."""
    if not isinstance(model, TeacherModel):
        raise ConfigError(f"teacher '{name}' prepare() returned {type(model).__name__}, not a TeacherModel; "
                          "return a desyr.plugin.TeacherModel whose predict(X) gives the values")
    return model


def checked_teacher_values(raw: object, n_points: int, fields: Sequence[str], name: str) -> np.ndarray:
    """Teacher values held to the contract: a finite float array (n_points, n_fields), read-only.
    Shared by ``desyr run`` and :mod:`desyr.testing` so the two cannot drift."""
    expected = (n_points, len(fields))
    try:
        values = np.array(raw, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"teacher '{name}' predict() returned {type(raw).__name__}, not numbers ({exc}); "
                          f"return a float array of shape {expected}") from None
    if values.shape != expected:
        hint = " (add the field axis: values[:, None])" if values.shape == (n_points,) else ""
        raise ConfigError(f"teacher '{name}' predict() returned shape {values.shape}; expected {expected} "
                          f"(points, fields {', '.join(fields)}){hint}")
    bad = int(np.size(values) - np.count_nonzero(np.isfinite(values)))
    if bad:
        raise ConfigError(f"teacher '{name}' predict() returned {bad} non-finite value(s) (NaN or inf) of "
                          f"{values.size}; the shape {values.shape} is right, every value must be finite")
    values.flags.writeable = False
    return values


def teacher_predict(model: TeacherModel, name: str, X: np.ndarray) -> np.ndarray:
    """Teacher values at ``X`` (for the post hoc teacher error), with the teacher's errors contained."""
    with contained("teacher", name):
        return np.array(model.predict(X.copy()), dtype=float).reshape(len(X), -1)
