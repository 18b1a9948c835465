"""Stage A, first half: obtain the teacher and its samples on X_S."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from desyr.config.components import component
from desyr.errors import ConfigError
from desyr.extension.registry import Registry
from desyr.extension.roles import Teacher, TeacherModel
from desyr.model.context import RunContext, TeacherInfo
from desyr.model.search import jsonable
from desyr.stages.guard import contained


def make_teacher(registry: Registry, problem: Any) -> Teacher:
    """The configured teacher (the default teacher when the config names none), options checked."""
    teacher = component(registry, problem, "teacher", "teacher")
    assert isinstance(teacher, Teacher)
    return teacher


def attach_teacher(registry: Registry, ctx: RunContext, teacher: Teacher | None = None) -> TeacherModel:
    """Prepare the teacher and store its values on the search points."""
    teacher = teacher or make_teacher(registry, ctx.problem)
    start = time.perf_counter()
    ctx.progress.message(f"teacher: {teacher.name}")
    with contained("teacher", teacher.name):
        model = teacher.prepare(ctx.problem, ctx)
        values = np.array(model.predict(ctx.points.search), dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    if values.shape != (len(ctx.points.search), len(ctx.problem.fields)) or not np.all(np.isfinite(values)):
        raise ConfigError(f"teacher '{teacher.name}' returned {values.shape} values with non-finite entries "
                          f"or the wrong shape; expected ({len(ctx.points.search)}, {len(ctx.problem.fields)})")
    values.flags.writeable = False
    ctx.teacher_values = values
    ctx.timings["teacher"] = time.perf_counter() - start
    with contained("teacher", teacher.name):
        ctx.teacher = TeacherInfo(teacher.name, jsonable(model.info()))
    return model


def teacher_predict(model: TeacherModel, name: str, X: np.ndarray) -> np.ndarray:
    """Teacher values at ``X`` (for the post hoc teacher error), with the teacher's errors contained."""
    with contained("teacher", name):
        return np.array(model.predict(X.copy()), dtype=float).reshape(len(X), -1)
