"""``jacobian``: rank and conditioning of the exact refinement Jacobian at the refined solution (paper §5.3.4).

Each frozen topology is parameterized as Stage B does (``desyr.symbolic.parameterize``), solved
physics-only from its search constants, and the exact dF/da (``ResidualSystem.jacobian``)
is audited by SVD: numerical rank (tolerance max(sigma) x max(n, p) x eps), sigma_min and
condition number.  Topologies without free constants are listed as zero-parameter runs.
"""
from __future__ import annotations

from typing import Any

from desyr.report.charts import bar_chart
from desyr.report.figures import FigureRecord
from desyr.studies.common import StudyContext, StudyOutput, context, frozen_cases, quartiles, summary, table
from desyr.studies.least_squares import freeze, jacobian_audit, physics_only

TITLE = "Rank and conditioning diagnostics"
PAPER = "13 scalar fixed-topology expressions with free coefficients, all full column rank; condition numbers " \
        "from 1 to 9.58e4 (Euler-Bernoulli)"


def run(ctx: StudyContext) -> StudyOutput:
    rows: list[dict[str, Any]] = []
    for case in frozen_cases(ctx):
        rctx = context(case.problem, case.seed)
        fz = freeze(case.problem, case.expression, rctx.points, rctx.constraint_weight)
        if not fz.param.symbols:
            rows.append({"config": case.label, "seed": case.seed, "parameters": 0})
            continue
        x, ok = physics_only(fz, fz.param.values)
        rows.append({"config": case.label, "seed": case.seed, "converged": ok, "params": [float(v) for v in x],
                     **jacobian_audit(fz, x)})
    configs = list(dict.fromkeys(r["config"] for r in rows))
    body = []
    for c in configs:
        mine = [r for r in rows if r["config"] == c]
        free = [r for r in mine if r["parameters"]]
        body.append([c, len(mine), len(free), sum(bool(r.get("full_rank")) for r in free), len(mine) - len(free),
                     summary([r["sigma_min"] for r in free]), summary([r["condition"] for r in free])])
    lines = table(["problem", "runs", "free-param. runs", "full-rank runs", "zero-param. runs", "sigma_min",
                   "condition number"], body)
    free = [r for r in rows if r["parameters"]]
    lines += ["", f"{sum(bool(r['full_rank']) for r in free)} of {len(free)} audited Jacobians with free "
                  f"coefficients have full column rank. Paper: {PAPER}."]
    figures = []
    path = ctx.figure("jacobian.png")
    if path is not None and free:
        names = [c for c in configs if any(r["config"] == c and r["parameters"] for r in rows)]
        cond = [(quartiles([r["condition"] for r in free if r["config"] == c]) or (1.0,))[0] for c in names]
        bar_chart(path, names, [("condition number", cond)], "condition number of dF/da (dimensionless)", logy=True)
        figures.append(FigureRecord(path, "Condition number of the exact refinement Jacobian at the refined "
                                          "coefficients, median over seeds per configuration."))
    return StudyOutput("jacobian", TITLE, {"rows": rows, "full_rank": sum(bool(r["full_rank"]) for r in free),
                                           "audited": len(free), "paper": PAPER}, lines, figures)
