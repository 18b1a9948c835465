"""``objective``: teacher-only, mixed data-physics and physics-only fits on frozen topologies (paper §5.3.3).

Every fit starts from the same constants (the search constants) on the same points; only
the objective changes.  Mixed: least squares on [sqrt(beta) F(a); u(X_S; a) - T], i.e.
|u - T|^2 + beta |F|^2 with beta the physics weight, so the teacher's error enters with
weight O(1/beta).  The teacher T on X_S: with --quick, the reference plus a smooth 1e-3
relative perturbation (:func:`surrogate_teacher`); from a bench, the archived pre-refit
expression of the selected candidate (what the search fitted to the teacher; the teacher
network itself is not stored in result.json).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from desyr.model.problem import Problem
from desyr.report.charts import line_chart
from desyr.report.figures import FigureRecord
from desyr.studies.common import StudyContext, StudyOutput, context, errors, frozen_cases, quartiles, summary, table
from desyr.studies.least_squares import DataTerm, freeze, mixed, physics_only, teacher_only
from desyr.symbolic.numeric import evaluate

TITLE = "Ablation of coefficient-refinement objectives"
BETAS = [1.0, 1e2, 1e4, 1e6]
PAPER = {"teacher-only": "8.85e-05", "mixed, beta=1e0": "1.44e-07", "mixed, beta=1e2": "1.45e-09",
         "mixed, beta=1e4": "1.45e-11", "mixed, beta=1e6": "1.45e-13", "physics-only": "1.86e-17"}


def run(ctx: StudyContext) -> StudyOutput:
    objectives = ["teacher-only"] + [f"mixed, beta=1e{len(str(int(b))) - 1}" for b in BETAS] + ["physics-only"]
    rows: list[dict[str, Any]] = []
    for case in frozen_cases(ctx):
        rctx = context(case.problem, case.seed)
        X = rctx.points.search
        if case.run is None:
            target = surrogate_teacher_values(case.problem, X)
        else:
            target = evaluate(case.expression, case.problem.symbols, X)
        fz = freeze(case.problem, case.expression, rctx.points)
        if not fz.param.symbols:
            continue
        data = DataTerm(fz, X, target)
        x0 = fz.param.values
        fits = [teacher_only(fz, data, x0)] + [mixed(fz, data, b, x0) for b in BETAS] + [physics_only(fz, x0)]
        for name, (x, ok) in zip(objectives, fits):
            e = errors(case.problem, fz.expressions(x), case.seed)
            rows.append({"config": case.label, "seed": case.seed, "objective": name, "converged": ok, **e})
    lines = ["Relative L2 and R_eq on independent verification points, median [Q1, Q3] over cases.", ""]
    body = []
    medians: dict[str, Any] = {}
    for name in objectives:
        mine = [r for r in rows if r["objective"] == name]
        q = quartiles([r["rel_l2"] for r in mine])
        medians[name] = q[0] if q else None
        body.append([name, len(mine), summary([r["rel_l2"] for r in mine]), summary([r["R_eq"] for r in mine]),
                     PAPER.get(name, "–")])
    lines += table(["objective", "n", "relative L2", "R_eq", "paper median rel. L2"], body)
    figures = []
    path = ctx.figure("objective.png")
    if path is not None:
        configs = list(dict.fromkeys(r["config"] for r in rows))
        xs = list(range(len(objectives)))
        series: list[Any] = [(c, [(quartiles([r["rel_l2"] for r in rows if r["config"] == c and r["objective"] == o]) or (None,))[0]
                       for o in objectives]) for c in configs]
        series.append(("median", [medians[o] for o in objectives]))
        line_chart(path, xs, series, "objective: 0 teacher-only, 1-4 mixed beta = 1, 1e2, 1e4, 1e6, 5 physics-only",
                   "relative L2 error (dimensionless)")
        figures.append(FigureRecord(path, "Relative L2 error of the same frozen topology fitted with the teacher only, "
                                          "mixed objectives of increasing physics weight beta, and the physics only."))
    notes = ["teacher surrogate: " + ("archived pre-refit expression on X_S" if ctx.bench else
                                      "reference + 1e-3 smooth relative perturbation (quick stand-in)")]
    return StudyOutput("objective", TITLE, {"betas": BETAS, "rows": rows, "medians": medians, "paper": PAPER},
                       lines, figures, notes)


def surrogate_teacher_values(problem: Problem, X: np.ndarray) -> np.ndarray:
    from desyr.studies.common import surrogate_teacher

    return surrogate_teacher(problem, X)
