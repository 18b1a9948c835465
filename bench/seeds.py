"""Robustness over seeds from a ``desyr bench`` folder: per configuration, how many seeds
recovered (refined relative L2 <= 1e-10 and verified exact), and the median and worst
end-to-end time of a run; every failure with its verdict numbers.

    desyr bench paper:... --seeds 5 --out OUT        # the runs
    .venv/bin/python bench/seeds.py OUT               # this table (markdown)
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

RECOVERED = 1e-10


def _row(run: dict) -> tuple[bool, float | None, str]:
    if "error" in run:
        return False, None, "; ".join(run["error"])[:120]
    r = run["result"]
    rel = (r.get("errors") or {}).get("rel_l2")
    ok = bool(r.get("exact")) and rel is not None and float(rel) <= RECOVERED
    res = r.get("residuals") or {}
    why = "" if ok else f"rel L2 {rel}, R_eq {res.get('R_eq')}, R_con {res.get('R_con')}, teacher rel L2 " \
                        f"{(r.get('errors') or {}).get('teacher_rel_l2')}"
    return ok, (r.get("timings") or {}).get("total"), why


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("bench", help="a desyr bench --out folder (bench.json)")
    args = ap.parse_args()
    data = json.loads((Path(args.bench) / "bench.json").read_text())
    by_spec: dict[str, list[tuple[int, bool, float | None, str]]] = {}
    for run in data["runs"]:
        by_spec.setdefault(run["spec"], []).append((run["seed"], *_row(run)))
    print("| configuration | recovered | median time (s) | worst time (s) |")
    print("|---|---|---|---|")
    failures = []
    for spec, rows in by_spec.items():
        times = [t for _, _, t, _ in rows if t is not None]
        ok = sum(1 for _, k, _, _ in rows if k)
        med = f"{statistics.median(times):.1f}" if times else "–"
        worst = f"{max(times):.1f}" if times else "–"
        print(f"| {spec} | {ok}/{len(rows)} | {med} | {worst} |")
        failures += [f"- {spec} seed {seed}: {why}" for seed, k, _, why in rows if not k]
    total = sum(len(r) for r in by_spec.values())
    good = sum(1 for r in by_spec.values() for _, k, _, _ in r if k)
    print(f"\n**{good} of {total} runs recovered.**")
    if failures:
        print("\nFailures:\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
