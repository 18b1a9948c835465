"""``gates``: replay frozen candidate pools with one Stage-C gate removed at a time (paper §5.4.1).

Each pool is rebuilt from result.json's candidate records with their recorded refined
expressions, status and selection quantities (eps_T, Phi); nothing is refit.  The gates
are the config's sequence; a tie left after the remaining gates goes to the paper's
preference order, or, when the complexity gate is the one removed, to the smallest Phi.
A crafted pool (a converged exact candidate beside an unconverged near-miss that wins
every later gate) is replayed too, so the convergence gate's role shows on any bench.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from desyr.config.spec import read_spec
from desyr.extension.registry import Registry
from desyr.extension.roles import Gate
from desyr.model.candidates import Candidate, RefitOutcome
from desyr.model.context import RunContext
from desyr.model.problem import Problem
from desyr.report.charts import bar_chart
from desyr.report.figures import FLOOR, FigureRecord
from desyr.stages.run_components import gate_sequence
from desyr.stages.select import apply_gate, preference_key
from desyr.studies.common import (
    StudyContext,
    StudyOutput,
    archived_runs,
    candidate_from_record,
    context,
    errors,
    fmt,
    problem_of,
    table,
)

TITLE = "Stage-C selection-gate ablation"
PAPER = "60 pools; without the convergence gate 1 selection changes and the worst rel. L2 rises from 1.16e-13 " \
        "to 4.29e-3; without the complexity gate 12 selections change, worst error unchanged"


def select(pool: list[Candidate], gates: list[Gate], rctx: RunContext) -> Candidate | None:
    survivors = [c for c in pool if c.expressions]
    for gate in gates:
        survivors = list(apply_gate(gate, survivors, rctx).kept)
    if len(survivors) > 1:
        if any(g.ranks_by_complexity for g in gates):
            survivors.sort(key=preference_key)
        else:
            survivors.sort(key=lambda c: (c.phi, c.eps_T if c.eps_T is not None else 0.0, c.complexity))
    return survivors[0] if survivors else None


def replay(label: str, problem: Problem, pool: list[Candidate], seed: int, registry: Registry) -> dict[str, Any]:
    rctx = context(problem, seed)
    if any(c.eps_T is not None for c in pool):
        # the recorded eps_T are used; this only tells the teacher gate that the run had a teacher
        rctx = replace(rctx, teacher_values=np.zeros((len(rctx.points.search), len(problem.fields))))
    gates = [g for g in gate_sequence(registry, read_spec(problem, registry)) if isinstance(g, Gate)]
    l2: dict[str, float | None] = {}
    variants: dict[str, Any] = {}
    out = {"pool": label, "size": len(pool), "variants": variants}
    for removed in [None] + [g.name for g in gates]:
        chosen = select(pool, [g for g in gates if g.name != removed], rctx)
        if chosen is not None and chosen.id not in l2:
            l2[chosen.id] = errors(problem, chosen.expressions, seed)["rel_l2"]
        variants[removed or "full"] = {
            "selected": chosen.id if chosen else None, "rel_l2": l2.get(chosen.id) if chosen else None,
            "complexity": chosen.complexity if chosen else None, "converged": chosen.converged if chosen else None}
    return out


def crafted_pool(problem: Problem) -> list[Candidate]:
    """sin(pi x) problem: c0 converged and exact; c1 unconverged, same complexity, smaller eps_T and Phi."""
    def cand(i: str, text: str, status: str, eps: float, phi: float) -> Candidate:
        c = Candidate(i, {problem.fields[0]: problem.parse(text)}, search_seed=0)
        c.refit = RefitOutcome({}, status, status == "converged")
        c.expressions = {problem.fields[0]: problem.parse(text)}
        c.eps_T, c.phi, c.rho_r, c.rho_c = eps, phi, phi, 0.0
        return c
    return [cand("c0", "sin(3.141592653589793*x)", "converged", 2e-4, 1e-13),
            cand("c1", "sin(3.1415*x)", "not_converged", 1e-5, 5e-11)]


def run(ctx: StudyContext) -> StudyOutput:
    assert ctx.bench is not None
    registry = ctx.reg()
    pools, problems = [], {}
    for arch in archived_runs(ctx.bench):
        if len(arch.result.problem.fields) != 1 or not arch.result.candidates:
            continue
        if arch.config not in problems:
            problems[arch.config] = problem_of(arch, registry, ctx.bench)
        problem = problems[arch.config]
        pool = [candidate_from_record(problem, rec) for rec in arch.result.candidates]
        pools.append(replay(f"{arch.config} seed {arch.seed}", problem, pool, arch.result.seed, registry))
    from desyr.studies.common import quick_problem

    sine = quick_problem("sine_poisson_1d", registry)
    crafted = replay("crafted", sine, crafted_pool(sine), 0, registry)
    variants = list(pools[0]["variants"]) if pools else list(crafted["variants"])
    summary = {}
    for v in variants:
        changed = sum(p["variants"][v]["selected"] != p["variants"]["full"]["selected"] for p in pools)
        worst = max((p["variants"][v]["rel_l2"] for p in pools if p["variants"][v]["rel_l2"] is not None),
                    default=None)
        summary[v] = {"changed": changed, "worst_rel_l2": worst}
    body = [[("all gates" if v == "full" else f"without {v}"), len(pools), summary[v]["changed"],
             fmt(summary[v]["worst_rel_l2"]), fmt(crafted["variants"][v]["rel_l2"]) if v in crafted["variants"]
             else "–"] for v in variants]
    lines = table(["sequence", "pools", "selections changed", "worst selected rel. L2", "crafted pool rel. L2"], body)
    lines += ["", f"Paper: {PAPER}."]
    figures = []
    path = ctx.figure("gates.png")
    if path is not None:
        worst = [max(summary[v]["worst_rel_l2"] or FLOOR, FLOOR) for v in variants]
        crafted_w = [max(crafted["variants"].get(v, {}).get("rel_l2") or FLOOR, FLOOR) for v in variants]
        bar_chart(path, [("all gates" if v == "full" else f"without {v}") for v in variants],
                  [("worst over bench pools", worst), ("crafted pool", crafted_w)],
                  "selected relative L2 (dimensionless)", logy=True)
        figures.append(FigureRecord(path, "Worst selected relative L2 error with the full gate sequence and with "
                                          "one gate removed at a time (floor 1e-18)."))
    data = {"pools": pools, "crafted": crafted, "summary": summary, "paper": PAPER}
    return StudyOutput("gates", TITLE, data, lines, figures)
