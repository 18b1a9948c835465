"""``desyr run``: teacher, Stage A search and pooling, Stage B refit, Stage C gates, verification."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from desyr.augment import field_candidate
from desyr.candidates import Candidate, RefitOutcome
from desyr.coupled import refit_winner, select_group
from desyr.context import RunContext
from desyr.errors import ConfigError
from desyr.expressions import expression_text
from desyr.interfaces import ComponentError, SearchTask
from desyr.pipeline import (check_finite, component, gate_sequence, make_context, refine_pool,
                            relative_l2, section, select_and_verify, verify_selection)
from desyr.plugins import Registry, load_registry
from desyr.problem import Problem
from desyr.progress import Progress
from desyr.result import Result, build_result
from desyr.retention import PooledCandidate, pool_fronts, retain
from desyr.teaching import attach_teacher

SEARCH_KEYS = {"plugin", "binary", "unary", "max_size", "runs", "options", "budget"}
DEFAULT_SEARCH = {"binary": ["+", "-", "*", "/"], "unary": [], "max_size": 20, "runs": 2}


def search_settings(problem: Problem) -> dict[str, Any]:
    sec = section(problem, "search")
    unknown = sorted(set(sec) - SEARCH_KEYS)
    if unknown:
        raise ConfigError(f"{problem.source}: [search] unknown key(s) {', '.join(unknown)}; "
                          f"allowed: {', '.join(sorted(SEARCH_KEYS))}")
    settings = {**DEFAULT_SEARCH, **sec}
    if not isinstance(settings["runs"], int) or settings["runs"] < 1:
        raise ConfigError(f"{problem.source}: [search] runs must be a positive integer")
    return settings


def search_seeds(base: int, runs: int) -> list[int]:
    return [1000 * base + k for k in range(runs)]


def search_fields(searcher, settings: dict[str, Any], ctx: RunContext) -> dict[str, list[PooledCandidate]]:
    """K seeded searches per field on that field's teacher output, retention and pooling."""
    problem, start = ctx.problem, time.perf_counter()
    per_field: dict[str, list] = {}
    runs_info = []
    seeds = search_seeds(ctx.seed, settings["runs"])
    for j, field in enumerate(problem.fields):
        kept_runs = []
        for k, seed in enumerate(seeds, 1):
            ctx.progress.message(f"stage A: {searcher.name} search {k}/{len(seeds)} for {field} (seed {seed})")
            task = SearchTask(X=ctx.points.search, y=ctx.teacher_values[:, j], variables=problem.variable_names,
                              binary=settings["binary"], unary=settings["unary"], max_size=int(settings["max_size"]),
                              seed=seed, budget=dict(settings.get("budget", {})), field_name=field)
            t0 = time.perf_counter()
            try:
                front = searcher.search(task)
            except ComponentError as exc:
                raise ConfigError(f"searcher '{searcher.name}': {exc}") from None
            kept = retain(front)
            kept_runs.append((seed, kept))
            runs_info.append({"field": field, "seed": seed, "front_size": len(front), "kept": len(kept),
                              "seconds": round(time.perf_counter() - t0, 3),
                              "front": [{"expression": expression_text(m.expression), "complexity": m.complexity,
                                         "loss": m.loss} for m in front],
                              **_jsonable_info(getattr(searcher, "last_run_info", {}))})
        per_field[field] = pool_fronts(kept_runs)
    ctx.timings["search"] = time.perf_counter() - start
    ctx.info["search"] = {"plugin": searcher.name, "runs": runs_info, "seeds": seeds,
                          "pool_size": sum(len(v) for v in per_field.values()),
                          "pool_size_per_field": {f: len(v) for f, v in per_field.items()}, "binary": settings["binary"],
                          "unary": settings["unary"], "max_size": settings["max_size"]}
    ctx.progress.message(f"stage A: {sum(len(v) for v in per_field.values())} pooled candidate(s) from "
                         f"{len(runs_info)} search(es) in {ctx.timings['search']:.1f} s")
    return per_field


def stage_a_search(searcher, settings: dict[str, Any], ctx: RunContext) -> list[Candidate]:
    """Stage A for a single-field problem: the pooled candidates."""
    if len(ctx.problem.fields) != 1:
        raise ConfigError("stage_a_search is for single-field problems; coupled ones go through desyr.coupled")
    (pooled,) = search_fields(searcher, settings, ctx).values()
    return [Candidate(f"c{i}", {ctx.problem.fields[0]: e.member.expression}, searcher=searcher.name,
                      search_seed=e.seed, search_complexity=int(e.member.complexity),
                      search_loss=float(e.member.loss), extra={"seeds": list(e.seeds)})
            for i, e in enumerate(pooled)]


def coupled_stages(pooled: dict[str, list[PooledCandidate]], searcher, refiner, registry: Registry,
                   ctx: RunContext) -> tuple[list[Candidate], dict[str, Any]]:
    """Coupled Stages A (augmentation, shortlists, groups), B (screening) and C, then the full refit."""
    per_field = {f: [field_candidate(f, e.member.expression, ctx, searcher.name, e.seed) for e in entries]
                 for f, entries in pooled.items()}
    pool, selection = select_group(per_field, registry, refiner, gate_sequence(registry, ctx.problem), ctx)
    refit_winner(selection, refiner, ctx)
    return pool, verify_selection(selection, ctx)


def _jsonable_info(info: dict) -> dict:
    return {k: v for k, v in info.items() if isinstance(v, (str, int, float, bool, list, type(None)))}


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


def run(problem: Problem, *, seed: int | None = None, registry: Registry | None = None,
        out: str | Path | None = None, progress: Progress | None = None, retrain: bool = False,
        cache_dir: str | Path = ".desyr-cache") -> Result:
    """The whole pipeline on one problem; returns (and optionally writes) the result."""
    clock = time.perf_counter()
    registry = registry or load_registry()
    ctx = make_context(problem, seed, progress, cache_dir=Path(cache_dir), retrain=retrain)
    settings = search_settings(problem)
    searcher = component(registry, problem, "searcher", "search", "operon", allowed=SEARCH_KEYS)
    try:
        searcher.check_operators(settings["binary"], settings["unary"])
    except ComponentError as exc:
        raise ConfigError(f"{problem.source}: [search]: {exc}") from None
    refiner = component(registry, problem, "refiner", "refine", "scipy")
    gate_sequence(registry, problem)
    model = attach_teacher(registry, ctx)
    teacher_l2 = relative_l2(problem, model.predict(ctx.points.verify), ctx.points.verify)
    if len(problem.fields) == 1:
        pool = stage_a_search(searcher, settings, ctx)
        refine_pool(screen_finite(pool, ctx), refiner, ctx)
        outcome = select_and_verify(pool, registry, ctx)
    else:
        pool, outcome = coupled_stages(search_fields(searcher, settings, ctx), searcher, refiner, registry, ctx)
    outcome["errors"]["teacher_rel_l2"] = teacher_l2
    ctx.timings["total"] = time.perf_counter() - clock
    result = build_result("run", ctx, pool, outcome)
    if out is not None:
        result.write(out)
    return result
