"""How often an inverse problem's coefficient is named right, left undecided or named wrong, over seeds.

    python bench/inverse_seeds.py --problem coupled_rate --noise 0.05 --seeds 30 --out runs/seeds

One seed of noise says little about a decision rule: a 2-sigma draw leaves any honest rule
undecided.  This runs the bundled problem with ``noise`` and ``seed = 0 .. N-1`` (each a plain
`desyr run` with default settings, in its own process, ``--jobs`` at a time) and counts, per
unknown, the exact true value, "the data cannot decide" (or no closed form), and a wrong exact value.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from unknowns import TRUE, run_desyr, unknowns_of  # noqa: E402  (the same runs and reading as the noise table)


def _config(problem: str, noise: float, seed: int, out: Path) -> Path:
    folder = resources.files("desyr_paper") / "inverse"
    source = next(f for f in folder.iterdir() if f.name.endswith(f"_{problem}.toml"))
    text = source.read_text(encoding="utf-8").replace("noise = 0.0\n", f"noise = {noise}\nseed = {seed}\n")
    path = out / "configs" / f"{problem}_{noise}_{seed}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _outcome(found: str | None, truth: str) -> str:
    if found is None:
        return "no result"
    value = sp.sympify(found)
    if not value.is_number or isinstance(value, sp.Float) or value.atoms(sp.Float):
        return "undecided"
    return "right" if sp.simplify(value - sp.sympify(truth)) == 0 else f"wrong ({found})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problem", required=True, choices=sorted(TRUE))
    parser.add_argument("--noise", type=float, default=0.05)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    def one(seed: int) -> tuple[int, dict[str, str], str]:
        config = _config(args.problem, args.noise, seed, args.out)
        _, result = run_desyr(config, args.out / f"seed_{seed}")
        form, note = unknowns_of(result)
        outcomes = {u: _outcome(form.get(u), truth) for u, truth in TRUE[args.problem].items()}
        print(f"seed {seed}: {outcomes} {note}", flush=True)
        return seed, outcomes, note

    with ThreadPoolExecutor(args.jobs) as pool:
        results = sorted(pool.map(one, range(args.seeds)))
    tally = Counter(o if not o.startswith("wrong") else "wrong" for _, outcomes, _ in results for o in outcomes.values())
    line = (f"{args.problem}, noise {args.noise:g}, seeds 0-{args.seeds - 1}: right {tally['right']}, "
            f"undecided {tally['undecided']}, wrong {tally['wrong']}, no result {tally['no result']}")
    (args.out / "tally.txt").write_text("\n".join(f"seed {s}: {o} {n}" for s, o, n in results) + "\n" + line + "\n")
    print(line)


if __name__ == "__main__":
    main()
