"""Executor scaling: bench wall time per executor, Klein-Gordon's search stage on 1 vs 2 workers,
and the cost model's prediction for a finished bench.

    PY=/work/main/.venv/bin/python
    $PY bench/scaling.py bench  --out /tmp/scaling [--workers 2] [--cold] [--problems a b ...]
    $PY bench/scaling.py search --out /tmp/scaling [--runs 10] [--workers 1 2]
    $PY bench/scaling.py predict /tmp/scaling/bench-serial [--workers 1 2 4 8]

``bench`` runs the same 6-configuration bench with ``serial``, ``processes`` and ``dask``
(embedded LocalCluster) side by side. Teachers are trained once first (a warm-up bench)
and the cache is copied into each timed bench, so the table compares execution, not
training (``--cold``: train in every bench). ``search`` loads (or trains once) Klein-Gordon's
teacher, then times only the K seeded searches per worker count. ``predict`` reads a finished
bench's run times and stored unit times and prints the LPT prediction for N workers.
Every command prints a markdown table.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from desyr.runtime.scaling import speedup_table

CHEAP = ["sine_poisson_1d", "fokker_planck_1", "fokker_planck_2", "fokker_planck_3", "diffusion", "param_poisson"]
EXECUTORS = ["serial", "processes", "dask"]


def _bench(out: Path, problems: list[str], executor: str, workers: int) -> float:
    cmd = [sys.executable, "-m", "desyr", "bench", *problems, "--out", str(out), "--quiet",
           "--executor", executor, "--workers", str(workers)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=dict(os.environ))
    return time.perf_counter() - start


def bench_command(args) -> None:
    out = Path(args.out)
    if not args.cold:
        print(f"warm-up (teachers trained once, serial) in {out / 'warm'} ...", file=sys.stderr)
        _bench(out / "warm", args.problems, "serial", 1)
    rows = []
    for executor in EXECUTORS:
        where = out / f"bench-{executor}"
        shutil.rmtree(where, ignore_errors=True)
        if not args.cold:
            shutil.copytree(out / "warm" / "cache", where / "cache")
        workers = 1 if executor == "serial" else args.workers
        rows.append((executor, workers, _bench(where, args.problems, executor, workers)))
    base = rows[0][2]
    print(f"\n{len(args.problems)} configurations ({', '.join(args.problems)}), "
          f"{'cold' if args.cold else 'cached'} teachers\n")
    print("| executor | workers | wall s | speed-up |\n|---|---|---|---|")
    for executor, workers, seconds in rows:
        print(f"| {executor} | {workers} | {seconds:.1f} | {base / seconds:.2f} |")


def search_command(args) -> None:
    from desyr.api import load_problem
    from desyr.config.spec import read_spec
    from desyr.plugin import load_registry
    from desyr.runtime.execution import Units, make_executor
    from desyr.runtime.progress import Progress
    from desyr.stages.run_components import component
    from desyr.stages.search import search_fields
    from desyr.stages.teach import make_teacher, teach, with_teacher
    from desyr.testing import make_context
    from desyr.unary.choice import start_library

    registry = load_registry()
    problem = load_problem(f"paper:{args.problem}", registry)
    spec, _ = start_library(read_spec(problem, registry), registry)    # the first attempt's unary library
    settings = replace(spec.search, runs=args.runs)
    searcher = component(registry, spec, "searcher", "search")         # the configured (first) searcher
    rows = []
    for workers in args.workers:
        executor = make_executor(registry, spec, "processes", workers)
        ctx = make_context(problem, 0, progress=Progress(verbose=False), cache_dir=Path(args.out) / "cache",
                           units=Units(executor))
        ctx = with_teacher(ctx, teach(registry, ctx, make_teacher(registry, spec)))   # trained once, then loaded
        with executor:
            if workers > 1:
                executor.map(abs, [0, 1])             # start the workers outside the timing (start-up reported apart)
            start = time.perf_counter()
            outcome = search_fields([searcher], settings, ctx)
            seconds = time.perf_counter() - start
        units = [run.seconds for run in outcome.info.runs]
        rows.append((workers, seconds, sum(units), units))
    base = rows[0][1]
    print(f"\n{args.problem}: K = {args.runs} {searcher.name} searches, teacher cached\n")
    print("| workers | search stage s | sum of search s | speed-up | LPT prediction s |\n|---|---|---|---|---|")
    for workers, seconds, total, units in rows:
        predicted = speedup_table(units or [0.0], [workers])[0][1] if units else float("nan")
        print(f"| {workers} | {seconds:.1f} | {total:.1f} | {base / seconds:.2f} | {predicted:.1f} |")


def predict_command(args) -> None:
    from desyr.runtime.store import unit_seconds

    folder = Path(args.folder)
    data = json.loads((folder / "bench.json").read_text(encoding="utf-8"))
    runs = [r["result"]["timings"].get("total", 0.0) for r in data["runs"] if "result" in r]
    units = unit_seconds(folder)
    print(f"\n{folder}: {len(runs)} runs (bench units), {len(units)} stored run units\n")
    print("| workers | bench: predicted s | speed-up | run units: predicted s | speed-up |\n|---|---|---|---|---|")
    for (w, tb, sb), (_, tu, su) in zip(speedup_table(runs or [0.0], args.workers, startup_seconds=args.startup),
                                        speedup_table(units or [0.0], args.workers, startup_seconds=args.startup)):
        print(f"| {w} | {tb:.1f} | {sb:.2f} | {tu:.1f} | {su:.2f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bench")
    b.add_argument("--out", required=True)
    b.add_argument("--workers", type=int, default=2)
    b.add_argument("--cold", action="store_true")
    b.add_argument("--problems", nargs="+", default=[f"paper:{n}" for n in CHEAP])
    s = sub.add_parser("search")
    s.add_argument("--out", required=True)
    s.add_argument("--problem", default="klein_gordon")
    s.add_argument("--runs", type=int, default=10)
    s.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    r = sub.add_parser("predict")
    r.add_argument("folder")
    r.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    r.add_argument("--startup", type=float, default=3.0, help="seconds to start the workers")
    args = p.parse_args()
    {"bench": bench_command, "search": search_command, "predict": predict_command}[args.command](args)


if __name__ == "__main__":
    main()
