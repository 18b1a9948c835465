"""Stage-A coverage per searcher: time, pool size, and whether the pool holds a target-capable topology.

    .venv/bin/python bench/search.py [--only burgers] [--cache-dir .desyr-cache/bench]

For each problem the configured deepxde teacher is trained (or loaded from the
cache), then each searcher runs the problem's K seeded searches on the same
teacher samples. A pool is *target-capable* when at least one of its
candidates refines (Stage B, physics only) to a relative L2 error <= 1e-10.
Operon uses the problem's [search.options]; gplearn its own defaults.
"""
from __future__ import annotations

import argparse
import time

from desyr.model.loading import load_problem
from desyr.api import component, make_context, refine_pool, relative_l2
from desyr.registry import load_registry
from desyr.progress import Progress
from desyr.stages.search import SEARCH_KEYS, screen_finite, search_settings, stage_a_search
from desyr.stages.teach import attach_teacher

PROBLEMS = ["sine_poisson_1d", "burgers", "helmholtz"]
SEARCHERS = {"operon": None, "gplearn": {"generations": 20, "population_size": 1000}}


def measure(registry, name: str, searcher_name: str, options, cache_dir: str) -> dict:
    problem = load_problem(f"paper:{name}", registry)
    ctx = make_context(problem, 0, Progress(verbose=False), cache_dir=cache_dir)
    attach_teacher(registry, ctx)
    settings = search_settings(problem)
    if options is None:
        searcher = component(registry, problem, "searcher", "search", "operon", allowed=SEARCH_KEYS)
    else:
        searcher = registry.create("searcher", searcher_name, options)
    start = time.perf_counter()
    pool = stage_a_search(searcher, settings, ctx)
    seconds = time.perf_counter() - start
    refiner = component(registry, problem, "refiner", "refine", "scipy")
    refine_pool(screen_finite(pool, ctx), refiner, ctx)
    errors = [relative_l2(problem, c.expressions, ctx.points.verify) for c in pool if c.expressions]
    best = min((e for e in errors if e is not None), default=float("inf"))
    return {"seconds": seconds, "pool": len(pool), "runs": settings["runs"], "best": best,
            "capable": best <= 1e-10, "refit_s": ctx.timings.get("refine", 0.0)}


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
            print(f"| {name} | {searcher_name} | {r['runs']} | {r['seconds']:.1f} | {r['pool']} | "
                  f"{'yes' if r['capable'] else 'no'} | {r['best']:.2e} | {r['refit_s']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
