"""Cost of a teacher-path attempt (issue 47, acceptance 5): teacher, search and refit seconds.

Each problem runs once, one attempt (no budget), with the exact solvers off (``[solvers] enabled =
false`` is added to a copy of its file), so the teacher path runs; the table gives the wall time and
the stages' seconds from its ``result.json`` (``timings``), the teacher's S_val and the verdict.

    python bench/attempt_cost.py [--root OLD_CHECKOUT ...] [--out DIR] [--budget S] FILE.toml ...

``--root`` runs the same files with another checkout as well (``git archive main | tar -x -C
/tmp/old``), its runs alternating with this one's problem by problem, so both sides see the same load.
``--budget`` runs each with escalation (the table then gives the attempts and their seconds too).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = [ROOT / "bench" / "attempt_cost" / n for n in ("cubic_square.toml", "gradient_square.toml",
                                                          "liouville_square.toml", "heat_kernel_plane.toml")] + \
          [ROOT / "bench" / "peers" / "ssde" / "jin1_poisson2d.toml"]


#: the bundled searchers that run first, alone, on one field (their round is the quick one)
QUICK = {"dictionary", "forms"}


def without_solvers(source: Path, folder: Path) -> Path:
    """A copy of ``source`` whose exact solvers are off."""
    text = source.read_text(encoding="utf-8")
    if "[solvers]" not in text:
        text += "\n[solvers]\nenabled = false\n"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    target.write_text(text, encoding="utf-8")
    return target


def run_one(root: Path, config: Path, out: Path, budget: float | None) -> dict:
    """One ``desyr run`` of ``config`` with the checkout ``root``; its wall time and result facts."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "plugins")]),
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    args = [sys.executable, "-m", "desyr", "run", str(config), "--out", str(out), "--no-plots", "--quiet",
            "--seed", "0", "--cache-dir", str(out.parent / "cache")]
    if budget is not None:
        args += ["--budget", str(budget)]
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=False, env=env, cwd=root)
    wall = time.perf_counter() - start
    if not (out / "result.json").is_file():
        return {"wall": wall, "error": (done.stderr or done.stdout).strip().splitlines()[-1:]}
    return {"wall": wall, **facts_of(out / "result.json")}


def facts_of(result_path: Path) -> dict:
    """The stages' seconds of a run's ``result.json``: the teachers (the anytime order's smaller one
    too), the quick searchers' rounds (their searches, refits and verdicts), the round with every
    searcher (its searches, then its refits), the teacher's S_val and the verdict."""
    r = json.loads(result_path.read_text(encoding="utf-8"))
    t = r.get("timings", {})
    facts = (r.get("teacher") or {}).get("facts", {})
    attempts = [a for a in r.get("attempts") or [] if a.get("step") != "exact_solvers"]
    quick = t.get("quick_searchers", 0.0) + t.get("early_round", 0.0)
    label = str((r.get("search") or {}).get("plugin", ""))
    searched = not set(label.split("+")) <= QUICK     # else the last round was the quick searchers' own
    return {"teacher": t.get("teacher", 0.0) + t.get("smaller_teacher", 0.0),
            "quick": quick if searched else quick + t.get("search", 0.0) + t.get("refine", 0.0),
            "search": t.get("search") if searched else 0.0, "refine": t.get("refine") if searched else 0.0,
            "total": t.get("total"), "S_val": facts.get("S_val_selected"),
            "verdict": r.get("verification", {}).get("verdict") if r.get("verification") else None,
            "exact": r.get("exact"), "expression": r.get("expression"),
            "attempts": [round(a["seconds"], 1) for a in attempts]}


def _f(value: object) -> str:
    return f"{value:.1f}" if isinstance(value, (int, float)) else "–"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--root", type=Path, action="append", default=[], help="another checkout, run the same way")
    parser.add_argument("--out", type=Path, default=Path("attempt-cost"))
    parser.add_argument("--budget", type=float, default=None)
    parser.add_argument("--read", action="store_true", help="only tabulate the runs already in --out")
    options = parser.parse_args()
    if options.read:
        return tabulate([(path.parent.name, path.parent.parent.name, {"wall": facts.get("total"), **facts})
                         for path in sorted(options.out.glob("*/*/result.json")) for facts in [facts_of(path)]],
                        sorted({p.parent.parent.name for p in options.out.glob("*/*/result.json")}))
    roots = [("this", ROOT)] + [(f"root{i}", r.resolve()) for i, r in enumerate(options.root, 1)]
    configs = [without_solvers(f.resolve(), options.out.resolve() / "problems") for f in options.files]
    rows = []
    for config in configs:
        for label, root in roots:
            row = run_one(root, config, options.out.resolve() / label / config.stem, options.budget)
            rows.append((config.stem, label, row))
            print(json.dumps({"problem": config.stem, "side": label, **row}, default=str), flush=True)
    return tabulate(rows, [label for label, _ in roots])


def tabulate(rows: list, sides: list[str]) -> int:
    print("\n| problem | side | wall s | teacher s | quick searches s | searches s | refits s | S_val | verdict "
          "| attempts (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, label, row in rows:
        attempts = ", ".join(_f(a) for a in row.get("attempts", [])) or "1"
        print(f"| {name} | {label} | {_f(row['wall'])} | {_f(row.get('teacher'))} | {_f(row.get('quick'))} | "
              f"{_f(row.get('search'))} | {_f(row.get('refine'))} | "
              f"{row['S_val']:.2g} | {row.get('verdict')} | {attempts} |" if isinstance(row.get("S_val"), float) else
              f"| {name} | {label} | {_f(row['wall'])} | error: {row.get('error')} |||||||")
    for label in sides:
        walls = [row["wall"] for _, side, row in rows if side == label and isinstance(row.get("wall"), float)]
        if walls:
            print(f"\n{label}: median wall {statistics.median(walls):.1f} s over {len(walls)} problem(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
