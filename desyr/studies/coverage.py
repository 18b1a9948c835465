"""``coverage``: recoveries when pooling the first K archived search runs per teacher (paper §5.3.1).

For each archived scalar run (one teacher), the fronts of its first K search runs
(``search.runs[].front``) go through the Stage-A retention rule and pooling
(``desyr.stages.pool``), then Stage B and Stage C as ``desyr run`` does.  The teacher
comes from the bench's cache (``<bench>/cache``); without it the teacher-compatibility
gate is inactive (noted).  K larger than the archived runs is skipped (noted).
"""
from __future__ import annotations

from typing import Any

from desyr.config.spec import read_spec
from desyr.extension.roles import Gate
from desyr.model.candidates import Candidate, stage_b_fields
from desyr.model.search import ParetoMember
from desyr.report.charts import line_chart
from desyr.report.figures import FigureRecord
from desyr.stages.pool import pool_fronts, pooled_candidates, retain
from desyr.stages.refit import refine_pool, screen_finite
from desyr.stages.run_components import gate_sequence
from desyr.stages.select import run_gates
from desyr.studies.common import (
    RECOVERED,
    StudyContext,
    StudyOutput,
    archived_runs,
    attach_archived_teacher,
    context,
    errors,
    fmt,
    problem_of,
    refiner,
    table,
)

TITLE = "Candidate-pool coverage under repeated searches"
KS = [1, 2, 3, 5, 10]
PAPER = {1: "58/60", 2: "60/60", 3: "60/60", 5: "60/60", 10: "60/60"}


def run(ctx: StudyContext) -> StudyOutput:
    assert ctx.bench is not None
    registry = ctx.reg()
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    problems: dict[str, Any] = {}
    for arch in archived_runs(ctx.bench):
        search = arch.result.search
        if search is None or len(arch.result.problem.fields) != 1:
            continue
        if arch.config not in problems:
            problems[arch.config] = problem_of(arch, registry, ctx.bench)
        problem = problems[arch.config]
        field = problem.fields[0]
        fronts = [(r.seed, [ParetoMember(problem.parse(m["expression"]), int(m["complexity"]), float(m["loss"]))
                            for m in r.front]) for r in search.runs if r.field == field]
        rctx, note = attach_archived_teacher(arch, problem, ctx, context(problem, arch.result.seed))
        if note:
            notes.append(note)
        gates = [g for g in gate_sequence(registry, read_spec(problem, registry)) if isinstance(g, Gate)]
        stage_b = refiner(registry, problem)
        cache: dict[str, Candidate] = {}
        for k in KS:
            if k > len(fronts):
                continue
            pool = pooled_candidates(pool_fronts([(seed, retain(m)) for seed, m in fronts[:k]], search.plugin), field)
            todo = []
            for cand in screen_finite(pool, rctx):
                done = cache.get(str(cand.search_expressions))
                if done is None:
                    todo.append(cand)
                else:
                    for name in stage_b_fields():
                        setattr(cand, name, getattr(done, name))
            refine_pool(todo, stage_b, rctx)
            cache.update({str(c.search_expressions): c for c in todo})
            chosen = run_gates(pool, gates, rctx).selected
            exprs = chosen.expressions if chosen else None
            rel = errors(problem, exprs, arch.result.seed)["rel_l2"] if exprs else None
            rows.append({"config": arch.config, "seed": arch.seed, "K": k, "pool": len(pool),
                         "selected": {f: str(e) for f, e in exprs.items()} if exprs else None, "rel_l2": rel,
                         "recovered": rel is not None and rel <= RECOVERED})
        available = len(fronts)
        if available < max(KS):
            notes.append(f"{arch.config} seed {arch.seed}: {available} archived search run(s); "
                         f"K > {available} not evaluated")
    configs = list(dict.fromkeys(r["config"] for r in rows))
    ks = [k for k in KS if any(r["K"] == k for r in rows)]
    counts = {k: (sum(r["recovered"] for r in rows if r["K"] == k), sum(r["K"] == k for r in rows)) for k in ks}
    body = []
    for c in configs:
        cells = []
        for k in KS:
            mine = [r for r in rows if r["config"] == c and r["K"] == k]
            cells.append(f"{sum(r['recovered'] for r in mine)}/{len(mine)}" if mine else "–")
        full = [k for k in ks if all(r["recovered"] for r in rows if r["config"] == c and r["K"] == k)]
        body.append([c] + cells + [str(min(full)) if full else "none"])
    body.append(["**all**"] + [f"{counts[k][0]}/{counts[k][1]}" if k in counts else "–" for k in KS] + [""])
    body.append(["paper (12 configs x 5 teachers)"] + [PAPER[k] for k in KS] + [""])
    lines = ["Recoveries (selected refined relative L2 <= 1e-10) out of teachers, pooling the first K searches.", ""]
    lines += table(["configuration"] + [f"K={k}" for k in KS] + ["smallest K (all)"], body)
    changed = [(c, s) for c in configs for s in {r["seed"] for r in rows if r["config"] == c}
               if len({r["recovered"] for r in rows if r["config"] == c and r["seed"] == s}) > 1]
    if changed:
        lines += ["", "Teachers whose outcome changes with K:", ""]
        lines += [f"- {c} seed {s}: " + ", ".join(f"K={r['K']} {fmt(r['rel_l2'])}" for r in rows
                                                 if r["config"] == c and r["seed"] == s) for c, s in changed]
    figures = []
    path = ctx.figure("coverage.png")
    if path is not None and ks:
        line_chart(path, ks, [("recovered", [counts[k][0] for k in ks]), ("teachers", [counts[k][1] for k in ks])],
                   "searches pooled per teacher K (count)", "teacher instances (count)", logy=False)
        figures.append(FigureRecord(path, "Recovered teacher instances (relative L2 <= 1e-10) against the number K "
                                          "of archived searches pooled per teacher."))
    return StudyOutput("coverage", TITLE, {"rows": rows, "counts": {str(k): v for k, v in counts.items()},
                                           "paper": PAPER}, lines, figures, notes)
