"""The series method on the ``textbook:`` set: its proposal, its time and its proof, problem by problem.

For every problem of the set: stage 0's ``series`` method in its bounded child (``propose(...,
solvers=["series"])``, the time a run's stage 0 spends on it), the proposal read back through the
problem's parser, and the verifier's series proof of the proposal and of the hand-derived reference
(:func:`desyr.verify.series_proof.prove_series`, in this process).  Prints a markdown table.

    .venv/bin/python bench/textbook.py [NAME ...]       # default: the whole set
"""
from __future__ import annotations

import argparse
import time

import sympy as sp
from desyr_sympy import propose

from desyr.config.loading import load_problem
from desyr.extension.registry import load_registry
from desyr.plugin import expression_text
from desyr.verify.proof import prove
from desyr.verify.series_proof import prove_series


def _proof(problem, answer):
    started = time.perf_counter()
    outcome = prove_series(problem, answer) if any(e.has(sp.Sum) for e in answer.values()) else prove(problem, answer)
    return ("Proved" if outcome.proved else "no: " + outcome.reason[:90]), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    registry = load_registry()
    textbook = next(s for s in registry.problem_sets() if s.name == "textbook")
    specs = [f"textbook:{n}" for n in args.names] or list(textbook.specs)
    print("| problem | series s | sums | proposal | proof s | reference |")
    print("|---|---|---|---|---|---|")
    for spec in specs:
        problem = load_problem(spec, registry)
        found = propose(problem, time_limit=30.0, solvers=["series"])
        record = found.attempts[-1]
        if not found.candidates:
            print(f"| `{problem.name}` | {record.seconds:.2f} | – | {record.outcome}: {record.detail[:80]} | – | – |")
            continue
        answer = {f: problem.parse(str(expression_text(e))) for f, e in found.candidates[0].items()}
        sums = sum(len(e.atoms(sp.Sum)) for e in answer.values())
        verdict, seconds = _proof(problem, answer)
        reference, _ = _proof(problem, problem.reference)
        print(f"| `{problem.name}` | {record.seconds:.2f} | {sums} | {verdict} | {seconds:.1f} | {reference} |")


if __name__ == "__main__":
    main()
