"""``--budget B`` is a wall (issue 22, acceptance 5): every problem of a set, one run each, timed.

For each problem: ``python -m desyr run SPEC --budget B --out DIR`` (default settings otherwise),
its wall time from start to exit, whether ``DIR/result.json`` exists, the verifier's verdict and
where the time went (stage 0, teacher, searches, Stage B).  A row passes when the command exits 0
with a result file within ``B + slack`` seconds (10).  Markdown table on stdout and in ``--out``.

    .venv/bin/python bench/budget.py --set examples --budget 120 --out runs/budget/examples.md
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def specs(which: str) -> list[str]:
    from desyr.bench.suite import resolve_names
    from desyr.extension.registry import load_registry

    return list(resolve_names(load_registry(), [], True, which))


def one(spec: str, budget: float, out: Path, kill_after: float) -> dict:
    folder = out / spec.replace(":", "_")
    cmd = [sys.executable, "-m", "desyr", "run", spec, "--budget", str(budget), "--out", str(folder), "--quiet"]
    start = time.perf_counter()
    try:
        code = subprocess.run(cmd, capture_output=True, text=True, timeout=kill_after).returncode
    except subprocess.TimeoutExpired:
        code = None
    seconds = time.perf_counter() - start
    row = {"problem": spec, "seconds": seconds, "exit": code, "result": (folder / "result.json").is_file()}
    if row["result"]:
        data = json.loads((folder / "result.json").read_text())
        t = data.get("timings") or {}
        row.update(verdict=(data.get("verification") or {}).get("verdict"), attempts=len(data.get("attempts") or []),
                   stage0=(data.get("attempts") or [{}])[0].get("seconds") if data.get("attempts") else None,
                   teacher=t.get("teacher"), search=t.get("search"), refine=t.get("refine"),
                   source=(data.get("attempts") or [{}])[-1].get("searchers"))
    return row


def table(rows: list[dict], budget: float, slack: float) -> str:
    def num(v: object) -> str:
        return f"{v:.1f}" if isinstance(v, (int, float)) else "–"

    lines = ["| problem | wall s | within B + slack | result file | verdict | attempts | source of the answer |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        ok = r["exit"] == 0 and r["result"] and r["seconds"] <= budget + slack
        lines.append(f"| {r['problem']} | {num(r['seconds'])} | {'yes' if ok else 'NO'} | "
                     f"{'yes' if r['result'] else 'no'} | {r.get('verdict') or '–'} | {r.get('attempts', '–')} | "
                     f"{r.get('source') or '–'} |")
    passed = sum(r["exit"] == 0 and r["result"] and r["seconds"] <= budget + slack for r in rows)
    lines += ["", f"B = {budget:g} s: {passed}/{len(rows)} within B + {slack:g} s with a result file; "
              f"longest {max(r['seconds'] for r in rows):.1f} s, median {statistics.median(r['seconds'] for r in rows):.1f} s."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", dest="which", default="examples", help="a problem set (desyr problems)")
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--slack", type=float, default=10.0, help="seconds allowed past the budget (10)")
    ap.add_argument("--runs", type=Path, default=Path("runs/budget"))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    out = args.out or args.runs / f"{args.which}.md"
    rows = []
    for spec in specs(args.which):
        print(f"{spec} ...", file=sys.stderr, flush=True)
        rows.append(one(spec, args.budget, args.runs / time.strftime("%Y%m%d-%H%M%S"), 3 * args.budget + 60))
        print(f"    {rows[-1]['seconds']:.1f} s, {rows[-1].get('verdict')}", file=sys.stderr, flush=True)
    text = table(rows, args.budget, args.slack) + "\n"
    print(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
