"""``check_component``: every contract check ``desyr run`` makes, run on one component class.

In the spirit of scikit-learn's ``check_estimator``: the class is checked as the registry checks it
at load, instantiated with the given options, and run on a tiny real problem through the same
checking functions the pipeline calls (:mod:`desyr.stages`), plus the checks a run makes only
implicitly (determinism for a seed, picklability for the ``processes`` executor, JSON-safe info).
The first broken rule raises :class:`ContractViolation`, whose message says what to fix.
"""
from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np
import sympy as sp

from desyr.errors import DesyrError, PluginError
from desyr.extension.registry import check_contract
from desyr.extension.roles import Component, ExactSearcher, Executor, Gate, Refiner, Searcher, Teacher, UnitFailure
from desyr.model.candidates import Candidate, RefitOutcome, candidate_view, changed_fields
from desyr.model.problem import Problem
from desyr.model.search import ParetoMember, SearchResult, SearchTask
from desyr.stages.guard import contained
from desyr.stages.measure import measure
from desyr.stages.refit import checked_refit
from desyr.stages.search import checked_search_answer, rescored
from desyr.stages.select import apply_gate
from desyr.stages.solve import SolveOutcome, propose_candidates
from desyr.symbolic.expressions import expression_text
from desyr.testing.helpers import make_candidate, make_context, make_problem, make_task, run_executor, run_teacher

__all__ = ["ContractViolation", "check_component", "conformance_unit"]

_T = TypeVar("_T")

#: the small vocabulary a searcher is checked with (intersected with what it declares)
CHECK_BINARY = ("+", "-", "*", "/")
CHECK_UNARY = ("sin", "cos", "exp")
#: candidates a refiner and a gate are checked on (the testing problem's solution is sin(pi*x))
CHECK_CANDIDATES = ("0.9*sin(3.1*x)", "sin(pi*x)", "0.5*x*(1.0 - x)")


class ContractViolation(PluginError):
    """A component breaks its role's contract; the message names the rule and the fix."""


def check_component(cls: Any, problem: Problem | None = None, **options: Any) -> None:
    """Run every contract check the CLI makes on component class ``cls`` (any role), instantiated
    with ``options`` (use them for tiny budgets). ``problem`` defaults to
    :data:`desyr.testing.SINE_POISSON_1D`. Raises :class:`ContractViolation` naming the fix."""
    _check_class(cls)
    component = _instantiate(cls, options)
    if isinstance(component, Executor):
        _check_executor(component)
        return
    problem = problem or make_problem()
    checks: dict[str, Callable[[Any, Problem], None]] = {
        "teacher": _check_teacher, "searcher": _check_searcher, "refiner": _check_refiner, "gate": _check_gate}
    checks[cls.role](component, problem)


def _violation(component: Any, problem: str, fix: str) -> ContractViolation:
    cls: Any = component if isinstance(component, type) else type(component)
    return ContractViolation(f"{cls.role} '{cls.name}' ({cls.__name__}): {problem}; {fix}")


# ------------------------------------------------------------------ class and options
def _check_class(cls: Any) -> None:
    if isinstance(cls, Component):
        raise ContractViolation(f"check_component got an instance of {type(cls).__name__}; pass the class, not an "
                                f"instance: check_component({type(cls).__name__}, **options)")
    if not (isinstance(cls, type) and issubclass(cls, Component)):
        raise ContractViolation(f"check_component got {cls!r}; pass a component class (a subclass of "
                                "desyr.plugin.Teacher, Searcher, Refiner, Gate or Executor)")
    try:
        check_contract(cls, cls.role)     # what the registry checks at load
    except PluginError as exc:
        raise ContractViolation(str(exc)) from None


def _instantiate(cls: type[Component], options: Mapping[str, Any]) -> Component:
    try:
        return cls(**options)
    except DesyrError as exc:
        raise _violation(cls, f"the options {dict(options)} are refused ({exc})",
                         "pass options the class declares, with values its Option specs accept") from None


def _check_picklable(component: Component) -> None:
    """Searchers and refiners travel to worker processes with every unit."""
    try:
        pickle.loads(pickle.dumps(component))
    except Exception as exc:
        raise _violation(component, f"the instance cannot be pickled ({type(exc).__name__}: {exc})",
                         "the processes executor sends components to workers: keep only picklable state "
                         "(no lambdas, locks, open files or clients; create those inside the method)") from None


def _check_json_safe(component: Any, value: Any, what: str) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _violation(component, f"{what} is not JSON-safe ({exc})",
                         "put only str, int, finite float, bool, None, lists and dicts there (convert numpy "
                         "values with .tolist() or float())") from None


def _run(component: Component, call: Callable[[], _T]) -> _T:
    """A component's call with the core's containment: any error is one line naming it."""
    try:
        with contained(component.role, component.name):
            return call()
    except PluginError as exc:
        said = str(exc).removeprefix(f"{component.role} '{component.name}': ")
        raise _violation(component, f"it failed on the check problem ({said})",
                         "make it run on desyr.testing.SINE_POISSON_1D (or pass problem=)") from None


# ------------------------------------------------------------------ teacher
def _check_teacher(teacher: Teacher, problem: Problem) -> None:
    first = _teacher_values(teacher, problem)
    model, values = first
    _check_json_safe(teacher, model.info(), "model.info()")
    _, again = _teacher_values(teacher, problem)
    if not np.array_equal(values, again):
        raise _violation(teacher, "two prepare() calls with seed 0 gave different values",
                         "seed every random generator from context.seed so a seed gives one teacher")


def _teacher_values(teacher: Teacher, problem: Problem) -> tuple[Any, np.ndarray]:
    try:
        return _run(teacher, lambda: run_teacher(teacher, problem))
    except DesyrError as exc:
        if isinstance(exc, ContractViolation):
            raise
        raise _violation(teacher, str(exc), "predict(X) must return a finite float array of shape "
                         "(len(X), len(problem.fields))") from None


# ------------------------------------------------------------------ searcher
def _check_searcher(searcher: Searcher, problem: Problem) -> None:
    _check_picklable(searcher)
    if isinstance(searcher, ExactSearcher):
        _check_exact_searcher(searcher, problem)
        return
    task = _searcher_task(searcher, problem)
    first = _search(searcher, task, problem)
    if not first:
        raise _violation(searcher, "its front on sin(pi*x) is empty after the core's checks",
                         "return at least one ParetoMember (sympy expression, complexity, finite loss)")
    _check_operator_coverage(searcher, first, task)
    second = _search(searcher, task, problem)
    if _front_text(first) != _front_text(second):
        raise _violation(searcher, f"two searches with seed {task.seed} gave different fronts",
                         "seed every random generator from task.seed so a seed gives one front")
    _check_losses(searcher, first, task, problem)


def _check_exact_searcher(searcher: ExactSearcher, problem: Problem) -> None:
    """What stage 0 checks: Proposals, JSON-safe attempts, candidates that read back, one answer per problem."""
    first = _proposed(searcher, problem)
    if not first.pool:
        raise _violation(searcher, "it proposes no candidate for u'' = -pi^2 sin(pi x) with zero ends",
                         "return Proposals with at least one mapping field -> sympy expression")
    _check_json_safe(searcher, [dataclasses.asdict(r) for r in first.records], "Proposals.attempts")
    again = _proposed(searcher, problem)
    if [c.search_expressions for c in first.pool] != [c.search_expressions for c in again.pool]:
        raise _violation(searcher, "two propose() calls gave different candidates",
                         "make propose() deterministic: the same problem gives the same proposals")


def _proposed(searcher: ExactSearcher, problem: Problem) -> SolveOutcome:
    outcome = _run(searcher, lambda: propose_candidates([searcher], problem, time_limit=30.0))
    dropped = [r for r in outcome.records if r.outcome == "dropped"]
    if dropped:
        raise _violation(searcher, f"{len(dropped)} proposal(s) do not read back",
                         "propose one sympy expression per field of the problem, in its variables")
    return outcome


def _searcher_task(searcher: Searcher, problem: Problem) -> SearchTask:
    binary = [op for op in CHECK_BINARY if op in searcher.supported_binary]
    unary = [op for op in CHECK_UNARY if op in searcher.supported_unary]
    if not binary:
        raise _violation(searcher, "supported_binary declares none of + - * /",
                         "declare the operators the searcher can express in supported_binary")
    return make_task(problem, binary=binary, unary=unary)


def _search(searcher: Searcher, task: SearchTask, problem: Problem) -> list[ParetoMember]:
    mine = copy.deepcopy(task)
    answer = _run(searcher, lambda: searcher.search(mine))
    if isinstance(answer, SearchResult):
        _check_json_safe(searcher, answer.info, "SearchResult.info")
    try:
        members, _, dropped = checked_search_answer(searcher, answer, problem)
    except DesyrError as exc:
        raise _violation(searcher, str(exc), "return a SearchResult of ParetoMember") from None
    if dropped:
        raise _violation(searcher, f"the core drops {len(dropped)} front member(s): {'; '.join(dropped[:3])}",
                         "return sympy expressions in the task's variables, integer complexities and finite losses")
    return members


def _check_losses(searcher: Searcher, front: list[ParetoMember], task: SearchTask, problem: Problem) -> None:
    """The run re-scores every member on the teacher's samples; a loss that differs is misreported."""
    _, unscored, misreported = rescored(front, task, problem)
    if unscored or misreported:
        raise _violation(searcher, f"the core re-scores its members on the task's samples: "
                         f"{'; '.join((unscored + misreported)[:2])}",
                         "report each member's teacher-fit MSE on task.X, task.y (teacher_fit_mse, or "
                         "self.scored_members)")


def _check_operator_coverage(searcher: Searcher, front: list[ParetoMember], task: SearchTask) -> None:
    allowed = set(task.unary)
    for member in front:
        used = {type(f).__name__.lower() for f in member.expression.atoms(sp.Function)}
        if used - allowed:
            raise _violation(searcher, f"member {expression_text(member.expression)} uses "
                             f"{', '.join(sorted(used - allowed))}, not in the task's unary operators "
                             f"{sorted(allowed)}", "use only task.binary and task.unary (and declare in "
                             "supported_unary/supported_binary only what the searcher can express)")


def _front_text(front: list[ParetoMember]) -> list[tuple[str, int, float]]:
    return [(str(expression_text(m.expression)), int(m.complexity), float(m.loss)) for m in front]


# ------------------------------------------------------------------ refiner
def _check_refiner(refiner: Refiner, problem: Problem) -> None:
    _check_picklable(refiner)
    ctx = make_context(problem)
    for text in CHECK_CANDIDATES:
        first = _refit(refiner, make_candidate(problem, text), problem, ctx)
        second = _refit(refiner, make_candidate(problem, text), problem, ctx)
        if (first.status, first.params, _texts(first)) != (second.status, second.params, _texts(second)):
            raise _violation(refiner, f"two refits of {text} gave different outcomes",
                             "a refit must depend only on the candidate, the problem and the options (seed "
                             "any random starts from fixed values)")


def _refit(refiner: Refiner, cand: Candidate, problem: Problem, ctx: Any) -> RefitOutcome:
    view = candidate_view(cand)
    answer = _run(refiner, lambda: refiner.refine(view, problem, ctx.points))
    changed = changed_fields(cand, view)
    if changed:
        raise _violation(refiner, f"it changed the candidate's {', '.join(changed)}",
                         "read the candidate (its frozen tree stays as the search found it) and return the "
                         "refit in a RefitOutcome")
    try:
        outcome, _ = checked_refit(answer, refiner.name, cand, problem)
    except (TypeError, ValueError, DesyrError) as exc:
        if "non-finite constants" in str(exc):
            raise _violation(refiner, str(exc), "report converged=False (status 'failed' or 'not_converged') "
                             "when the fit is not finite") from None
        raise _violation(refiner, str(exc), "return RefitOutcome(expressions={field: finite sympy expression}, "
                         "...) for the candidate's own fields") from None
    if not isinstance(outcome.reason, (str, type(None))):
        raise _violation(refiner, f"reason is {type(outcome.reason).__name__}", "give reason as text or None")
    return outcome


def _texts(outcome: RefitOutcome) -> dict[str, str]:
    return {f: str(expression_text(e)) for f, e in (outcome.expressions or {}).items()}


# ------------------------------------------------------------------ gate
def _check_gate(gate: Gate, problem: Problem) -> None:
    first = _gate_decision(gate, problem)
    second = _gate_decision(gate, problem)
    if (first[0], first[1]) != (second[0], second[1]):
        raise _violation(gate, "two calls on the same pool gave different decisions",
                         "decide from the candidates and the context alone")


def _measured_pool(problem: Problem) -> tuple[list[Candidate], Any]:
    """Candidates as Stage B leaves them (constants as given, measured), without running a refiner."""
    ctx = make_context(problem, teacher_values=problem.evaluate_reference(make_context(problem).points.search))
    pool = []
    for i, text in enumerate(CHECK_CANDIDATES):
        cand = make_candidate(problem, text, id=f"c{i}")
        cand.refit = RefitOutcome(dict(cand.search_expressions), "fixed", True)
        cand.expressions = dict(cand.search_expressions)
        measure(cand, ctx)
        pool.append(cand)
    return pool, ctx


def _gate_decision(gate: Gate, problem: Problem) -> tuple[list[str], dict[str, str]]:
    pool, ctx = _measured_pool(problem)
    try:
        decision = apply_gate(gate, pool, ctx)       # the core's check: type, kept ids, keeps one
    except PluginError as exc:
        raise _violation(gate, str(exc), "return GateDecision(kept=[some of the given candidates], "
                         "removed={id: reason})") from None
    ids = {c.id for c in pool}
    foreign = sorted(set(decision.removed) - ids)
    if foreign:
        raise _violation(gate, f"removed ids {foreign} are not in the pool {sorted(ids)}",
                         "name in removed only ids of candidates the gate was given")
    _check_json_safe(gate, {"removed": decision.removed, "note": decision.note}, "the decision's removed/note")
    return [c.id for c in decision.kept], dict(decision.removed)


# ------------------------------------------------------------------ executor
#: the item that makes :func:`conformance_unit` raise
FAILING_ITEM = -1


def conformance_unit(item: int) -> dict[str, Any]:
    """A module-level unit (picklable by reference) that the executor check maps."""
    if item == FAILING_ITEM:
        raise ValueError("this unit fails on purpose")
    return {"item": item, "square": item * item}


def _check_executor(executor: Executor) -> None:
    items = [3, 1, FAILING_ITEM, 4, 2]
    workers = executor.workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise _violation(executor, f"workers is {workers!r}", "make the workers property an int >= 1")
    with executor:
        try:   # twice: a second map must not answer with the first one's records
            run_executor(executor, conformance_unit, items[::-1])
            results = run_executor(executor, conformance_unit, items)
        except PluginError as exc:
            raise _violation(executor, str(exc), "return fn(item) for every item, unchanged, in input order") from None
    for i, (item, result) in enumerate(zip(items, results)):
        if item == FAILING_ITEM and not isinstance(result, UnitFailure):
            raise _violation(executor, f"unit {i} raised but came back as {type(result).__name__}",
                             "answer a unit that raises with a UnitFailure in its place")
        if item != FAILING_ITEM and result != conformance_unit(item):
            raise _violation(executor, f"unit {i} came back as {result!r}, expected {conformance_unit(item)}",
                             "return fn(item) for every item, in input order")
