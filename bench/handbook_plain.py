"""Stage 0's plain CAS calls on the whole ``handbook:`` set: none of them may settle a problem.

The set is meant to test what lies beyond ``dsolve``, ``pdsolve``'s characteristics, separation and the
travelling shift, so for every file those calls run alone (stage 0's reductions off), their proposals are
refit by Stage B and judged by the gates and the verifier, and none may end Proved or Verified.  The tests
hold a third of the files (``tests/test_handbook_set.py``); this runs all of them.  Prints a markdown table.

    .venv/bin/python bench/handbook_plain.py [NAME ...]       # default: the whole set
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from importlib import resources

from desyr.api import refine
from desyr.config.loading import load_problem
from desyr.config.spec import read_spec
from desyr.extension.registry import load_registry
from desyr.stages.exact_search import exact_searchers, propose_candidates


def plain_verdict(name: str, registry) -> tuple[str, int]:
    """The verdict of the plain calls' proposals for ``handbook:NAME`` ("none" where they propose nothing),
    and how many they proposed."""
    problem = load_problem(f"handbook:{name}", registry)
    spec = read_spec(problem, registry)
    plain = replace(spec.solvers, options={**spec.solvers.options, "sympy": {"reductions": False}})
    solved = propose_candidates(exact_searchers(registry, plain), problem, spec.solvers.time_limit)
    if not solved.pool:
        return "none", 0
    texts = [{f: str(e) for f, e in c.search_expressions.items()} for c in solved.pool]
    return refine(problem, texts, registry=registry, plots=False).verdict, len(texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="handbook problems (default: all)")
    args = parser.parse_args(argv)
    folder = resources.files("desyr_paper") / "handbook"
    names = args.names or sorted(f.name[:-5].partition("_")[2] for f in folder.iterdir() if f.name.endswith(".toml"))
    registry = load_registry()
    os.chdir(tempfile.mkdtemp(prefix="desyr-handbook-plain-"))       # refine's cache folder
    print("| problem | plain proposals | verdict | s |\n|---|---|---|---|")
    settled = 0
    for name in names:
        started = time.perf_counter()
        verdict, count = plain_verdict(name, registry)
        settled += verdict in ("proved", "verified")
        print(f"| {name} | {count} | {verdict} | {time.perf_counter() - started:.1f} |", flush=True)
    print(f"\n{settled} of {len(names)} settled by the plain calls (0 expected)")
    return 1 if settled else 0


if __name__ == "__main__":
    sys.exit(main())
