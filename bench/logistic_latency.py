"""Latency of a problem that stage 0 settles, against a plain SymPy script (issue 37, item 8).

Times whole processes: ``python -m desyr run tests/fixtures/logistic.toml --out TMP`` (the result,
both reports and the figures, as a user gets them) against ``python bench/logistic_sympy.py`` (dsolve
with the initial condition, the residual simplified to 0, the solution printed). The runs are
interleaved, so both see the same load; the table gives medians of ``--repeats`` runs, the CPU
seconds of each process and its children, and the ratio desyr / plain (the aim: at most 2).

    python bench/logistic_latency.py [--repeats 3] [--root OLD_CHECKOUT ...]

Each ``--root`` is another checkout of DeSyR (e.g. ``git archive main | tar -x -C /tmp/old``) timed
the same way, interleaved with this one: before and after under the same load.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONFIG = ROOT / "tests" / "fixtures" / "logistic.toml"
PLAIN = HERE / "logistic_sympy.py"
PINNED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def timed(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the process and the children it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def env_for(root: Path | None) -> dict[str, str]:
    """The environment of a run; a checkout's run also starts in it (``cwd=root``), since ``python -m``
    puts the working folder ahead of PYTHONPATH: from another folder the installed DeSyR would run."""
    env = {**os.environ, **PINNED}
    # as installed: bytecode cached (one untimed run of each case writes it), else compiling desyr's
    # modules from source costs about a second per run
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if root is not None:        # this checkout too: the installed DeSyR may be another
        env["PYTHONPATH"] = os.pathsep.join([str(root), str(root / "plugins")])
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--root", type=Path, action="append", default=[],
                        help="another DeSyR checkout to time the same way (before/after)")
    args = parser.parse_args()
    roots = [ROOT, *(r.resolve() for r in args.root)]
    cases: dict[str, list[tuple[float, float]]] = {"plain SymPy": []}
    cases.update({f"desyr run ({r})": [] for r in roots})
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        commands = [([sys.executable, str(PLAIN)], env_for(None), None)] + [
            ([sys.executable, "-m", "desyr", "run", str(CONFIG), "--out", str(Path(tmp, f"warm{k}"))], env_for(root),
             root) for k, root in enumerate(roots)]
        for cmd, env, cwd in commands:       # untimed: bytecode written, files in the page cache
            timed(cmd, env, cwd)
        for i in range(args.repeats):
            cases["plain SymPy"].append(timed([sys.executable, str(PLAIN)], env_for(None)))
            for k, root in enumerate(roots):
                out = Path(tmp, f"run{i}_{k}")
                cmd = [sys.executable, "-m", "desyr", "run", str(CONFIG), "--out", str(out)]
                cases[f"desyr run ({root})"].append(timed(cmd, env_for(root), root))
            loads.append(os.getloadavg()[0])
    plain = statistics.median(w for w, _ in cases["plain SymPy"])
    print(f"cpus {os.cpu_count()}, load average {min(loads):.1f}-{max(loads):.1f}, median of {args.repeats}")
    print("| case | median wall s | runs (wall s) | median CPU s | ratio to plain |\n|---|---|---|---|---|")
    for name, runs in cases.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"| {name} | {wall:.2f} | {' '.join(f'{w:.2f}' for w, _ in runs)} | {cpu:.2f} | {wall / plain:.2f} |")


if __name__ == "__main__":
    main()
