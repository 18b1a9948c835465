"""Issue 35's differential oracle with a large budget: candidates by category, verdicts, and breaks.

    PYTHONPATH=.:plugins python bench/oracle.py --examples 60        # per category (about 10 minutes on 1 core)
    PYTHONPATH=.:plugins python bench/oracle.py --examples 5 --only spike complex

The same grammar, problems and invariant as tests/test_oracle_property.py (which runs a few examples
per category in CI): every draw is sent to the verifier in process, as ``desyr verify`` sends it, and
the oracle (tests/oracle.py) checks the verdict.  Prints a markdown table per category: candidates
tried, verdicts, how many broke the invariant, and the shortest breaking candidate.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from tests.oracle_grammar import CATEGORIES  # noqa: E402
from tests.oracle_invariant import broken  # noqa: E402
from tests.test_oracle_property import KNOWN_OPEN, PROBLEMS, ask, draws  # noqa: E402

VERDICTS = ("proved", "verified", "not_exact", "refused", "crashed")


def run(category: str, examples: int) -> dict:
    verdicts: collections.Counter[str] = collections.Counter()
    breaks: list[tuple[int, str, dict, dict | None, str, str]] = []
    problems: set[str] = set()

    @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), phases=(Phase.generate,))
    @given(draws(category))
    def one(case):
        name, printed, exact = case
        verdict = ask(name, printed, exact)
        verdicts[verdict] += 1
        problems.add(name)
        why = broken(PROBLEMS[name], verdict, printed, exact, seed=0)
        if why:
            breaks.append((len(str(printed)) + len(str(exact)), name, printed, exact, verdict, why))
    clock = time.perf_counter()
    one()
    return {"tried": sum(verdicts.values()), "verdicts": verdicts, "breaks": sorted(breaks, key=lambda b: b[0]),
            "problems": len(problems), "seconds": time.perf_counter() - clock}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=60, help="candidates drawn per category")
    ap.add_argument("--only", nargs="*", default=None, help="categories (default: all)")
    args = ap.parse_args()
    rows, shortest = [], []
    for category in args.only or CATEGORIES:
        r = run(category, args.examples)
        v = r["verdicts"]
        rows.append(f"| {category} | {'open' if category in KNOWN_OPEN else 'held'} | {r['tried']} | {r['problems']} | "
                    + " | ".join(str(v[k]) for k in VERDICTS) + f" | {len(r['breaks'])} | {r['seconds']:.0f} |")
        if r["breaks"]:
            _, name, printed, exact, verdict, why = r["breaks"][0]
            shortest.append(f"- {category}: `{name}`, {printed}" + (f", exact form {exact}" if exact else "")
                            + f": {verdict}; {why}")
        print(rows[-1], file=sys.stderr, flush=True)
    print("| category | KNOWN_OPEN | tried | problems | proved | verified | not exact | refused | crashed | broke | s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\nShortest breaking candidate per category:\n" + ("\n".join(shortest) or "- none"))


if __name__ == "__main__":
    main()
