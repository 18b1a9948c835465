"""Registers the SymPy exact searcher: the exact methods of :data:`desyr_sympy.methods.METHODS`, run
before any teacher is trained (``[solvers]`` in the config, docs/solvers.md).

Every name table here (the option's choices, the help text, the docs' table of methods) is built from
that one list, so a new method needs no edit in this file."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desyr.plugin import ExactSearcher, Option, Problem, Proposals, SolverAttempt, hookimpl
from desyr_sympy.method import ExactMethod
from desyr_sympy.methods import METHODS
from desyr_sympy.propose import propose
from desyr_sympy.reference import HelperTables

#: the names a config may write in ``[solvers.options.sympy] solvers``, in the order they are tried
SOLVER_NAMES = tuple(m.name for m in METHODS)


def methods_table(methods: Sequence[ExactMethod]) -> str:
    """The docs' table of the methods, in the order they are tried (docs/solvers.md)."""
    rows = ["| method | kind | what it solves, and how |", "|---|---|---|"]
    for m in methods:
        kind = "reduction" if m.reduction else "settles" if m.settles else "plain"
        rows.append(f"| `{m.name}` | {kind} | {m.summary} |")
    return "\n".join(rows)


def details_table(methods: Sequence[ExactMethod], reductions: bool) -> str:
    """The docs' detailed table of the plain methods or of the reductions, in the order they are tried:
    what each is for and what it proposes (its summary where it says nothing more)."""
    rows = ["| solver | for | what it proposes |", "|---|---|---|"]
    for m in methods:
        if m.reduction == reductions:
            rows.append(f"| `{m.name}` | {m.problems or m.summary} | {m.proposes or '–'} |")
    return "\n".join(rows)


def _reductions_help(methods: Sequence[ExactMethod]) -> str:
    reducing = ", ".join(m.name for m in methods if m.reduction)
    return f"also run the methods that reduce an equation first ({reducing}); false: the plain SymPy calls only"


class SympySearcher(ExactSearcher):
    """Candidates from SymPy's solvers, each call in a child process stopped at the time limit."""

    name = "sympy"
    options = {
        "solvers": Option(None, "SymPy methods to try, in order; None: all of " + ", ".join(SOLVER_NAMES),
                          kind=list, item=str, choices=SOLVER_NAMES, nullable=True, low=1),
        "reductions": Option(True, _reductions_help(METHODS), kind=bool),
        "workers": Option(None, "solver calls at once; None: the usable cores", kind=int, low=1, high=64,
                          nullable=True),
    }
    doc_tables = HelperTables({"methods": methods_table(METHODS), "plain": details_table(METHODS, reductions=False),
                               "reductions": details_table(METHODS, reductions=True)})

    def propose(self, problem: Problem, time_limit: float) -> Proposals:
        found = propose(problem, time_limit=time_limit, solvers=self.settings["solvers"],
                        reductions=self.settings["reductions"],
                        workers=self.settings["workers"])
        return Proposals(tuple(found.candidates), tuple(found.origins),
                         tuple(SolverAttempt(a.solver, round(a.seconds, 4), a.outcome, a.detail)
                               for a in found.attempts))


@hookimpl
def desyr_register_searchers() -> list[type[Any]]:
    return [SympySearcher]
