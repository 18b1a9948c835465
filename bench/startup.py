"""Start-up latency of the command line's error exits (issue 37, item 8).

Each case is a fresh ``python -m desyr ...`` process that must fail with exit 2; the table gives the
median wall time of ``--repeats`` runs and the median CPU time (the process and the children it
waited for), beside ``desyr --help`` (the floor: Python and argparse).
The aim is at most 0.3 s for an error through a spec, an option or a config on an idle machine.

    python bench/startup.py [--repeats 5] [--root OLD_CHECKOUT ...]

Each ``--root`` is another checkout (``git archive main | tar -x -C /tmp/old``), its runs interleaved
with this one's.
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

BAD_CONFIG = '[problem]\nname = "bad"\n'        # an unknown top-level key
WRONG_TYPE = 'name = "w"\n[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx"\n[search]\nruns = "two"\n'
BAD_NAME = 'name = "w"\n[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx"\nrhs = "sin(pi*y)"\n'   # no variable y
CASES = {
    "help (floor)": (["--help"], 0),
    "unknown spec": (["run", "no_such_problem:x", "--out", "{tmp}/x"], 2),
    "bad option (--budget -1)": (["run", "paper:burgers", "--budget", "-1"], 2),
    "missing -p module": (["-p", "no_such_plugin_module", "plugins"], 2),
    "bad config (unknown key)": (["run", "{tmp}/bad.toml"], 2),
    "bad config (wrong type in [search])": (["run", "{tmp}/wrong.toml"], 2),
    "bad config (unknown name in an equation)": (["run", "{tmp}/name.toml", "--out", "{tmp}/y"], 2),
}


ROOT = Path(__file__).resolve().parent.parent


def timed(args: list[str], expected: int, root: Path) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "plugins")])}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # in the checkout: `python -m` puts the working folder ahead of PYTHONPATH
    done = subprocess.run([sys.executable, "-m", "desyr", *args], capture_output=True, text=True, check=False,
                          env=env, cwd=root)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != expected:
        raise SystemExit(f"desyr {' '.join(args)}: exit {done.returncode}, expected {expected}: {done.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--root", type=Path, action="append", default=[], help="another checkout, timed the same way")
    options = parser.parse_args()
    roots = [ROOT, *(r.resolve() for r in options.root)]
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bad.toml").write_text(BAD_CONFIG, encoding="utf-8")
        Path(tmp, "wrong.toml").write_text(WRONG_TYPE, encoding="utf-8")
        Path(tmp, "name.toml").write_text(BAD_NAME, encoding="utf-8")
        print(f"cpus {os.cpu_count()}, load {os.getloadavg()[0]:.1f}, median of {options.repeats}")
        print("| case | checkout | median wall s | runs (wall s) | median CPU s |\n|---|---|---|---|---|")
        for name, (args, code) in CASES.items():
            args = [a.replace("{tmp}", tmp) for a in args]
            for root in roots:
                timed(args, code, root)          # untimed: bytecode written
            runs: dict[Path, list[tuple[float, float]]] = {root: [] for root in roots}
            for _ in range(options.repeats):
                for root in roots:
                    runs[root].append(timed(args, code, root))
            for root, got in runs.items():
                walls = " ".join(f"{w:.2f}" for w, _ in got)
                print(f"| {name} | {root} | {statistics.median(w for w, _ in got):.2f} | {walls} | "
                      f"{statistics.median(c for _, c in got):.2f} |")


if __name__ == "__main__":
    main()
