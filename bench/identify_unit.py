"""One Stage-B unit of a noisy inverse problem, timed: refit, cleaning and naming the unknowns.

    PYTHONPATH=<worktree>:<worktree>/plugins python bench/identify_unit.py --repeat 3

The candidate is one that Operon returned for the bundled oscillator (`inverse:oscillator`) with
its observations at 5 % noise: a tree with spurious terms that cleaning removes, after which
gamma and omega are named.  Naming refits the tree for every closed form tried, so this is where
a noisy inverse run through the teacher spends its Stage B.  Prints each wall time, the median,
and the note on the unknowns (which must name gamma = 1/4 and omega = 2).
"""
from __future__ import annotations

import argparse
import statistics
import time
from importlib import resources

from desyr.config.reading import problem_from_toml
from desyr.extension.registry import load_registry
from desyr.stages.refit import refit_unit
from desyr.testing import make_candidate, make_context

CANDIDATE = ("u = 0.008015998147205666 + 0.0012114672301430202*t + (1.000006079673767*cos(-0.13073602318763733"
             " + 1.985276222229004*t + (0.00445021549239755 - 0.00713183963671327*t)*cos(1.0827609300613403*t))"
             " - 0.011405205775732782*t)*exp(-0.2458655834197998*t); gamma = 0.2509995996952057;"
             " omega = 1.9997528791427612")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--noise", type=float, default=0.05)
    args = parser.parse_args()
    text = (resources.files("desyr_paper") / "inverse" / "04_oscillator.toml").read_text()
    problem = problem_from_toml(text.replace("noise = 0.0\n", f"noise = {args.noise}\n"), "oscillator.toml")
    registry = load_registry()
    refiner = registry.create("refiner", registry.default("refiner"))
    ctx = make_context(problem)
    seconds, note = [], None
    for _ in range(args.repeat):
        clock = time.perf_counter()
        record = refit_unit((refiner, make_candidate(problem, CANDIDATE), ctx))
        seconds.append(time.perf_counter() - clock)
        note = record.get("unknowns_note")
        print(f"{seconds[-1]:.1f} s")
    print(f"median {statistics.median(seconds):.1f} s over {len(seconds)}; unknowns: {note}")


if __name__ == "__main__":
    main()
