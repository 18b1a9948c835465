"""``desyr verify`` against the verdicts a bench wrote: agreement, tiers and the verifier's own time.

For every ``result.json`` under the given bench folders, build the request ``desyr verify RUN_DIR``
sends and time the verifier process from start to verdict; compare its verdict and residuals with
the in-process ones the run recorded (a 0.3 result's ``exact``; a 0.4 result's own run residuals
under the same rule).  Prints a markdown table: problem, in-process verdict, verifier verdict, worst
residuals (in-process and verifier), their ratio, the verifier process's wall time and its own
compute time inside (after imports), dimension.

    desyr bench --all --seeds 1 --out OUT            # the runs (any DeSyR version that writes result.json)
    .venv/bin/python bench/verify.py OUT [OUT2 ...]  # this table
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

from desyr.extension.registry import load_registry
from desyr.verify.child import VerifierError, request_verdict
from desyr.verify.command import result_request


def _worst(res: dict | None) -> float | None:
    """The residual "exact" is decided on: the largest relative one (max(R_eq, R_con) in an older result)."""
    if not res:
        return None
    if res.get("relative") is not None:
        return float(res["relative"])
    values = [float(v) for v in (res.get("R_eq"), res.get("R_con")) if v is not None]
    return max(values) if values else None


def _recorded(data: dict) -> tuple[str, float | None]:
    """The in-process verdict: a 0.3 result's ``exact``; for a 0.4 result, the in-process rule applied to
    the run's own residuals (its written verdict is already the verifier's)."""
    verification = data.get("verification")
    if verification:
        worst = _worst(verification.get("run_residuals"))
        exact = worst is not None and worst <= float(data.get("exact_tolerance", 1e-8))
        return ("verified" if exact else "not_exact"), worst
    return ("verified" if data.get("exact") else "not_exact"), _worst(data.get("residuals"))


def one(run: Path) -> dict:
    data = json.loads((run / "result.json").read_text())
    recorded, recorded_worst = _recorded(data)
    request = result_request(run, load_registry, None, None)
    clock = time.perf_counter()
    try:
        answer = request_verdict(request)      # the verifier process, start to verdict
    except VerifierError as exc:
        return {"run": run, "recorded": recorded, "error": str(exc)[-200:], "wall": time.perf_counter() - clock}
    wall = time.perf_counter() - clock
    worst = _worst(answer["residuals"])
    ratio = None
    if recorded_worst is not None and worst is not None and math.isfinite(worst) and math.isfinite(recorded_worst):
        ratio = max(worst, 1e-16) / max(recorded_worst, 1e-16)
    dim = len(data["problem"]["variables"])
    return {"run": run, "name": data["problem"]["name"], "recorded": recorded, "verdict": answer["verdict"],
            "recorded_worst": recorded_worst, "worst": worst, "ratio": ratio, "wall": wall,
            "own": answer["seconds"], "dim": dim, "reason": answer["reason"]}


def _agree(row: dict) -> bool:
    exact = row["verdict"] in ("proved", "verified")
    return "error" not in row and exact == (row["recorded"] in ("proved", "verified"))


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.2e}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("bench", nargs="+", help="desyr bench --out folders")
    args = ap.parse_args()
    runs = sorted(p.parent for b in args.bench for p in Path(b).glob("runs/*/seed*/result.json"))
    rows = [one(r) for r in runs]
    print("| problem | in-process | verifier | worst in-process | worst verifier | ratio | process s | compute s | dim |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['run'].parent.name} | {r['recorded']} | error: {r['error']} | | | | {r['wall']:.2f} | | |")
            continue
        ratio = "–" if r["ratio"] is None else f"{r['ratio']:.2g}"
        print(f"| {r['name']} | {r['recorded']} | {r['verdict']} | {_fmt(r['recorded_worst'])} | {_fmt(r['worst'])} "
              f"| {ratio} | {r['wall']:.2f} | {r['own']:.2f} | {r['dim']} |")
    ok = [r for r in rows if "error" not in r]
    agree = sum(_agree(r) for r in rows)
    within = sum(1 for r in ok if r["ratio"] is not None and 0.1 <= r["ratio"] <= 10
                 or (r["worst"] or 0) <= 1e-12 and (r["recorded_worst"] or 0) <= 1e-12)
    small = [r["wall"] for r in ok if r["dim"] <= 2]
    print(f"\n{len(rows)} results: same exact/not-exact verdict {agree}/{len(rows)}; residuals within 10x (or both "
          f"below 1e-12) {within}/{len(ok)}; proved {sum(r['verdict'] == 'proved' for r in ok)}, verified "
          f"{sum(r['verdict'] == 'verified' for r in ok)}, not exact {sum(r['verdict'] == 'not_exact' for r in ok)}")
    if small:
        print(f"verifier process wall time, 1-D and 2-D problems: median {statistics.median(small):.2f} s, "
              f"max {max(small):.2f} s over {len(small)}")


if __name__ == "__main__":
    main()
