"""Issue 24's tables: the `inverse:` set at three noise levels, and the `parametric:` set.

    python bench/unknowns.py --out runs/unknowns            # both tables (about 15 minutes on 2 cores)
    python bench/unknowns.py --out runs/unknowns --only parametric

Each inverse problem runs as bundled (clean observations) and with `noise` set to 0.01 and 0.05
(the same points and seed; the noise is drawn from the config's seed).  Every run is a plain
`desyr run` with default settings, in its own process; the table reads each `result.json`.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import sympy as sp

#: the coefficients each inverse problem's observations were made with (as in tests/test_inverse_set.py)
TRUE = {"heat_nu": {"nu": "1/10"}, "burgers_nu": {"nu": "1/10"}, "wave_c": {"c": "2"},
        "oscillator": {"gamma": "1/4", "omega": "2"}, "coupled_rate": {"a": "4"}}
NOISE = (0.0, 0.01, 0.05)


def run_desyr(config: Path, out: Path) -> tuple[float, dict]:
    """``desyr run`` of ``config`` into ``out`` in its own process: its wall time and result (empty: none)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "desyr", "run", str(config), "--out", str(out), "--quiet", "--no-plots"],
                   env=env, timeout=1800, check=False, capture_output=True)
    seconds = time.perf_counter() - start
    path = out / "result.json"
    return seconds, json.loads(path.read_text()) if path.is_file() else {}


def unknowns_of(result: dict) -> tuple[dict[str, str], str]:
    """The result's formula (the exact form where there is one, unknowns included) and its note on the unknowns."""
    chosen = next((c for c in result.get("candidates", []) if c["id"] == result.get("selected_id")), None)
    form = (result.get("exact_form") or {}).get("expressions") or result.get("expression") or {}
    return form, (chosen or {}).get("unknowns") or ""


def _error(found: str | None, truth: str) -> str:
    if found is None:
        return "-"
    value, exact = sp.sympify(found), sp.sympify(truth)
    if not value.is_number:
        return "-"
    if sp.simplify(value - exact) == 0:
        return "0 (exact)"
    return f"{abs(float(value) - float(exact)) / abs(float(exact)):.2e}"


def inverse_table(out: Path) -> list[str]:
    folder = resources.files("desyr_paper") / "inverse"
    rows = ["| problem | noise | unknown | found | error | verdict | seconds | note |", "|---|---|---|---|---|---|---|---|"]
    for res in sorted(f for f in folder.iterdir() if f.name.endswith(".toml")):
        name = res.name[:-5].partition("_")[2]
        text = res.read_text(encoding="utf-8")
        for noise in NOISE:
            config = out / "configs" / f"{name}_{noise}.toml"
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text(text.replace("noise = 0.0\n", f"noise = {noise}\n"))
            seconds, result = run_desyr(config, out / f"{name}_{noise}")
            form, note = unknowns_of(result)
            verdict = (result.get("verification") or {}).get("verdict", "no result")
            for unknown, truth in TRUE[name].items():
                rows.append(f"| {name} | {noise:g} | {unknown} = {truth} | {form.get(unknown, '-')} | "
                            f"{_error(form.get(unknown), truth)} | {verdict} | {seconds:.1f} | {note} |")
            print(rows[-1], flush=True)
    return rows


def parametric_table(out: Path) -> list[str]:
    folder = resources.files("desyr_paper") / "parametric"
    rows = ["| family | parameters | formula | verdict | seconds |", "|---|---|---|---|---|"]
    for res in sorted(f for f in folder.iterdir() if f.name.endswith(".toml")):
        name = res.name[:-5].partition("_")[2]
        seconds, result = run_desyr(Path(str(res)), out / f"family_{name}")
        form, _ = unknowns_of(result)
        verdict = (result.get("verification") or {}).get("verdict", "no result")
        parameters = ", ".join((result.get("problem") or {}).get("parameters", []))
        formula = "; ".join(f"{f} = {e}" for f, e in form.items())
        rows.append(f"| {name} | {parameters} | `{formula}` | {verdict} | {seconds:.1f} |")
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--only", choices=("inverse", "parametric"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    lines = []
    if args.only != "parametric":
        lines += inverse_table(args.out) + [""]
    if args.only != "inverse":
        lines += parametric_table(args.out)
    (args.out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
