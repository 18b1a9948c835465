"""Stage A, first half: obtain the teacher and its samples on X_S."""
from __future__ import annotations

import time

import numpy as np

from desyr.context import RunContext
from desyr.errors import ConfigError
from desyr.interfaces import ComponentError, TeacherModel


def attach_teacher(registry, ctx: RunContext) -> TeacherModel:
    """Prepare the configured teacher and store its values on the search points."""
    from desyr.pipeline import component

    if "plugin" not in (ctx.problem.sections.get("teacher") or {}):
        raise ConfigError(f"{ctx.problem.source}: no [teacher] plugin configured")
    teacher = component(registry, ctx.problem, "teacher", "teacher", "deepxde")
    start = time.perf_counter()
    ctx.progress.message(f"teacher: {teacher.name}")
    try:
        model = teacher.prepare(ctx.problem, ctx)
    except ComponentError as exc:
        raise ConfigError(f"teacher '{teacher.name}': {exc}") from None
    values = np.asarray(model.predict(ctx.points.search), dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    if values.shape != (len(ctx.points.search), len(ctx.problem.fields)) or not np.all(np.isfinite(values)):
        raise ConfigError(f"teacher '{teacher.name}' returned {values.shape} values with non-finite entries "
                          f"or the wrong shape; expected ({len(ctx.points.search)}, {len(ctx.problem.fields)})")
    ctx.teacher_values = values
    ctx.timings["teacher"] = time.perf_counter() - start
    ctx.info["teacher"] = {"plugin": teacher.name, **_jsonable(model.info())}
    ctx.info["teacher_model"] = model
    return model


def _jsonable(info: dict) -> dict:
    out = {}
    for k, v in info.items():
        if isinstance(v, np.ndarray):
            v = v.tolist()
        elif isinstance(v, (np.floating, np.integer)):
            v = v.item()
        out[k] = v
    return out
