"""Start-up latency of the command line's error exits (issue 37, item 8).

Each case is a fresh ``python -m desyr ...`` process that must fail with exit 2; the table gives the
median wall time of ``--repeats`` runs, beside ``desyr --help`` (the floor: Python and argparse).
The aim is at most 0.3 s for an error through a spec, an option or a config on an idle machine.

    python bench/startup.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BAD_CONFIG = '[problem]\nname = "bad"\n'        # an unknown top-level key
WRONG_TYPE = 'name = "w"\n[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx"\n[search]\nruns = "two"\n'
CASES = {
    "help (floor)": (["--help"], 0),
    "unknown spec": (["run", "no_such_problem:x", "--out", "{tmp}/x"], 2),
    "bad option (--budget -1)": (["run", "paper:burgers", "--budget", "-1"], 2),
    "missing -p module": (["-p", "no_such_plugin_module", "plugins"], 2),
    "bad config (unknown key)": (["run", "{tmp}/bad.toml"], 2),
    "bad config (wrong type in [search])": (["run", "{tmp}/wrong.toml"], 2),
}


def timed(args: list[str], expected: int) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "desyr", *args], capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != expected:
        raise SystemExit(f"desyr {' '.join(args)}: exit {done.returncode}, expected {expected}: {done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bad.toml").write_text(BAD_CONFIG, encoding="utf-8")
        Path(tmp, "wrong.toml").write_text(WRONG_TYPE, encoding="utf-8")
        print(f"cpus {os.cpu_count()}, load {os.getloadavg()[0]:.1f}, median of {repeats}")
        print("| case | median s | runs |\n|---|---|---|")
        for name, (args, code) in CASES.items():
            args = [a.replace("{tmp}", tmp) for a in args]
            runs = [timed(args, code) for _ in range(repeats)]
            print(f"| {name} | {statistics.median(runs):.2f} | {' '.join(f'{r:.2f}' for r in runs)} |")


if __name__ == "__main__":
    main()
