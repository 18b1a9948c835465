"""``library``: misspecified and enriched operator libraries, with the raw-front audit (paper §5.3.5).

For each setting (problem, unary library, K), each teacher gets K seeded searches with
that library, then retention, pooling, Stage B and Stage C as in ``desyr run``.  The
raw-front audit asks whether any raw front member, and any retained pool member, belongs
to the problem's target family (e.g. C sin(a x + b) sin(c y + d) + e for Helmholtz).

Teachers: from ``--bench``, each archived run's teacher from the bench's cache (frozen
teachers).  With ``--quick``, a stand-in teacher on X_S: the reference plus a smooth 1e-4
relative perturbation (no network), with the config's searcher on a tiny budget.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import sympy as sp

from desyr.config.spec import read_spec
from desyr.extension.roles import Gate
from desyr.model.context import RunContext
from desyr.model.problem import Problem
from desyr.model.search import SearchTask
from desyr.stages.pool import pool_fronts, pooled_candidates, retain
from desyr.stages.refit import refine_pool, screen_finite
from desyr.stages.run_components import gate_sequence, searchers
from desyr.stages.search import round_centres, search_seeds
from desyr.stages.search_contract import run_search
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
    quick_problem,
    refiner,
    surrogate_teacher,
    table,
)
from desyr.symbolic.expressions import expression_text

TITLE = "Operator-library misspecification and enrichment"
ENRICHED = ["sin", "cos", "exp", "tanh"]
#: (config, unary library, binary, K, label)
SETTINGS = [
    ("param_poisson", [], ["+", "-", "*"], 2, "misspecified (polynomial)"),
    ("sine_poisson_1d", ["sin"], None, 2, "baseline"),
    ("sine_poisson_1d", ENRICHED, None, 2, "enriched"),
    ("burgers", ["tanh"], None, 2, "baseline"),
    ("burgers", ["tanh", "sin", "cos", "exp"], None, 2, "enriched"),
    ("helmholtz", ["sin"], None, 2, "baseline"),
    ("helmholtz", ENRICHED, None, 2, "enriched"),
    ("helmholtz", ENRICHED, None, 5, "enriched"),
]
QUICK = [s for s in SETTINGS if s[0] in ("param_poisson", "sine_poisson_1d")]
#: target families: the function, and the variables of each factor's affine argument
FAMILIES = {"sine_poisson_1d": (sp.sin, [{"x"}]), "param_poisson": (sp.sin, [{"x"}]),
            "burgers": (sp.tanh, [{"x", "t"}]), "helmholtz": (sp.sin, [{"x"}, {"y"}])}
PAPER = "Sine-Poisson 5/5 -> 5/5; Burgers 4/5 -> 3/5; Helmholtz baseline 5/5, enriched 2/5 at K=2 and 5/5 at K=5 " \
        "(raw fronts 5/5, 2/5, 5/5); polynomial library on Param. Poisson: R_eq 6.31e-2, rel. L2 5.36e-4"


#: --quick: a tiny search budget in the generic keys every searcher maps to its own options
QUICK_BUDGET = {"iterations": 20, "time_limit": 0}


def in_family(expr: sp.Expr, config: str) -> bool:
    """C f(affine) ... f(affine) + e with one factor per variable group (constants free)."""
    if config not in FAMILIES:
        return False
    func, groups = FAMILIES[config]
    terms = [t for t in sp.Add.make_args(sp.expand_mul(expr, deep=False)) if t.free_symbols]
    if len(terms) != 1:
        return False
    factors = [f for f in sp.Mul.make_args(terms[0]) if f.free_symbols]
    if len(factors) != len(groups) or not all(isinstance(f, func) for f in factors):
        return False
    seen = []
    for f in factors:
        arg = f.args[0]
        names = {s.name for s in arg.free_symbols}
        if sp.Poly(arg, *sorted(arg.free_symbols, key=str)).total_degree() > 1:
            return False
        seen.append(names)
    return sorted(map(sorted, seen)) == sorted(map(sorted, groups))


def _safe_family(expr: sp.Expr, config: str) -> bool:
    try:
        return in_family(expr, config)
    except (sp.PolynomialError, sp.GeneratorsNeeded, TypeError, ValueError):
        return False


def _teachers(ctx: StudyContext, config: str) -> Iterator[tuple[int, Problem, RunContext]]:
    """(seed, problem, run context with teacher values) per teacher."""
    registry = ctx.reg()
    if ctx.bench is None:
        problem = quick_problem(config, registry)
        for seed in range(2 if ctx.quick else 5):
            rctx = context(problem, seed)
            rctx = replace(rctx, teacher_values=surrogate_teacher(problem, rctx.points.search, 1e-4)[:, None])
            yield seed, problem, rctx
        return
    for arch in archived_runs(ctx.bench):
        if arch.config != config and arch.result.problem.name != config:
            continue
        problem = problem_of(arch, registry, ctx.bench)
        rctx, note = attach_archived_teacher(arch, problem, ctx, context(problem, arch.result.seed))
        if note is None:
            yield arch.result.seed, problem, rctx


def run(ctx: StudyContext) -> StudyOutput:
    registry = ctx.reg()
    rows: list[dict[str, Any]] = []
    for config, unary, binary, k, label in QUICK if ctx.quick else SETTINGS:
        for seed, problem, rctx in _teachers(ctx, config):
            spec = read_spec(problem, registry)
            # the searcher and its options are the config's own; --quick shrinks them by the generic budget
            searcher: Any = searchers(registry, spec)[0]
            budget = QUICK_BUDGET if ctx.quick else {}
            bins = binary or list(spec.search.binary or ["+", "-", "*", "/"])
            kept, raw_hit = [], False
            teacher = rctx.teacher_values
            assert teacher is not None      # _teachers yields contexts with teacher values
            for s in search_seeds(seed, k):
                task = SearchTask(rctx.points.search, teacher[:, 0], list(problem.variable_names), bins,
                                  list(unary), spec.search.max_size, s, budget, problem.fields[0],
                                  problem.time, round_centres(problem))
                front, _, _ = run_search(searcher, task, problem)
                raw_hit |= any(_safe_family(m.expression, config) for m in front)
                kept.append((s, retain(front)))
            pool = pooled_candidates(pool_fronts(kept, searcher.name), problem.fields[0])
            pool_hit = any(_safe_family(c.search_expressions[problem.fields[0]], config) for c in pool)
            refine_pool(screen_finite(pool, rctx), refiner(registry, problem, **({"timeout": 5.0} if ctx.quick
                                                                                 else {})), rctx)
            from desyr.stages.select import run_gates

            chosen = run_gates(pool, [g for g in gate_sequence(registry, spec) if isinstance(g, Gate)], rctx).selected
            e = errors(problem, chosen.expressions if chosen else None, seed)
            refits = [c for c in pool if c.refit and c.refit.initial]
            rows.append({"config": config, "library": unary, "K": k, "setting": label, "seed": seed,
                         "raw_front_hit": raw_hit, "pool_hit": pool_hit,
                         "selected": str(expression_text(chosen.expressions[problem.fields[0]]))
                         if chosen and chosen.expressions else None,
                         "recovered": e["rel_l2"] is not None and e["rel_l2"] <= RECOVERED, **e,
                         "refits": len(refits), "converged_refits": sum(c.converged for c in refits)})
    body = []
    keys = list(dict.fromkeys((r["config"], tuple(r["library"]), r["K"], r["setting"]) for r in rows))
    for config, lib, k, label in keys:
        mine = [r for r in rows if (r["config"], tuple(r["library"]), r["K"]) == (config, lib, k)]
        n = len(mine)
        body.append([config, label, "{" + ", ".join(lib) + "}", k, f"{sum(r['recovered'] for r in mine)}/{n}",
                     f"{sum(r['raw_front_hit'] for r in mine)}/{n}", f"{sum(r['pool_hit'] for r in mine)}/{n}",
                     f"{sum(r['converged_refits'] for r in mine)}/{sum(r['refits'] for r in mine)}",
                     fmt(max((r["R_eq"] or 0.0 for r in mine), default=0.0))])
    lines = table(["problem", "setting", "unary library", "K", "recovery", "raw fronts with target family",
                   "retained pools with target family", "converged/total refits", "worst R_eq"], body)
    lines += ["", f"Paper: {PAPER}."]
    figures = []
    path = ctx.figure("library.png")
    if path is not None and body:
        from desyr.report.charts import bar_chart
        from desyr.report.figures import FigureRecord

        labels = [f"{c} {lab} K={k}" for c, _, k, lab in keys]
        bar_chart(path, labels, [("recovered", [sum(r["recovered"] for r in rows if (r["config"], tuple(r["library"]),
                                                                                      r["K"]) == (c, lib, k))
                                                for c, lib, k, _ in keys]),
                                 ("raw front has target family", [sum(r["raw_front_hit"] for r in rows if (
                                     r["config"], tuple(r["library"]), r["K"]) == (c, lib, k)) for c, lib, k, _ in keys])],
                  "teacher instances (count)")
        figures.append(FigureRecord(path, "Recovered teachers and teachers whose raw Pareto fronts contain a target-"
                                          "family candidate, per library setting."))
    return StudyOutput("library", TITLE, {"rows": rows, "paper": PAPER}, lines, figures)
