"""``correction``: the same topology before and after Stage B (paper §5.3.2, Table of coefficient updates).

From a bench: every run's selected candidate, its search constants and refined constants and
the archived relative L2 errors of the teacher, the pre-refit and the refined expression.
Quick: the built-in frozen topologies with perturbed constants, refit by Stage B.
"""
from __future__ import annotations

import math
from typing import Any

from desyr.report.charts import before_after_chart
from desyr.report.figures import FLOOR, FigureRecord
from desyr.studies.common import (
    StudyContext,
    StudyOutput,
    errors,
    fmt,
    frozen_cases,
    quartiles,
    refit,
    summary,
    table,
)

TITLE = "Fixed-topology coefficient correction"
PAPER = "8 to 14 orders of magnitude between pre-refit and refined relative L2 (e.g. Sine-Poisson 1D 2.48e-5 -> 1.98e-15)"


def orders(pre: float | None, refined: float | None) -> float | None:
    if pre is None or refined is None or not math.isfinite(pre) or pre <= 0:
        return None
    return math.log10(pre / max(refined, FLOOR))


def run(ctx: StudyContext) -> StudyOutput:
    rows: list[dict[str, Any]] = []
    for case in frozen_cases(ctx):
        if case.run is not None:
            r = case.run.result
            best = r.get_best()
            rows.append({"config": case.label, "seed": case.seed, "topology": best.topology if best else None,
                         "params_pre": best.params_initial if best else [],
                         "params_refined": best.params_refined if best else [],
                         "teacher": r.errors.teacher_rel_l2, "pre": r.errors.pre_refit_rel_l2,
                         "refined": r.errors.rel_l2, "converged": r.converged})
            continue
        cand = refit(case.problem, {case.problem.fields[0]: case.expression}, ctx.reg(), case.seed)
        pre = errors(case.problem, cand.search_expressions, case.seed)["rel_l2"]
        post = errors(case.problem, cand.expressions, case.seed)["rel_l2"]
        rows.append({"config": case.label, "seed": case.seed, "topology": str(case.expression),
                     "params_pre": cand.refit.initial if cand.refit else [],
                     "params_refined": cand.refit.params if cand.refit else [],
                     "teacher": None, "pre": pre, "refined": post, "converged": cand.converged})
    for row in rows:
        row["orders"] = orders(row["pre"], row["refined"])
    configs = list(dict.fromkeys(r["config"] for r in rows))
    per_config = []
    for c in configs:
        mine = [r for r in rows if r["config"] == c]
        per_config.append({"config": c, "n": len(mine), "teacher": quartiles([r["teacher"] for r in mine]),
                           "pre": quartiles([r["pre"] for r in mine]), "refined": quartiles([r["refined"] for r in mine]),
                           "orders": quartiles([r["orders"] for r in mine])})
    lines = ["Relative L2 errors, median [Q1, Q3] over seeds; orders = log10(pre-refit / refined), refined "
             f"floored at {FLOOR:g}.", ""]
    lines += table(["configuration", "n", "teacher", "pre-refit", "refined", "orders gained"],
                   [[c, len(m := [r for r in rows if r["config"] == c]), summary([r["teacher"] for r in m]),
                     summary([r["pre"] for r in m]), summary([r["refined"] for r in m]),
                     summary([r["orders"] for r in m])] for c in configs])
    lines += ["", "Coefficients of one seed per configuration (search constants -> refined):", ""]
    lines += table(["configuration", "seed", "topology", "pre-refit constants", "refined constants"],
                   [[r["config"], r["seed"], f"`{r['topology']}`", ", ".join(f"{v:.8g}" for v in r["params_pre"]),
                     ", ".join(f"{v:.15g}" for v in r["params_refined"])]
                    for c in configs for r in [next(x for x in rows if x["config"] == c)]])
    gained = [r["orders"] for r in rows if r["orders"] is not None]
    lines += ["", f"Orders gained over all {len(rows)} cases: min {fmt(min(gained)) if gained else '–'}, "
                  f"max {fmt(max(gained)) if gained else '–'}. Paper: {PAPER}."]
    figures = []
    path = ctx.figure("correction.png")
    if path is not None:
        series = [("teacher", [p["teacher"][0] if p["teacher"] else None for p in per_config]),
                  ("pre-refit", [p["pre"][0] if p["pre"] else None for p in per_config]),
                  ("refined", [p["refined"][0] if p["refined"] else None for p in per_config])]
        if all(v is None for v in series[0][1]):
            series = series[1:]
        before_after_chart(path, configs, series)
        figures.append(FigureRecord(path, "Median relative L2 error per configuration before (pre-refit) and after "
                                          "(refined) Stage B on the same topology; dashed: recovery threshold 1e-10."))
    return StudyOutput("correction", TITLE, {"rows": rows, "per_config": per_config, "paper": PAPER}, lines, figures)
