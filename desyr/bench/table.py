"""The paper-style table of a bench (``bench.md``): medians and quartiles over seeds per configuration."""
from __future__ import annotations

import os
import platform
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from desyr.extension.contributed import cell
from desyr.model.constants import METHOD

if TYPE_CHECKING:
    from desyr.extension.contributed import BenchColumn
    from desyr.extension.registry import Registry
    from desyr.model.problem import Problem

RECOVERED = METHOD.recovered_rel_l2
COLUMNS = ["teacher_rel_l2", "pre_refit_rel_l2", "rel_l2", "R_eq", "R_con", "complexity"]
STAGES = ["teacher", "search", "refine", "total"]


def cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _value(result: dict[str, Any], key: str) -> float | None:
    if key in ("R_eq", "R_con"):
        v = (result.get("residuals") or {}).get(key)
    elif key == "complexity":
        v = result.get("complexity")
    else:
        v = (result.get("errors") or {}).get(key)
    return float(v) if isinstance(v, (int, float)) else None


def _stage_seconds(result: dict[str, Any], stage: str) -> float | None:
    """Seconds of one stage; for coupled runs the refit column includes the group screening."""
    timings: dict[str, float] = result.get("timings") or {}
    if stage == "refine" and "screen" in timings:
        return timings["screen"] + timings.get("refine", 0.0)
    return timings.get(stage)


def _fieldwise(result: dict[str, Any]) -> str:
    errors = result.get("errors") or {}
    return ", ".join(f"{k[len('rel_l2_'):]} {_fmt(v)}" for k, v in errors.items()
                     if k.startswith("rel_l2_") and isinstance(v, (int, float)))


def refined_l2(result: dict[str, Any]) -> float:
    value = _value(result, "rel_l2")
    return np.inf if value is None else value


def verdict_of(result: dict[str, Any]) -> str:
    """The stored verdict; "unverified" for a result without one (or with one that is not a table)."""
    verification = result.get("verification")
    verdict = verification.get("verdict") if isinstance(verification, dict) else None
    return verdict if isinstance(verdict, str) else "unverified"


def is_recovered(result: dict[str, Any]) -> bool:
    return refined_l2(result) <= RECOVERED


def summary(values: list[float | None]) -> str:
    vals = [v for v in values if v is not None]
    if not vals:
        return "–"
    q1, med, q3 = np.percentile(vals, [25, 50, 75])
    return _fmt(med) if len(vals) == 1 or q1 == q3 else f"{_fmt(med)} [{_fmt(q1)}, {_fmt(q3)}]"


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    return f"{v:.2e}" if abs(v) < 1e-2 or abs(v) >= 1e4 else f"{v:.3g}"


#: the columns of an answer that is a series (``result.json``'s ``series``: docs/series.md, "In a run")
SERIES_HEAD = ["series terms", "tail bound", "bound holds on"]


def series_cells(results: list[dict[str, Any]]) -> list[str]:
    """The terms a series answer kept on the verification points (the most over its fields; "(cap)" where
    a field reached the cap), the proved tail bound reached there ("none" where none holds on those points)
    and the part of the domain where a tail bound holds, over seeds (median [least, most]); "–" where no answer
    is a series."""
    seen = [list(((r.get("series") or {}).get("fields") or {}).values()) for r in results]
    seen = [fields for fields in seen if fields]
    if not seen:
        return ["–"] * len(SERIES_HEAD)
    kept = sorted(max(int(f.get("terms") or 0) for f in fields) for fields in seen)
    terms = str(kept[0]) if kept[0] == kept[-1] else f"{kept[len(kept) // 2]} [{kept[0]}, {kept[-1]}]"
    capped = " (cap)" if any(f.get("capped") for fields in seen for f in fields) else ""
    bounds = [None if any(f.get("tail_bound") is None for f in fields)
              else max(float(f["tail_bound"]) for f in fields) for fields in seen]
    bound = "none" if all(b is None for b in bounds) else summary(bounds)
    holds = "; ".join(sorted({str(f.get("bound_holds") or "nowhere tried") for f in seen[0]}))
    return [terms + capped, bound, holds]


def exact_text(result: dict[str, Any]) -> str | None:
    form = result.get("exact_form") or {}
    exprs = form.get("expressions") or {}
    return "; ".join(f"{f} = {e}" for f, e in exprs.items()) if len(exprs) > 1 else next(iter(exprs.values()), None)


def exact_forms(results: list[dict[str, Any]]) -> tuple[str, str]:
    """The exact form of the first seed, and symbolic matches over seeds (``2/3``; ``–`` without reference)."""
    first = next((t for t in map(exact_text, results) if t), None)
    flags = [(r.get("exact_form") or {}).get("symbolic_match") for r in results]
    known = [f for f in flags if f is not None]
    match = f"{sum(1 for f in known if f)}/{len(flags)}" if known else "–"
    return (f"`{first}`" if first else "–"), match


def render_markdown(rows: list[dict[str, Any]], specs: list[str], registry: Registry | None, command: str) -> str:
    columns = plugin_columns(registry)
    lead, trail = [c for c in columns if c.lead], [c for c in columns if not c.lead]
    head = [c.header for c in lead] + ["problem", "PINN rel L2", "pre-refit rel L2", "refined rel L2", "R_eq",
                                       "R_con", "complexity", "converged", "recovered (≤1e-10)", "proved",
                                       "teacher s", "search s", "refit s", "total s"]
    series = any(r.get("result", {}).get("series") for r in rows)      # the columns only where an answer is one
    head += [c.header for c in trail] + (SERIES_HEAD if series else []) + ["exact form (seed 0)", "symbolic match"]
    lines = [f"Command: `{command}`  ", f"Machine: {platform.machine()}, {cpus()} CPU cores, Python "
             f"{platform.python_version()}  ", f"Date: {time.strftime('%Y-%m-%d')}", "",
             "Values are medians [Q1, Q3] over seeds. Verdicts are the separate verifier's (docs/verify.md): "
             "recovered = verified exact with refined relative L2 at most 1e-10; proved = the exact form reduces "
             "every residual to 0.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    failures = []
    for spec in specs:
        results = [r["result"] for r in rows if r["spec"] == spec and "result" in r]
        errors = [r for r in rows if r["spec"] == spec and "error" in r]
        failures += [f"- {spec} seed {e['seed']}: run failed: {' | '.join(e['error'])}" for e in errors]
        title, problem = title_and_problem(registry, spec)
        n = len(results) + len(errors)
        recovered = sum(1 for r in results if is_recovered(r))
        converged = sum(1 for r in results if r.get("converged"))
        cells = [cell_text(c, problem) for c in lead] + [title]
        cells += [summary([_value(r, k) for r in results]) for k in COLUMNS]
        proved = sum(1 for r in results if verdict_of(r) == "proved")
        cells += [f"{converged}/{n}", f"{recovered}/{n}", f"{proved}/{n}"]
        cells += [summary([_stage_seconds(r, s) for r in results]) for s in STAGES]
        cells += [cell_text(c, problem) for c in trail]
        cells += series_cells(results) if series else []
        cells += list(exact_forms(results))
        lines.append("| " + " | ".join(cells) + " |")
        failures += [f"- {spec} seed {r['seed']}: not recovered (refined rel L2 {_fmt(refined_l2(r['result']))}); "
                     f"selected `{r['result'].get('expression')}`" for r in rows
                     if r["spec"] == spec and "result" in r and not is_recovered(r["result"])]
    fieldwise = [f"- {r['spec']} seed {r['seed']}: {_fieldwise(r['result'])}" for r in rows
                 if "result" in r and _fieldwise(r["result"])]
    if fieldwise:
        lines += ["", "Fieldwise refined relative L2 (coupled problems; the table shows the joint value):", ""]
        lines += fieldwise
    if failures:
        lines += ["", "Runs not recovered:", ""] + failures
    return "\n".join(lines) + "\n"


def title_and_problem(registry: Registry | None, spec: str) -> tuple[str, Problem | None]:
    """The problem's title and the problem (None when its config does not load), for files too."""
    from desyr.config.loading import load_problem

    try:
        problem = load_problem(spec, registry)
    except Exception:  # the table must still render for a run whose config is broken
        return spec, None
    return problem.title, problem


def plugin_columns(registry: Registry | None) -> list[BenchColumn]:
    """The plugins' columns (hook ``desyr_bench_columns``); none without a registry."""
    from desyr.extension.declared import bench_columns

    return bench_columns(registry) if registry is not None else []


def cell_text(column: BenchColumn, problem: Problem | None) -> str:
    value = cell(column, problem)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _fmt(float(value))
    return "–" if value is None else str(value)
