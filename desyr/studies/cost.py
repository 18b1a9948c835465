"""``cost``: stage-wise wall-clock breakdown per configuration from a bench folder (paper §5.4.2).

Seconds from each result's ``timings`` (teacher, search, refine + coupled screening,
select, verify, identify, total); "recovery" is total minus teacher, as in the paper's
runtime table.  Timeouts count candidate refits that hit the per-candidate limit.
"""
from __future__ import annotations

from typing import Any

from desyr.report.charts import bar_chart
from desyr.report.figures import FigureRecord
from desyr.studies.common import StudyContext, StudyOutput, archived_runs, by_config, quartiles, summary, table

TITLE = "Wall-clock cost"
STAGES = ["teacher", "search", "refine", "select", "verify", "identify"]
PAPER = "median totals from 99.8 s (Param. Poisson) to 24.8 min (Wave); Euler-Bernoulli 655.2 s, dominated by " \
        "training; Helmholtz 23.1 min; Burgers 18.6 min (their hardware)"


def seconds(timings: dict[str, float], stage: str) -> float | None:
    if stage == "refine":
        v = timings.get("refine")
        return None if v is None else v + timings.get("screen", 0.0)
    if stage == "recovery":
        total, teacher = timings.get("total"), timings.get("teacher", 0.0)
        return None if total is None else total - teacher
    return timings.get(stage)


def run(ctx: StudyContext) -> StudyOutput:
    assert ctx.bench is not None
    groups = by_config(archived_runs(ctx.bench))
    rows: dict[str, Any] = {}
    body: list[list[Any]] = []
    for name, runs in groups.items():
        per = {s: [seconds(r.result.timings, s) for r in runs] for s in STAGES + ["recovery", "total"]}
        timeouts = sum(c.status == "timeout" for r in runs for c in r.result.candidates)
        rows[name] = {"n": len(runs), "seconds": per, "timeouts": timeouts,
                      "medians": {s: (quartiles(v) or (None,))[0] for s, v in per.items()}}
        body.append([name, len(runs)] + [summary(per[s]) for s in STAGES + ["recovery", "total"]] + [timeouts])
    lines = ["Seconds, median [Q1, Q3] over runs; recovery = total - teacher.", ""]
    lines += table(["configuration", "n"] + STAGES + ["recovery", "total", "refit timeouts"], body)
    lines += ["", f"Paper: {PAPER}."]
    figures = []
    path = ctx.figure("cost.png")
    if path is not None and rows:
        names = list(rows)
        bar_chart(path, names, [(s, [rows[n]["medians"][s] or 0.0 for n in names]) for s in STAGES],
                  "median wall-clock time (s)", stacked=True)
        figures.append(FigureRecord(path, "Median wall-clock seconds per stage and configuration (stacked)."))
    return StudyOutput("cost", TITLE, {"configs": rows, "paper": PAPER}, lines, figures)
