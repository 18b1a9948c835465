"""The Python API: Stage B + C on given candidates (``refine``) and the shared stage helpers."""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import sympy as sp

from desyr.candidates import Candidate, RefitOutcome
from desyr.context import RunContext
from desyr.errors import ConfigError, PluginError
from desyr.expressions import ExpressionError
from desyr.interfaces import ComponentError
from desyr.numeric import evaluate
from desyr.physics import verify
from desyr.plugins import Registry, load_registry
from desyr.points import make_point_sets
from desyr.problem import Problem
from desyr.progress import Progress
from desyr.result import Result, build_result
from desyr.selection import PAPER_SEQUENCE, clean, measure, run_gates


# ------------------------------------------------------------------ settings
def section(problem: Problem, name: str) -> dict[str, Any]:
    return dict(problem.sections.get(name) or {})


def check_keys(problem: Problem, table: str, allowed: set[str]) -> dict[str, Any]:
    sec = section(problem, table)
    unknown = sorted(set(sec) - allowed)
    if unknown:
        raise ConfigError(f"{problem.source}: [{table}] unknown key(s) {', '.join(unknown)}; "
                          f"allowed: {', '.join(sorted(allowed))}")
    return sec


def component(registry: Registry, problem: Problem, role: str, table: str, default: str,
              override: str | None = None, allowed: set[str] = frozenset({"plugin", "options"})):
    """Instantiate the component a config section selects, with its options."""
    sec = check_keys(problem, table, set(allowed))
    name = override or sec.get("plugin", default)
    options = dict(sec.get("options", {}))
    try:
        return registry.create(role, name, options)
    except ComponentError as exc:
        raise ConfigError(f"{problem.source}: [{table}.options]: {exc}") from None


def gate_sequence(registry: Registry, problem: Problem) -> list:
    sec = check_keys(problem, "selection", {"gates", "options", "exact_tolerance"})
    names = sec.get("gates", PAPER_SEQUENCE)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ConfigError(f"{problem.source}: [selection] gates must be a list of gate names")
    options = sec.get("options", {})
    stray = sorted(set(options) - set(names))
    if stray:
        raise ConfigError(f"{problem.source}: [selection.options] names gate(s) {', '.join(stray)} "
                          f"that are not in [selection] gates")
    gates = []
    for name in names:
        try:
            gates.append(registry.create("gate", name, options.get(name, {})))
        except ComponentError as exc:
            raise ConfigError(f"{problem.source}: [selection.options.{name}]: {exc}") from None
    return gates


def make_context(problem: Problem, seed: int | None, progress: Progress | None = None, **kwargs) -> RunContext:
    seed = problem.points["seed"] if seed is None else seed
    weight = float(section(problem, "refine").get("options", {}).get("constraint_weight", 100.0))
    return RunContext(problem, make_point_sets(problem, seed), seed=seed, constraint_weight=weight,
                      progress=progress or Progress(), **kwargs)


# ------------------------------------------------------------------ candidates
def parse_candidate(problem: Problem, text: str | Mapping[str, str]) -> dict[str, sp.Expr]:
    """``"sin(3.14*x)"`` for one field, ``"u = ...; v = ..."`` or a dict for several."""
    if isinstance(text, Mapping):
        parts = dict(text)
    elif len(problem.fields) == 1 and "=" not in text:
        parts = {problem.fields[0]: text}
    else:
        parts = {}
        for piece in text.split(";"):
            name, sep, body = piece.partition("=")
            if not sep:
                raise ConfigError(f"candidate {text!r}: write 'field = expression' separated by ';'")
            parts[name.strip()] = body.strip()
    missing = set(problem.fields) - set(parts)
    unknown = set(parts) - set(problem.fields)
    if missing or unknown:
        raise ConfigError(f"candidate {text!r}: needs exactly the fields {', '.join(problem.fields)}")
    try:
        return {f: problem.parse(parts[f]) for f in problem.fields}
    except ExpressionError as exc:
        raise ConfigError(f"candidate {text!r}: {exc}") from None


def check_finite(problem: Problem, exprs: Mapping[str, sp.Expr], ctx: RunContext) -> str | None:
    """A reason if the expression is non-finite somewhere on the refinement or constraint points."""
    X = np.vstack([ctx.points.refine] + ctx.points.constraints)
    for f, e in exprs.items():
        values = evaluate(e, problem.symbols, X)
        if not np.all(np.isfinite(values)):
            bad = X[~np.isfinite(values)][0]
            where = ", ".join(f"{v} = {x:.4g}" for v, x in zip(problem.variable_names, bad))
            return f"{f} = {e} is not finite at {where}"
    return None


# ------------------------------------------------------------------ stages B, C
def refine_pool(pool: list[Candidate], refiner, ctx: RunContext) -> None:
    """Stage B for every candidate, shortest first, then measurement and checked cleaning."""
    order = sorted(pool, key=lambda c: c.complexity)
    start = time.perf_counter()
    for i, cand in enumerate(order, 1):
        try:
            cand.refit = refiner.refine(cand, ctx.problem, ctx.points)
            cand.expressions = cand.refit.expressions or None
            measure(cand, ctx)
            clean(cand, ctx)
        except Exception as exc:  # one unusable candidate must not end the run; record why
            cand.refit = RefitOutcome({}, "failed", False, reason=f"{type(exc).__name__}: {exc}")
            cand.expressions = None
        ctx.progress.bar("refit", i, len(order), status=cand.refit.status)
    ctx.timings["refine"] = time.perf_counter() - start
    counts = {}
    for c in pool:
        counts[c.refit.status] = counts.get(c.refit.status, 0) + 1
    ctx.progress.message(f"stage B: refit {len(pool)} candidate(s) in {ctx.timings['refine']:.2f} s "
                         f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")


def relative_l2(problem: Problem, exprs_or_values, X: np.ndarray) -> float | None:
    """Post hoc relative L2 error against the reference on the verification points."""
    ref = problem.evaluate_reference(X)
    if ref is None:
        return None
    if isinstance(exprs_or_values, np.ndarray):
        pred = exprs_or_values
    else:
        pred = np.column_stack([evaluate(exprs_or_values[f], problem.symbols, X) for f in problem.fields])
    err = float(np.linalg.norm(pred - ref) / np.linalg.norm(ref))
    return err if math.isfinite(err) else math.inf


def select_and_verify(pool: list[Candidate], registry: Registry, ctx: RunContext) -> dict[str, Any]:
    start = time.perf_counter()
    selection = run_gates(pool, gate_sequence(registry, ctx.problem), ctx)
    ctx.timings["select"] = time.perf_counter() - start
    return verify_selection(selection, ctx)


def verify_selection(selection, ctx: RunContext) -> dict[str, Any]:
    """Verification residuals and post hoc errors of the selected candidate (joint and per field)."""
    start = time.perf_counter()
    chosen = selection.selected
    verification = verify(ctx.problem, chosen.expressions, ctx.points) if chosen else None
    errors = {"rel_l2": relative_l2(ctx.problem, chosen.expressions, ctx.points.verify) if chosen else None}
    if chosen is not None:
        errors["pre_refit_rel_l2"] = relative_l2(ctx.problem, chosen.search_expressions, ctx.points.verify)
        if len(ctx.problem.fields) > 1:
            errors.update(fieldwise_l2(ctx.problem, chosen.expressions, ctx.points.verify))
    ctx.timings["verify"] = time.perf_counter() - start
    return {"selection": selection, "verification": verification, "errors": errors}


def fieldwise_l2(problem: Problem, exprs, X: np.ndarray) -> dict[str, float]:
    ref = problem.evaluate_reference(X)
    if ref is None:
        return {}
    out = {}
    for j, f in enumerate(problem.fields):
        pred = evaluate(exprs[f], problem.symbols, X)
        err = float(np.linalg.norm(pred - ref[:, j]) / np.linalg.norm(ref[:, j]))
        out[f"rel_l2_{f}"] = err if math.isfinite(err) else math.inf
    return out


# ------------------------------------------------------------------ public API
def refine(problem: Problem, candidates: Iterable[str | Mapping[str, str]], *, seed: int | None = None,
           registry: Registry | None = None, use_teacher: bool = False, out: str | Path | None = None,
           progress: Progress | None = None, retrain: bool = False, cache_dir: str | Path = ".desyr-cache") -> Result:
    """Stages B and C on user-given candidates; optionally with the configured teacher for eps_T."""
    clock = time.perf_counter()
    registry = registry or load_registry()
    ctx = make_context(problem, seed, progress, cache_dir=Path(cache_dir), retrain=retrain)
    refiner = component(registry, problem, "refiner", "refine", "scipy")
    gate_sequence(registry, problem)   # fail on a bad gate list before any work
    pool = []
    for i, text in enumerate(candidates):
        exprs = parse_candidate(problem, text)
        reason = check_finite(problem, exprs, ctx)
        if reason:
            raise ConfigError(f"candidate {i}: {reason}")
        pool.append(Candidate(f"c{i}", exprs))
    if not pool:
        raise ConfigError("no candidate given (use --candidate EXPR)")
    if use_teacher:
        from desyr.teaching import attach_teacher
        attach_teacher(registry, ctx)
    refine_pool(pool, refiner, ctx)
    outcome = select_and_verify(pool, registry, ctx)
    ctx.timings["total"] = time.perf_counter() - clock
    result = build_result("refine", ctx, pool, outcome)
    if out is not None:
        result.write(out)
    return result


__all__ = ["refine", "PluginError"]
