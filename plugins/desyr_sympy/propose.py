"""Exact-method proposals for a problem, before any teacher is trained.

``propose(problem)`` asks each exact method (:data:`desyr_sympy.methods.METHODS`) that applies
for solutions, each call in a child process bounded by ``time_limit`` seconds, and returns the
candidates (field -> expression, free constants as floats for Stage B) with one
attempt record per method.  Nothing here decides that a candidate is exact: the
proposals go through the same refit, gates and verifier as a search's.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import sympy as sp

from desyr_sympy.bounded import Outcome, one_line
from desyr_sympy.method import ExactMethod
from desyr_sympy.methods import METHODS
from desyr_sympy.running import cores, preload, run_methods
from desyr_sympy.shared.candidates import Pool, free_constants, usable
from desyr_sympy.shared.forms import coordinates

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


@dataclass
class Attempt:
    solver: str
    seconds: float
    #: "candidates: n", "no solution", "timeout", "not applicable", "skipped" or "error: ..."
    outcome: str
    detail: str = ""


@dataclass
class Proposals:
    candidates: list[dict[str, sp.Expr]] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)     # the method of each candidate
    attempts: list[Attempt] = field(default_factory=list)
    seconds: float = 0.0


#: the methods that reduce an equation before SymPy or in its place, beyond the plain CAS calls; an
#: option turns them off
REDUCTIONS = frozenset(m.name for m in METHODS if m.reduction)


def propose(problem: Problem, *, time_limit: float = 10.0, budget: float | None = None,
            solvers: Iterable[str] | None = None, workers: int | None = None,
            reductions: bool = True) -> Proposals:
    """Candidates from every applicable exact solver; never raises for a solver's failure.

    ``time_limit`` bounds each solver call (seconds, wall clock); ``budget`` bounds the
    whole call: solvers not started when it is spent are recorded as "skipped".
    ``solvers`` restricts the methods by name (default: all of :data:`desyr_sympy.methods.METHODS`,
    in that order); ``workers`` is how many run at once (default: the usable cores);
    ``reductions=False`` leaves out the methods that reduce an equation first (:data:`REDUCTIONS`).
    """
    start = time.perf_counter()
    # a family's integration constants are functions of its parameters, which a refit of numbers
    # cannot find: there the general solution settles nothing, and the solvers that impose the
    # conditions symbolically (dsolve_ics) still run
    family = bool(problem.parameters)
    every = [*problem.symbols, *(problem.unknown_symbol(n) for n in problem.unknown_names)]
    view = coordinates(problem)
    problem = cast("Problem", view)     # the solvers read it as the problem, with parameters as constants
    names = None if solvers is None else set(solvers)
    chosen = [m for m in METHODS if (names is None or m.name in names) and (reductions or not m.reduction)]
    attempts: list[Attempt | None] = [_applies(s, problem) for s in chosen]
    runnable = [i for i, a in enumerate(attempts) if a is None]
    if runnable:
        preload()
    pool = Pool()
    settling = [i for i in runnable if chosen[i].settles and not family]
    others = [i for i in runnable if i not in settling]

    def run(group: list[int]) -> list[str]:
        """Run ``group`` side by side; the names of those that proposed a candidate."""
        outcomes = run_methods([chosen[i] for i in group], problem, time_limit, workers or cores(),
                               None if budget is None else start + budget)
        records = {i: _record(chosen[i].name, outcome, every, pool, view.tidy)
                   for i, outcome in zip(group, outcomes)}
        for i, record in records.items():
            attempts[i] = record
        return [r.solver for r in records.values() if r.outcome.startswith("candidates") and r.outcome != "candidates: 0"]

    settled = run(settling) if settling else []
    for i in others if settled else []:
        attempts[i] = Attempt(chosen[i].name, 0.0, "skipped", f"{settled[0]} gave the general solution")
    if not settled and others:
        run(others)
    # candidates in solver order, whichever child finished first
    records = [a for a in attempts if a is not None]
    return Proposals(pool.candidates, pool.origins, records, time.perf_counter() - start)


def _applies(method: ExactMethod, problem: Problem) -> Attempt | None:
    """A record when the method does not apply (or its check fails), None when it should run."""
    began = time.perf_counter()
    try:
        reason = method.applies(problem)
    except Exception as exc:  # noqa: BLE001 - a problem no check foresaw is a record, not a crash
        return Attempt(method.name, time.perf_counter() - began, f"error: {one_line(exc)}")
    return Attempt(method.name, time.perf_counter() - began, "not applicable", reason) if reason else None


def _record(name: str, outcome: Outcome, variables: list[sp.Symbol], pool: Pool,
            tidy: Callable[[sp.Expr], sp.Expr]) -> Attempt:
    if outcome.status in ("timeout", "skipped"):
        return Attempt(name, outcome.seconds, outcome.status, outcome.message)
    if outcome.status == "error":
        return Attempt(name, outcome.seconds, f"error: {outcome.message}")
    if outcome.status == "no solution" or not outcome.value:
        return Attempt(name, outcome.seconds, "no solution", outcome.message)
    return _collect(name, outcome.value, variables, pool, outcome.seconds, tidy)


def _collect(name: str, solutions: Iterable[Mapping[str, sp.Expr]], variables: list[sp.Symbol], pool: Pool,
             seconds: float, tidy: Callable[[sp.Expr], sp.Expr]) -> Attempt:
    added, dropped = 0, []
    for solution in solutions:
        candidate = free_constants({f: tidy(e) for f, e in solution.items()})
        why = usable(candidate, variables)
        if why:
            dropped.append(why)
        elif pool.add(candidate, name):
            added += 1
    detail = f"dropped {len(dropped)}: {'; '.join(dropped)}" if dropped else ""
    if not added and not dropped:
        detail = "only duplicates of earlier candidates"
    return Attempt(name, seconds, f"candidates: {added}" if added or not dropped else "no solution", detail)
