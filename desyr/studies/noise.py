"""``noise``: Gaussian noise on the prescribed constraint values, frozen topologies (paper Appendix C).

The equation stays exact; each constraint block's prescribed values g get independent
N(0, sigma^2) noise with sigma = eta max(RMS(g), 1).  The frozen target-capable topology
is refit physics-only (lambda_c = 100) from its search constants; errors are against the
unperturbed reference, R_eq with the unperturbed equation on independent points.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from desyr.model.problem import Problem
from desyr.report.charts import line_chart
from desyr.report.figures import FigureRecord
from desyr.studies.common import StudyContext, StudyOutput, context, errors, frozen_cases, quartiles, summary, table
from desyr.studies.least_squares import NoisyConstraints, freeze, physics_only
from desyr.symbolic.numeric import evaluate

TITLE = "Sensitivity to perturbations in prescribed constraints"
LEVELS = [0.0, 1e-6, 1e-4, 1e-2]
CONFIGS = ["multifreq_poisson", "helmholtz", "burgers"]
PAPER = "48 refits (3 problems x 3 levels x 5 draws + 3 clean), all converged; median rel. L2 at eta = 1e-2: " \
        "6.20e-4 (Multifreq. Poisson), 3.68e-7 (Helmholtz), 7.20e-4 (Burgers)"


def run(ctx: StudyContext) -> StudyOutput:
    draws = 2 if ctx.quick else 5
    rows: list[dict[str, Any]] = []
    for case in frozen_cases(ctx, None if ctx.bench else CONFIGS):
        rctx = context(case.problem, case.seed)
        fz = freeze(case.problem, case.expression, rctx.points, rctx.constraint_weight)
        if not fz.param.symbols:
            continue
        fz.system.__class__ = NoisyConstraints        # same blocks and lambdified functions, noisy data
        g = _prescribed(case.problem, rctx.points.constraints)
        for level in LEVELS:
            for draw in range(1 if level == 0 else draws):
                rng = np.random.default_rng([case.seed, draw, int(-np.log10(level)) if level else 99])
                noise: list[Any] = [None] * sum(b.kind == "equation" for b in fz.system.blocks)
                noise += [level * max(float(np.sqrt(np.mean(v ** 2))), 1.0) * rng.standard_normal(len(v)) for v in g]
                fz.system.noise = noise  # type: ignore[attr-defined]
                fz.system._cache_key = None
                x, ok = physics_only(fz, fz.param.values)
                e = errors(case.problem, fz.expressions(x), case.seed)
                rows.append({"config": case.label, "seed": case.seed, "level": level, "draw": draw,
                             "converged": ok, **e})
    configs = list(dict.fromkeys(r["config"] for r in rows))
    body = []
    for c in configs:
        for level in LEVELS:
            mine = [r for r in rows if r["config"] == c and r["level"] == level]
            body.append([c, f"{level:g}", len(mine), sum(r["converged"] for r in mine),
                         summary([r["rel_l2"] for r in mine]), summary([r["R_eq"] for r in mine])])
    lines = table(["problem", "eta", "refits", "converged", "relative L2", "R_eq"], body)
    lines += ["", f"{sum(r['converged'] for r in rows)} of {len(rows)} refits converged. Paper: {PAPER}."]
    medians: dict[str, list[Any]] = {c: [(quartiles([r["rel_l2"] for r in rows if r["config"] == c and r["level"] == lv]) or (None,))[0]
                   for lv in LEVELS] for c in configs}
    figures = []
    path = ctx.figure("noise.png")
    if path is not None and rows:
        xs = [lv if lv else 1e-8 for lv in LEVELS]
        line_chart(path, xs, [(c, [v if v is not None else np.nan for v in medians[c]]) for c in configs],
                   "noise level eta (dimensionless; clean run at 1e-8)", "median relative L2 (dimensionless)", logx=True)
        figures.append(FigureRecord(path, "Median relative L2 error of physics-only refits against the noise level "
                                          "on the prescribed constraint values (clean baseline drawn at 1e-8)."))
    return StudyOutput("noise", TITLE, {"levels": LEVELS, "rows": rows, "medians": medians, "paper": PAPER},
                       lines, figures)


def _prescribed(problem: Problem, constraint_points: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The prescribed value g of each constraint at its refinement points."""
    return [np.broadcast_to(evaluate(c.value, problem.symbols, X), (len(X),)).astype(float)
            for c, X in zip(problem.constraints, constraint_points)]


