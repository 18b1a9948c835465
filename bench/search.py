"""Stage-A coverage per searcher: time, pool size, and whether the pool holds a target-capable topology.

    .venv/bin/python bench/search.py [--only burgers] [--cache-dir .desyr-cache/bench]

For each problem the configured teacher (deepxde for the bundled problems) is trained
(or loaded from the cache), then each searcher runs the problem's K seeded searches on
the same teacher samples, retained and pooled as a run pools them. A pool is
*target-capable* when at least one of its candidates refines (Stage B, physics only;
every candidate refit) to a relative L2 error <= 1e-10. Operon uses the problem's
[search.options]; gplearn and dictionary their own options below (the dictionary
uses whatever binary operators the problem allows). Prints a markdown table.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from desyr.api import load_problem
from desyr.config.spec import RunSpec, read_spec
from desyr.plugin import Candidate, Refiner, Registry, Searcher, load_registry
from desyr.runtime.progress import Progress
from desyr.stages.pool import pool_searches, pooled_candidates
from desyr.stages.refit import screen_finite
from desyr.stages.run_components import component
from desyr.stages.run_residuals import relative_l2
from desyr.stages.search import search_fields
from desyr.stages.teach import make_teacher, teach, with_teacher
from desyr.testing import make_context, refit_pool
from desyr.unary.choice import start_library

PROBLEMS = ["sine_poisson_1d", "burgers", "helmholtz"]
#: searcher -> options (None: the problem's [search.options])
SEARCHERS: dict[str, dict[str, Any] | None] = {
    "operon": None, "gplearn": {"generations": 20, "population_size": 1000}, "dictionary": {}}
#: a refined relative L2 error at most this is a recovered topology
TARGET = 1e-10


def stage_a(searcher: Searcher, spec: RunSpec, ctx: Any) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """The K seeded searches on the single field's teacher samples, kept and pooled as the run does."""
    (field,) = spec.problem.fields
    outcome = search_fields([searcher], spec.search, ctx)
    pooled, info = pool_searches(outcome, spec.problem.fields, [searcher.name])
    return pooled_candidates(pooled[field], field), [run.info for run in info.runs]


def make_searcher(registry: Registry, spec: RunSpec, name: str, options: dict[str, Any] | None) -> Searcher:
    """The searcher with the problem's [search.options] (``options`` None) or with ``options``."""
    searcher = component(registry, spec, "searcher", "search", name) if options is None else \
        registry.create("searcher", name, options)
    assert isinstance(searcher, Searcher)
    return searcher


def measure(registry: Registry, name: str, searcher_name: str, options: dict[str, Any] | None,
            cache_dir: str) -> dict[str, Any]:
    problem = load_problem(f"paper:{name}", registry)
    spec, _ = start_library(read_spec(problem, registry), registry)   # the first attempt's unary library
    ctx = make_context(problem, 0, progress=Progress(verbose=False), cache_dir=Path(cache_dir))
    ctx = with_teacher(ctx, teach(registry, ctx, make_teacher(registry, spec)))
    searcher = make_searcher(registry, spec, searcher_name, options)
    start = time.perf_counter()
    pool, infos = stage_a(searcher, spec, ctx)
    seconds = time.perf_counter() - start
    refiner = component(registry, spec, "refiner", "refine", "scipy")
    assert isinstance(refiner, Refiner)
    start = time.perf_counter()
    refit_pool(screen_finite(pool, ctx), refiner, ctx)
    refit_seconds = time.perf_counter() - start
    errors = [relative_l2(problem, c.expressions, ctx.points.verify) for c in pool if c.expressions]
    best = min((e for e in errors if e is not None), default=float("inf"))
    label = searcher_name
    rejected = sum("rejected" in i for i in infos)
    if rejected:
        label += f" ({rejected} rejected)"
    return {"seconds": seconds, "pool": len(pool), "runs": spec.search.runs, "best": best,
            "capable": best <= TARGET, "refit_s": refit_seconds, "label": label}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
