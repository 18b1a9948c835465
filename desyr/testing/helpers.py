"""Helpers for testing DeSyR plugins, in the spirit of pytest's ``pytester``.

Build a problem from TOML text, a run context with its point sets, candidates
and fronts, and run one component in isolation, without training a teacher::

    from desyr.testing import make_problem, make_context, run_refiner

    problem = make_problem(SINE_TOML)
    outcome = run_refiner(MyRefiner(), problem, "sin(3.1*x)")
    assert outcome.converged

Everything here uses the same code paths as ``desyr run``; nothing is faked.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from desyr.config.components import method_constants
from desyr.config.loading import problem_from_toml
from desyr.errors import ConfigError
from desyr.extension.registry import Registry, load_registry
from desyr.extension.roles import Executor, Gate, GateDecision, Refiner, Searcher, Teacher, TeacherModel, UnitFailure
from desyr.model.candidates import Candidate, RefitOutcome
from desyr.model.context import RunContext
from desyr.model.outcomes import Selection
from desyr.model.points import make_point_sets
from desyr.model.problem import Problem
from desyr.model.search import ParetoMember, SearchResult, SearchTask
from desyr.runtime.executor_map import checked_map
from desyr.runtime.progress import Progress
from desyr.stages.refit import parse_candidate, refine_pool
from desyr.stages.search import round_centres
from desyr.stages.search_contract import check_operators, run_search
from desyr.stages.select import run_gates
from desyr.stages.teach import checked_model, checked_teacher_values

__all__ = ["SINE_POISSON_1D", "make_problem", "make_context", "make_candidate", "make_task", "run_teacher",
           "run_searcher", "run_refiner", "run_gates_on", "run_executor", "isolated_registry", "refit_pool",
           "front_of", "decision"]

#: a small, fast problem: u'' = -pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0, solution sin(pi x).
#: Its exact solvers are off: SymPy integrates it in a second, and a run on it is meant to reach the
#: teacher and the searches under test.
SINE_POISSON_1D = """
name = "sine_poisson_1d"
title = "Sine-Poisson 1D (testing)"
[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx + pi**2*sin(pi*x)"
[[constraints]]
on = ["x = 0", "x = 1"]
value = 0
[reference]
u = "sin(pi*x)"
[points]
refine = 300
verify = 300
search = 100
validate = 100
[solvers]
enabled = false
"""


def make_problem(toml_text: str = SINE_POISSON_1D, source: str = "<test>") -> Problem:
    """A problem from TOML text, checked exactly as a config file is."""
    return problem_from_toml(toml_text, source)


def make_context(problem: Problem, seed: int = 0, teacher_values: np.ndarray | None = None,
                 progress: Progress | None = None, **kwargs: Any) -> RunContext:
    """A run context with the problem's point sets (and teacher values on X_S, if given)."""
    points = make_point_sets(problem, seed)
    values = None if teacher_values is None else \
        np.asarray(teacher_values, dtype=float).reshape(len(points.search), -1)
    return RunContext(problem, points, seed=seed, teacher_values=values, method=method_constants(problem),
                      progress=progress or Progress(verbose=False), **kwargs)


def make_candidate(problem: Problem, text: str | Mapping[str, str], id: str = "c0", **kwargs: Any) -> Candidate:
    """A candidate from ``"sin(3.1*x)"`` (one field) or ``"u = ...; v = ..."``."""
    return Candidate(id, parse_candidate(problem, text), **kwargs)


def make_task(problem: Problem, y: np.ndarray | None = None, *, field: str | None = None, seed: int = 0,
              unary: Iterable[str] = (), binary: Iterable[str] = ("+", "-", "*", "/"), max_size: int = 15,
              budget: Mapping[str, Any] | None = None) -> SearchTask:
    """A search task on the problem's X_S, with its time variable and round shapes' centres as a run
    gives them; ``y`` defaults to the reference on X_S."""
    points = make_point_sets(problem, seed)
    field = field or problem.fields[0]
    if y is None:
        ref = problem.evaluate_reference(points.search)
        if ref is None:
            raise ConfigError("make_task needs y when the problem has no reference")
        y = ref[:, problem.fields.index(field)]
    return SearchTask(points.search, np.asarray(y, dtype=float), list(problem.variable_names), list(binary),
                      list(unary), max_size, seed, dict(budget or {}), field, problem.time, round_centres(problem))


def run_teacher(teacher: Teacher, problem: Problem, seed: int = 0) -> tuple[TeacherModel, np.ndarray]:
    """Prepare the teacher and return its model and its values on the verification points, checked
    as ``desyr run`` checks them (a TeacherModel; finite values of shape (n, n_fields))."""
    ctx = make_context(problem, seed)
    model = checked_model(teacher.prepare(problem, ctx), teacher.name)
    values = model.predict(ctx.points.verify)
    return model, checked_teacher_values(values, len(ctx.points.verify), problem.fields, teacher.name)


def run_searcher(searcher: Searcher, problem: Problem, task: SearchTask | None = None) -> SearchResult:
    """One search through the core's checks: the operators it must express (a ConfigError naming
    those it cannot), then its members (bad ones dropped with a warning; all bad is an error)."""
    task = task or make_task(problem)
    check_operators([searcher], task.binary, task.unary, problem)
    front, info, _ = run_search(searcher, task, problem)
    return SearchResult(front, info)


def run_refiner(refiner: Refiner, problem: Problem, candidate: str | Candidate, seed: int = 0) -> RefitOutcome:
    """Stage B on one candidate, as ``desyr refine`` runs it."""
    cand = candidate if isinstance(candidate, Candidate) else make_candidate(problem, candidate)
    refit_pool([cand], refiner, make_context(problem, seed))
    assert cand.refit is not None
    return cand.refit


def refit_pool(pool: list[Candidate], refiner: Refiner, ctx: RunContext) -> None:
    """Stage B plus measurement and checked cleaning on a pool, in place: every candidate is refit (a run
    stops refitting longer candidates once a shorter one meets the physics; a gate's test needs them all)."""
    refine_pool(pool, refiner, ctx, scope="kit")


def run_gates_on(pool: list[Candidate], gates: list[Gate], ctx: RunContext) -> Selection:
    """Stage C on an already refit pool, with the core's gate contract checks."""
    return run_gates(pool, gates, ctx)


def run_executor(executor: Executor, fn: Callable[[Any], dict[str, Any]], items: Sequence[Any]
                 ) -> list[dict[str, Any] | UnitFailure]:
    """``executor.map(fn, items)`` held to the contract the core holds it to: one record (a dict) or
    :class:`UnitFailure` per item, in order. ``fn`` must be a module-level function returning a dict."""
    return checked_map(executor, fn, items)


def isolated_registry(*plugins: Any) -> Registry:
    """A registry of only the given plugin modules or objects (no installed entry points)."""
    return load_registry(extra_plugins=plugins, entry_points=False)


def front_of(*members: tuple[str, int, float], problem: Problem) -> list[ParetoMember]:
    """Front members from ``(expression text, complexity, loss)`` triples."""
    return [ParetoMember(problem.parse(text), size, loss) for text, size, loss in members]


def decision(kept: list[Candidate], removed: Mapping[str, str] | None = None) -> GateDecision:
    """A gate decision keeping ``kept``, with a reason for each id in ``removed``."""
    return GateDecision(list(kept), dict(removed or {}))

