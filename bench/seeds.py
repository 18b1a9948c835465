"""Robustness over seeds from a ``desyr bench`` folder: per configuration, how many seeds
recovered (refined relative L2 <= 1e-10 and verified exact), and the median and worst
end-to-end time of a run; every failure with its verdict numbers.

    desyr bench paper:... --seeds 5 --out OUT        # the runs
    .venv/bin/python bench/seeds.py OUT               # this table (markdown)
    .venv/bin/python bench/seeds.py OUT --attempts    # one row per run, with escalation attempts
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
    return ok, _total(r), why


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("bench", help="a desyr bench --out folder (bench.json)")
    ap.add_argument("--attempts", action="store_true", help="one row per run: verdict, attempts, winner's searcher")
    args = ap.parse_args()
    data = json.loads((Path(args.bench) / "bench.json").read_text())
    if args.attempts:
        attempts_table(data)
        return
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


def attempts_table(data: dict) -> None:
    print("| problem | seed | verified exact | refined rel L2 | teacher rel L2 | time, all attempts (s) "
          "| attempts (step: verdict) "
          "| proposed by | expression |")
    print("|---|---|---|---|---|---|---|---|---|")
    for run in data["runs"]:
        if "error" in run:
            print(f"| {run['spec']} | {run['seed']} | error | – | – | – | {'; '.join(run['error'])[:80]} | – | – |")
            continue
        r = run["result"]
        err = r.get("errors") or {}
        steps = ", ".join(f"{a['step']}: {'exact' if a['exact'] else 'no'}" for a in r.get("attempts") or []) or "1 (first: " \
            + ("exact" if r.get("exact") else "no") + ")"
        best = next((c for c in r.get("candidates", []) if c["id"] == r.get("selected_id")), {})
        expr = "; ".join(f"{f} = {e}" for f, e in ((r.get("exact_form") or {}).get("expressions")
                                                    or r.get("expression") or {}).items())
        print(f"| {run['spec']} | {run['seed']} | {'yes' if r.get('exact') else 'no'} | {_fmt(err.get('rel_l2'))} | "
              f"{_fmt(err.get('teacher_rel_l2'))} | {_total(r):.0f} | {steps} | "
              f"{best.get('searcher', '–')} | `{expr[:90]}` |")


def _total(result: dict) -> float:
    """End-to-end seconds of a run: every escalation attempt when there were several."""
    timings = result.get("timings") or {}
    return float(timings.get("escalation_total", timings.get("total", 0)))


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{float(v):.2e}"


if __name__ == "__main__":
    main()
