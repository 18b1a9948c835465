"""Benchmark of the ``deepxde`` teacher at its per-problem default budgets.

    .venv/bin/python bench/teacher.py [--only burgers] [--set key=value ...]
    .venv/bin/python bench/teacher.py --paper --set device=cuda --json cuda.json
    .venv/bin/python bench/teacher.py --paper --set device=cpu --jobs 14 --json cpu.json

``--paper`` trains the teacher of each of the paper's configurations (01-15, at
the options its file gives). ``--jobs N`` trains N teachers at once in separate
processes, each on one thread; keep it at 1 for CUDA so the timings do not
share the GPU.

Trains each teacher from scratch (a temporary cache, retrain), records the wall
time of ``prepare()`` and the teacher's relative L2 error against the reference
on the problem's verification points (the reference is used here, for the
report only, never by the teacher), and prints a markdown table next to the
paper's teacher training times.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
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


PAPER_DIR = ROOT / "plugins" / "desyr_paper" / "problems"
PAPER_SECONDS = {key: seconds for key, _, _, seconds in PROBLEMS}


def paper_problems() -> list:
    """Every paper configuration except the misspecified-library study (same teacher as 01)."""
    rows = []
    for path in sorted(PAPER_DIR.glob("[0-9]*.toml")):
        if path.stem.startswith("01m"):
            continue
        key = path.stem.split("_", 1)[1]
        rows.append((key, path, key, PAPER_SECONDS.get(key)))
    return rows


def run_one(path: Path, overrides: dict) -> dict:
    from desyr_deepxde import backend  # noqa: F401  imports DeepXDE before the clock starts
    from desyr_deepxde.plugin import DeepXDETeacher
    from desyr_deepxde.training import resolve_device

    from desyr.config.loading import load_problem_file
    from desyr.model.context import RunContext
    from desyr.model.points import make_point_sets
    from desyr.runtime.progress import Progress

    problem = load_problem_file(path)
    points = make_point_sets(problem)
    options = {**problem.sections.get("teacher", {}).get("options", {}), **overrides}
    if resolve_device(str(options.get("device", "auto"))) == "cuda":
        import torch
        torch.zeros(1, device="cuda")        # the CUDA context is made once per process, not per teacher
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
            "S_val": info["S_val_selected"], "step": info["selected_step"], "last": info["history"][-1][0],
            "device": info.get("device", "cpu")}


def _run_in_child(job: tuple) -> tuple:
    key, path, paper_name, paper_s, overrides = job
    os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = "1"
    return key, paper_name, paper_s, run_one(path, {"threads": 1, **overrides})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", help="problem key (repeatable)")
    ap.add_argument("--set", action="append", default=[], help="teacher option override key=value")
    ap.add_argument("--paper", action="store_true", help="every paper configuration, not the three above")
    ap.add_argument("--jobs", type=int, default=1, help="teachers trained at once, one thread each")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args(argv)
    overrides = {}
    for item in args.set:
        k, _, v = item.partition("=")
        try:
            overrides[k] = ast.literal_eval(v)
        except (ValueError, SyntaxError):     # a bare word: device=cuda
            overrides[k] = v
    chosen = [row for row in (paper_problems() if args.paper else PROBLEMS)
              if not args.only or row[0] in args.only]
    rows = []
    for row in _train_all(chosen, overrides, args.jobs):
        rows.append(row)
        if args.json:                # after each teacher, so a run cut short keeps what it trained
            Path(args.json).write_text(json.dumps([{"key": k, "paper": n, "paper_s": s, **r} for k, n, s, r in rows],
                                                  indent=1, default=str))
    print("| problem | teacher budget | device | wall time (s) | paper time (s) | ratio | teacher rel L2 | S_val (step) |")
    print("|---|---|---|---|---|---|---|---|")
    for key, paper_name, paper_s, r in rows:
        o = r["options"]
        act = o.get("activation", "tanh")
        budget = (f"{'x'.join(map(str, o.get('layers', [])))} {act}, {o.get('interior_points')}+{o.get('boundary_points')} pts, "
                  f"{o.get('adam_steps')} Adam + {o.get('lbfgs_steps')} L-BFGS")
        paper = f"{paper_s:g} ({paper_name}) | {r['wall'] / paper_s:.2f}" if paper_s else "– | –"
        print(f"| {key} | {budget} | {r['device']} | {r['wall']:.1f} | {paper} "
              f"| {r['rel_l2']:.2e} | {r['S_val']:.2e} ({r['step']}/{r['last']}) |")
    return 0


def _train_all(chosen: list, overrides: dict, jobs: int):
    """Rows in the order given; with jobs > 1 they train at once in spawned processes (torch does not fork well)."""
    def report(r: dict, key: str) -> None:
        print(f"{key}: {r['wall']:.1f} s on {r['device']}, rel L2 {r['rel_l2']:.2e}, S_val {r['S_val']:.2e} "
              f"(step {r['step']}/{r['last']})", file=sys.stderr, flush=True)

    if jobs <= 1:
        for key, path, paper_name, paper_s in chosen:
            r = run_one(path, overrides)
            report(r, key)
            yield key, paper_name, paper_s, r
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    jobs_list = [(*row, overrides) for row in chosen]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        for key, paper_name, paper_s, r in pool.map(_run_in_child, jobs_list):
            report(r, key)
            yield key, paper_name, paper_s, r


if __name__ == "__main__":
    raise SystemExit(main())
