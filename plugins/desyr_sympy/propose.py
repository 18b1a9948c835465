"""Exact-solver proposals for a problem, before any teacher is trained.

``propose(problem)`` asks each SymPy solver that applies for solutions, each
call in a child process bounded by ``time_limit`` seconds, and returns the
candidates (field -> expression, free constants as floats for Stage B) with one
attempt record per solver.  Nothing here decides that a candidate is exact: the
proposals go through the same refit, gates and verifier as a search's.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import sympy as sp

import desyr_sympy.linear_part as linear_part
from desyr_sympy import (
    energy,
    first_order,
    fronts,
    linear_families,
    linear_parabolic,
    linearise,
    odes,
    pair,
    polar,
    radial,
    separable,
    separation,
    similarity,
    travelling,
    undetermined,
    vanishing,
    waves,
)
from desyr_sympy.bounded import Outcome, one_line, run_bounded
from desyr_sympy.candidates import Pool, free_constants, usable
from desyr_sympy.forms import coordinates

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
    origins: list[str] = field(default_factory=list)     # the solver of each candidate
    attempts: list[Attempt] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class Solver:
    name: str
    applies: Callable[[Problem], str]                     # "" or why not
    solve: Callable[[Problem], list[dict[str, sp.Expr]]]  # runs in the bounded child
    #: its answer is the general solution of every problem it applies to, so the solvers after it
    #: are not asked once it has one (they would only spend their time limits on the same answer)
    settles: bool = False


#: cheap and most specific first, so an anytime caller sees the likeliest answer early
SOLVERS: tuple[Solver, ...] = (
    Solver("integrate", odes.integrate_applies, odes.integrate_source, settles=True),
    Solver("dsolve_ics", odes.ics_applies, odes.dsolve_ics),
    Solver("dsolve", odes.ode_applies, odes.dsolve_general),
    Solver("characteristics", first_order.applies, first_order.characteristics),
    Solver("separable", separable.applies, separable.separate),
    Solver("polar", polar.applies, polar.radial),
    Solver("travelling", travelling.applies, travelling.travel),
    Solver("energy", energy.applies, energy.solve),
    Solver("waves", waves.waves_applies, waves.waves),
    Solver("fronts", fronts.applies, fronts.fronts),
    Solver("phase", waves.phase_applies, waves.phase),
    Solver("similarity", similarity.applies, similarity.similarity),
    Solver("parabolic", linear_parabolic.applies, linear_parabolic.solve),
    Solver("linear_part", linear_part.applies, linear_part.solve),
    Solver("vanishing", vanishing.applies, vanishing.solve),
    Solver("undetermined", undetermined.applies, undetermined.solve),
    Solver("linearise", linearise.applies, linear_families.solve),
    Solver("pair", pair.applies, pair.solve),
    Solver("separation", separation.applies, separation.separate),
    Solver("radial", radial.applies, radial.solve),
)


#: the solvers that reduce an equation before SymPy or in its place (issue 36; ``parabolic``: to the heat
#: equation; ``linearise``: a Cole-Hopf-type substitution to a linear one), beyond the plain CAS calls; an
#: option turns them off
REDUCTIONS = frozenset({"energy", "waves", "phase", "similarity", "parabolic", "linear_part", "undetermined",
                        "fronts", "linearise", "pair", "separation", "radial", "vanishing"})


def propose(problem: Problem, *, time_limit: float = 10.0, budget: float | None = None,
            solvers: Iterable[str] | None = None, workers: int | None = None,
            reductions: bool = True) -> Proposals:
    """Candidates from every applicable exact solver; never raises for a solver's failure.

    ``time_limit`` bounds each solver call (seconds, wall clock); ``budget`` bounds the
    whole call: solvers not started when it is spent are recorded as "skipped".
    ``solvers`` restricts the solvers by name (default: all of :data:`SOLVERS`);
    ``workers`` is how many run at once (default: the usable cores); ``reductions=False``
    leaves out the solvers of :data:`REDUCTIONS`.
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
    chosen = [s for s in SOLVERS if (names is None or s.name in names) and (reductions or s.name not in REDUCTIONS)]
    attempts: list[Attempt | None] = [_applies(s, problem) for s in chosen]
    runnable = [i for i, a in enumerate(attempts) if a is None]
    if runnable:
        _preload()
    pool = Pool()
    settling = [i for i in runnable if chosen[i].settles and not family]
    others = [i for i in runnable if i not in settling]

    def run(group: list[int]) -> list[str]:
        """Run ``group`` side by side; the names of those that proposed a candidate."""
        outcomes = _run_group([chosen[i] for i in group], problem, time_limit, workers or _cores(),
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


def _run_group(solvers: list[Solver], problem: Problem, time_limit: float, workers: int,
               deadline: float | None) -> list[Outcome]:
    """Each solver's outcome, side by side in bounded children. ``dsolve`` and ``dsolve_ics`` of one
    ODE share one child and one ``sympy.dsolve`` call (:func:`odes.dsolve_both`), each keeping its
    own record; ``dsolve_ics`` runs alone afterwards only where its answer cannot be derived."""
    names = [s.name for s in solvers]
    if not ("dsolve" in names and "dsolve_ics" in names and len(problem.fields) == 1):
        return run_bounded([(s.solve, (problem,)) for s in solvers], time_limit, workers=workers, deadline=deadline)
    rest = [s for s in solvers if s.name != "dsolve_ics"]
    calls = [(odes.dsolve_both if s.name == "dsolve" else s.solve, (problem,)) for s in rest]
    outcomes = dict(zip((s.name for s in rest), run_bounded(calls, time_limit, workers=workers, deadline=deadline)))
    both = outcomes["dsolve"]
    if both.status != "ok":                 # the general call failed, and dsolve(ics=) makes it first
        outcomes["dsolve_ics"] = both
        return [outcomes[name] for name in names]
    general, derived = both.value
    outcomes["dsolve"] = Outcome("ok", general, "", both.seconds)
    if derived is None:
        outcomes["dsolve_ics"] = run_bounded([(odes.dsolve_ics, (problem,))], time_limit, workers=1,
                                             deadline=deadline)[0]
    else:
        status, value = derived
        outcomes["dsolve_ics"] = (Outcome("ok", value, "", both.seconds) if status == "ok"
                                  else Outcome(status, None, value, both.seconds))
    return [outcomes[name] for name in names]


#: modules SymPy imports on its first integral, simplify or solve (0.3-0.9 s each; ``simplify`` and
#: ``solve`` import the physical units); imported once here, before the children fork, so that no
#: child pays for them again
_LAZY_MODULES = ("sympy.integrals.manualintegrate", "sympy.integrals.risch", "sympy.integrals.heurisch",
                 "sympy.combinatorics", "sympy.tensor.tensor", "sympy.sets.setexpr", "sympy.physics.units",
                 "sympy.physics.units.util")


def _preload() -> None:
    import importlib

    for name in _LAZY_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:     # another SymPy version: a child imports what it needs
            pass


def _cores() -> int:
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def _applies(solver: Solver, problem: Problem) -> Attempt | None:
    """A record when the solver does not apply (or its check fails), None when it should run."""
    began = time.perf_counter()
    try:
        reason = solver.applies(problem)
    except Exception as exc:  # noqa: BLE001 - a problem no check foresaw is a record, not a crash
        return Attempt(solver.name, time.perf_counter() - began, f"error: {one_line(exc)}")
    return Attempt(solver.name, time.perf_counter() - began, "not applicable", reason) if reason else None


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
