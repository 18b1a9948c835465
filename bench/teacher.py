"""Benchmark of the ``deepxde`` teacher at its per-problem default budgets.

    .venv/bin/python bench/teacher.py [--only burgers] [--set key=value ...]

Trains each teacher from scratch (a temporary cache, retrain), records the wall
time of ``prepare()`` and the teacher's relative L2 error against the reference
on the problem's verification points (the reference is used here, for the
report only, never by the teacher), and prints a markdown table next to the
paper's teacher training times.
"""
from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

PROBLEMS = [
    # (key, config, paper problem, paper teacher seconds)
    ("sine_poisson_1d", ROOT / "plugins" / "desyr_paper" / "problems" / "05_sine_poisson_1d.toml", "Param. Poisson", 22.8),
    ("burgers", ROOT / "plugins" / "desyr_paper" / "problems" / "13_burgers.toml", "Burgers", 225.0),
    ("helmholtz", ROOT / "plugins" / "desyr_paper" / "problems" / "11_helmholtz.toml", "Helmholtz", 743.0),
]


def run_one(path: Path, overrides: dict) -> dict:
    from desyr.config.loading import load_problem_file
    from desyr.model.context import RunContext
    from desyr.model.points import make_point_sets
    from desyr.runtime.progress import Progress
    from desyr_deepxde.plugin import DeepXDETeacher

    problem = load_problem_file(path)
    points = make_point_sets(problem)
    options = {**problem.sections.get("teacher", {}).get("options", {}), **overrides}
    with tempfile.TemporaryDirectory() as tmp:
        context = RunContext(problem, points, cache_dir=Path(tmp), retrain=True, progress=Progress())
        t0 = time.perf_counter()
        model = DeepXDETeacher(**options).prepare(problem, context)
        wall = time.perf_counter() - t0
    X = points.verify
    ref = problem.evaluate_reference(X)
    pred = model.predict(X)
    rel = float(np.linalg.norm(pred - ref) / np.linalg.norm(ref))
    info = model.info()
    return {"wall": wall, "train": info["train_seconds"], "rel_l2": rel, "options": options,
            "S_val": info["S_val_selected"], "step": info["selected_step"], "last": info["history"][-1][0]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", help="problem key (repeatable)")
    ap.add_argument("--set", action="append", default=[], help="teacher option override key=value")
    args = ap.parse_args(argv)
    overrides = {}
    for item in args.set:
        k, _, v = item.partition("=")
        overrides[k] = ast.literal_eval(v)
    rows = []
    for key, path, paper_name, paper_s in PROBLEMS:
        if args.only and key not in args.only:
            continue
        r = run_one(path, overrides)
        rows.append((key, paper_name, paper_s, r))
        print(f"{key}: {r['wall']:.1f} s, rel L2 {r['rel_l2']:.2e}, S_val {r['S_val']:.2e} "
              f"(step {r['step']}/{r['last']})", file=sys.stderr, flush=True)
    print("| problem | teacher budget | wall time (s) | paper time (s) | ratio | teacher rel L2 | S_val (step) |")
    print("|---|---|---|---|---|---|---|")
    for key, paper_name, paper_s, r in rows:
        o = r["options"]
        act = o.get("activation", "tanh")
        budget = (f"{'x'.join(map(str, o.get('layers', [])))} {act}, {o.get('interior_points')}+{o.get('boundary_points')} pts, "
                  f"{o.get('adam_steps')} Adam + {o.get('lbfgs_steps')} L-BFGS")
        print(f"| {key} | {budget} | {r['wall']:.1f} | {paper_s:g} ({paper_name}) | {r['wall'] / paper_s:.2f} "
              f"| {r['rel_l2']:.2e} | {r['S_val']:.2e} ({r['step']}/{r['last']}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
