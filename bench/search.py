"""Stage-A coverage per searcher: time, pool size, and whether the pool holds a target-capable topology.

    .venv/bin/python bench/search.py [--only burgers] [--cache-dir .desyr-cache/bench]

For each problem the configured deepxde teacher is trained (or loaded from the
cache), then each searcher runs the problem's K seeded searches on the same
teacher samples. A pool is *target-capable* when at least one of its
candidates refines (Stage B, physics only) to a relative L2 error <= 1e-10.
Operon uses the problem's [search.options]; gplearn and dictionary their own
options below (the dictionary uses whatever binary operators the problem allows).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from desyr.model.candidates import Candidate
from desyr.config.loading import load_problem
from desyr.model.search import SearchTask
from desyr.runtime.progress import Progress
from desyr.extension.registry import load_registry
from desyr.config.settings import component
from desyr.stages.pool import pool_fronts, retain
from desyr.stages.refit import refine_pool, screen_finite
from desyr.stages.search import search_seeds, search_settings
from desyr.stages.search_contract import run_search
from desyr.stages.teach import teach, with_teacher
from desyr.stages.run_residuals import relative_l2
from desyr.testing import make_context

PROBLEMS = ["sine_poisson_1d", "burgers", "helmholtz"]
#: searcher -> options (None: the problem's [search.options])
SEARCHERS = {"operon": None, "gplearn": {"generations": 20, "population_size": 1000}, "dictionary": {}}


def stage_a(searcher, settings: dict, ctx, binary: list[str]) -> tuple[list[Candidate], list[dict]]:
    """The K seeded searches on the single field's teacher samples, kept and pooled as the run does."""
    problem = ctx.problem
    (field,) = problem.fields
    kept, infos = [], []
    for seed in search_seeds(ctx.seed, settings["runs"]):
        task = SearchTask(ctx.points.search, ctx.teacher_values[:, 0], list(problem.variable_names), binary,
                          list(settings["unary"]), int(settings["max_size"]), seed, dict(settings["budget"]), field)
        front, info, _ = run_search(searcher, task, problem)
        kept.append((seed, retain(front)))
        infos.append(info)
    pool = [Candidate(f"c{i}", {field: e.member.expression}, searcher=searcher.name, search_seed=e.seed,
                      search_complexity=int(e.member.complexity), search_loss=float(e.member.loss))
            for i, e in enumerate(pool_fronts(kept))]
    return pool, infos


def measure(registry, name: str, searcher_name: str, options, cache_dir: str) -> dict:
    problem = load_problem(f"paper:{name}", registry)
    ctx = make_context(problem, 0, progress=Progress(verbose=False), cache_dir=Path(cache_dir))
    ctx = with_teacher(ctx, teach(registry, ctx))
    settings = search_settings(problem)
    if options is None:
        searcher = component(registry, problem, "searcher", "search", searcher_name)
    else:
        searcher = registry.create("searcher", searcher_name, options)
    start = time.perf_counter()
    pool, infos = stage_a(searcher, settings, ctx, list(settings["binary"]))
    seconds = time.perf_counter() - start
    refiner = component(registry, problem, "refiner", "refine", "scipy")
    refine_pool(screen_finite(pool, ctx), refiner, ctx)
    errors = [relative_l2(problem, c.expressions, ctx.points.verify) for c in pool if c.expressions]
    best = min((e for e in errors if e is not None), default=float("inf"))
    label = searcher_name
    rejected = sum("rejected" in i for i in infos)
    if rejected:
        label += f" ({rejected} rejected)"
    return {"seconds": seconds, "pool": len(pool), "runs": settings["runs"], "best": best,
            "capable": best <= 1e-10, "refit_s": ctx.timings.get("refine", 0.0), "label": label}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append", help="problem name (repeatable)")
    ap.add_argument("--cache-dir", default=".desyr-cache/bench")
    args = ap.parse_args()
    registry = load_registry()
    print("| problem | searcher | K | search time (s) | pool size | target-capable in pool | best refined rel L2 | refit time (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.only or PROBLEMS:
        for searcher_name, options in SEARCHERS.items():
            r = measure(registry, name, searcher_name, options, args.cache_dir)
            print(f"| {name} | {r['label']} | {r['runs']} | {r['seconds']:.1f} | {r['pool']} | "
                  f"{'yes' if r['capable'] else 'no'} | {r['best']:.2e} | {r['refit_s']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
