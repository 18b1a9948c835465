"""``desyr bench``: run problems over several seeds, resumable, and tabulate like the paper.

Each run is a separate ``desyr run`` process writing ``DIR/runs/<name>/seed<k>/``,
so a crash or a time-out is recorded for that run and the others continue. A run
whose ``result.json`` exists is skipped, which makes an interrupted bench resumable.
"""
from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from desyr.errors import ConfigError
from desyr.progress import Progress

RECOVERED = 1e-10
COLUMNS = ["teacher_rel_l2", "pre_refit_rel_l2", "rel_l2", "R_eq", "R_con", "complexity"]
STAGES = ["teacher", "search", "refine", "total"]


def library(registry) -> list[tuple[str, str]]:
    return sorted(registry.problem_library())


def resolve_names(registry, names: list[str], all_: bool) -> list[str]:
    if all_:
        by_id = sorted(library(registry), key=lambda row: row[1])      # titles start with "[ID]"
        return [spec for spec, _ in by_id if not spec.endswith("_polynomial")]
    if not names:
        raise ConfigError("name problems to bench (see 'desyr problems') or pass --all")
    out = []
    for n in names:
        if Path(n).is_file():
            out.append(n)
            continue
        if n.endswith(".toml") or "/" in n:
            raise ConfigError(f"config file not found: {n}")
        spec = n if ":" in n else f"paper:{n}"
        problem = registry.load_problem(spec)     # a clear error if no plugin knows it
        out.append(f"paper:{problem.name}" if spec.startswith("paper:") else spec)
    return out


def run_dir(out: Path, spec: str, seed: int) -> Path:
    return out / "runs" / spec.split(":")[-1].replace("/", "_").removesuffix(".toml") / f"seed{seed}"


def run_one(spec: str, seed: int, out: Path, timeout: float, progress: Progress) -> dict[str, Any]:
    where = run_dir(out, spec, seed)
    if (where / "result.json").is_file():
        progress.message(f"bench: {spec} seed {seed}: already done, skipped")
        return {"spec": spec, "seed": seed, "ok": True, "skipped": True}
    where.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "desyr", "run", spec, "--seed", str(seed), "--out", str(where),
           "--cache-dir", str(out / "cache"), "--quiet"]
    progress.message(f"bench: {spec} seed {seed} ...")
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        ok, detail = proc.returncode == 0, proc.stderr.strip().splitlines()[-5:]
    except subprocess.TimeoutExpired:
        ok, detail = False, [f"timed out after {timeout:.0f} s"]
    seconds = time.perf_counter() - start
    if not ok:
        (where / "error.json").write_text(json.dumps({"spec": spec, "seed": seed, "error": detail}, indent=2))
    progress.message(f"bench: {spec} seed {seed}: {'done' if ok else 'FAILED'} in {seconds:.1f} s")
    return {"spec": spec, "seed": seed, "ok": ok, "error": None if ok else " | ".join(detail)}


def collect(out: Path, specs: list[str], seeds: int) -> list[dict[str, Any]]:
    rows = []
    for spec in specs:
        for seed in range(seeds):
            where = run_dir(out, spec, seed)
            if (where / "result.json").is_file():
                rows.append({"spec": spec, "seed": seed, "result": json.loads((where / "result.json").read_text())})
            elif (where / "error.json").is_file():
                rows.append({"spec": spec, "seed": seed, "error": json.loads((where / "error.json").read_text())["error"]})
    return rows


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
    timings = result.get("timings") or {}
    if stage == "refine" and "screen" in timings:
        return timings["screen"] + timings.get("refine", 0.0)
    return timings.get(stage)


def _fieldwise(result: dict[str, Any]) -> str:
    errors = result.get("errors") or {}
    return ", ".join(f"{k[len('rel_l2_'):]} {_fmt(v)}" for k, v in errors.items()
                     if k.startswith("rel_l2_") and isinstance(v, (int, float)))


def _l2(result: dict[str, Any]) -> float:
    value = _value(result, "rel_l2")
    return np.inf if value is None else value


def _recovered(result: dict[str, Any]) -> bool:
    return _l2(result) <= RECOVERED


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


def render_markdown(rows: list[dict[str, Any]], specs: list[str], registry, command: str) -> str:
    head = ["ID", "problem", "PINN rel L2", "pre-refit rel L2", "refined rel L2", "R_eq", "R_con", "complexity",
            "converged", "recovered (≤1e-10)", "teacher s", "search s", "refit s", "total s",
            "paper refined rel L2", "paper total s"]
    lines = [f"Command: `{command}`  ", f"Machine: {platform.machine()}, {_cpus()} CPU cores, Python "
             f"{platform.python_version()}  ", f"Date: {time.strftime('%Y-%m-%d')}", "",
             "Values are medians [Q1, Q3] over seeds.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    failures = []
    for spec in specs:
        results = [r["result"] for r in rows if r["spec"] == spec and "result" in r]
        errors = [r for r in rows if r["spec"] == spec and "error" in r]
        failures += [f"- {spec} seed {e['seed']}: run failed: {' | '.join(e['error'])}" for e in errors]
        title, paper = _meta(registry, spec)
        n = len(results) + len(errors)
        recovered = sum(1 for r in results if _recovered(r))
        converged = sum(1 for r in results if r.get("converged"))
        cells = [str(paper.get("id", "–")), title]
        cells += [summary([_value(r, k) for r in results]) for k in COLUMNS]
        cells += [f"{converged}/{n}", f"{recovered}/{n}"]
        cells += [summary([_stage_seconds(r, s) for r in results]) for s in STAGES]
        cells += [_fmt(paper["refined_rel_l2"]) if "refined_rel_l2" in paper else "–",
                  _fmt(paper["total_seconds"]) if "total_seconds" in paper else "–"]
        lines.append("| " + " | ".join(cells) + " |")
        failures += [f"- {spec} seed {r['seed']}: not recovered (refined rel L2 {_fmt(_l2(r['result']))}); "
                     f"selected `{r['result'].get('expression')}`" for r in rows
                     if r["spec"] == spec and "result" in r and not _recovered(r["result"])]
    fieldwise = [f"- {r['spec']} seed {r['seed']}: {_fieldwise(r['result'])}" for r in rows
                 if "result" in r and _fieldwise(r["result"])]
    if fieldwise:
        lines += ["", "Fieldwise refined relative L2 (coupled problems; the table shows the joint value):", ""]
        lines += fieldwise
    if failures:
        lines += ["", "Runs not recovered:", ""] + failures
    return "\n".join(lines) + "\n"


def _meta(registry, spec: str) -> tuple[str, dict[str, Any]]:
    """The problem's title and its [paper] table (ID and the paper's figures), for files too."""
    from desyr.model.loading import load_problem

    try:
        problem = load_problem(spec, registry)
    except Exception:  # the table must still render for a run whose config is broken
        return spec, {}
    return problem.title, dict(problem.sections.get("paper") or {})


def _cpus() -> int:
    import os
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def bench(registry, names: list[str], all_: bool, seeds: int, out: str | Path, timeout: float,
          progress: Progress, command: str) -> dict[str, Any]:
    if seeds < 1:
        raise ConfigError("--seeds must be at least 1")
    specs = resolve_names(registry, names, all_)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for spec in specs:
        for seed in range(seeds):
            run_one(spec, seed, out, timeout, progress)
    rows = collect(out, specs, seeds)
    data = {"command": command, "specs": specs, "seeds": seeds, "runs": rows}
    (out / "bench.json").write_text(json.dumps(data, indent=2) + "\n")
    (out / "bench.md").write_text(render_markdown(rows, specs, registry, command))
    return data
