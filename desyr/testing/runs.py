"""The runs the conformance checks judge: each role's component called on the check problem through
the core's own checking functions (:mod:`desyr.stages`), with a fingerprint of its inputs before and
after. Each function takes a :class:`~desyr.testing.observe.Subject` and a key (``"first"``,
``"second"``); the subject makes each run once."""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from desyr.errors import DesyrError, PluginError
from desyr.extension.roles import Executor
from desyr.model.candidates import Candidate, RefitOutcome, candidate_view
from desyr.model.context import RunContext
from desyr.model.problem import Problem
from desyr.model.search import ParetoMember, SearchResult, SearchTask
from desyr.stages.exact_search import SolveOutcome, propose_candidates
from desyr.stages.measure import measure
from desyr.stages.refit_contract import checked_refit, family_points
from desyr.stages.search_contract import checked_search_answer, searched
from desyr.stages.select import apply_gate
from desyr.stages.teach import checked_model, checked_teacher_values
from desyr.symbolic.operators import UNARY_OPERATORS
from desyr.testing.helpers import make_candidate, make_context, make_task, run_executor
from desyr.testing.observe import (
    ContractViolation,
    Subject,
    check_json_safe,
    contained_call,
    context_parts,
    unchanged,
    violation,
)

#: the vocabulary a searcher is checked with (intersected with what it declares): every unary operator,
#: since a run hands a searcher any the problem's text names, the teacher's values show or the broad base
#: adds (desyr.unary.choice), so a searcher that declares one and breaks on it fails here, not in a run
CHECK_BINARY = ("+", "-", "*", "/")
CHECK_UNARY = tuple(UNARY_OPERATORS)
#: candidates a refiner and a gate are checked on (the testing problem's solution is sin(pi*x))
CHECK_CANDIDATES = ("0.9*sin(3.1*x)", "sin(pi*x)", "0.5*x*(1.0 - x)")
#: the items an executor maps; the item that makes :func:`conformance_unit` raise
FAILING_ITEM = -1
EXECUTOR_ITEMS = (3, 1, FAILING_ITEM, 4, 2)


@dataclass
class Run:
    """One call's answer and the paths of its inputs it changed."""

    value: Any
    changed: list[str]


# ------------------------------------------------------------------ teacher
def teacher_run(subject: Subject, key: str) -> Run:
    """``prepare`` and ``predict`` on the verification points: (model, values), checked as Stage A checks."""
    teacher, problem = subject.component, subject.problem
    ctx = make_context(problem)

    def call() -> tuple[Any, np.ndarray]:
        model = checked_model(teacher.prepare(problem, ctx), teacher.name)
        values = model.predict(ctx.points.verify)
        return model, checked_teacher_values(values, len(ctx.points.verify), problem.fields, teacher.name)

    def run() -> Run:
        try:
            value, changed = unchanged({"problem": problem, **context_parts(ctx)},
                                       lambda: contained_call(teacher, call))
        except DesyrError as exc:
            if isinstance(exc, ContractViolation):
                raise
            raise violation(teacher, str(exc), "predict(X) must return a finite float array of shape "
                            "(len(X), len(problem.fields))") from None
        return Run(value, changed)
    return subject.once(f"teacher {key}", run)


# ------------------------------------------------------------------ searcher
def searcher_task(subject: Subject) -> SearchTask:
    searcher = subject.component

    def task() -> SearchTask:
        binary = [op for op in CHECK_BINARY if op in searcher.supported_binary]
        unary = [op for op in CHECK_UNARY if op in searcher.supported_unary]
        if not binary:
            raise violation(searcher, "supported_binary declares none of + - * /",
                            "declare the operators the searcher can express in supported_binary")
        return make_task(subject.problem, binary=binary, unary=unary)
    return subject.once("task", task)


def search_run(subject: Subject, key: str) -> Run:
    """One search on a copy of the task: its members after the core's checks (none may be dropped)."""
    searcher, problem = subject.component, subject.problem

    def run() -> Run:
        mine = copy.deepcopy(searcher_task(subject))
        # read-only as in a run (desyr.stages.search_contract.searched): a write is the error it is there
        answer, changed = unchanged({"task": mine}, lambda: contained_call(searcher, lambda: searched(searcher, mine)))
        return Run(_members(searcher, answer, problem), changed)
    return subject.once(f"search {key}", run)


def _members(searcher: Any, answer: Any, problem: Problem) -> list[ParetoMember]:
    if isinstance(answer, SearchResult):
        check_json_safe(searcher, answer.info, "SearchResult.info")
    try:
        members, _, dropped = checked_search_answer(searcher, answer, problem)
    except DesyrError as exc:
        raise violation(searcher, str(exc), "return a SearchResult of ParetoMember") from None
    if dropped:
        raise violation(searcher, f"the core drops {len(dropped)} front member(s): {'; '.join(dropped[:3])}",
                        "return sympy expressions in the task's variables, integer complexities and finite losses")
    return members


def propose_run(subject: Subject, key: str) -> Run:
    """An exact searcher's proposals, read back as stage 0 reads them, on a copy of the problem."""
    searcher = subject.component

    def run() -> Run:
        problem = copy.deepcopy(subject.problem)
        outcome: SolveOutcome
        outcome, changed = unchanged({"problem": problem}, lambda: contained_call(
            searcher, lambda: propose_candidates([searcher], problem, time_limit=30.0)))
        dropped = [r for r in outcome.records if r.outcome == "dropped"]
        if dropped:
            raise violation(searcher, f"{len(dropped)} proposal(s) do not read back",
                            "propose one sympy expression per field of the problem, in its variables")
        check_json_safe(searcher, [dataclasses.asdict(r) for r in outcome.records], "Proposals.attempts")
        return Run(outcome, changed)
    return subject.once(f"propose {key}", run)


# ------------------------------------------------------------------ refiner
def refit_runs(subject: Subject, key: str) -> list[Run]:
    """A refit of each check candidate, its answer held to Stage B's contract."""
    refiner, problem = subject.component, subject.problem

    def run() -> list[Run]:
        ctx = make_context(problem)
        return [_refit(refiner, make_candidate(problem, text), problem, ctx) for text in CHECK_CANDIDATES]
    return subject.once(f"refit {key}", run)


def _refit(refiner: Any, cand: Candidate, problem: Problem, ctx: RunContext) -> Run:
    view = candidate_view(cand)
    answer, changed = unchanged({"candidate": view, "problem": problem, "points": ctx.points},
                                lambda: contained_call(refiner, lambda: refiner.refine(view, problem, ctx.points)))
    try:
        outcome, _ = checked_refit(answer, refiner.name, cand, problem, family_points(ctx.points))
    except (TypeError, ValueError, DesyrError) as exc:
        if "non-finite constants" in str(exc):
            raise violation(refiner, str(exc), "report converged=False (status 'failed' or 'not_converged') "
                            "when the fit is not finite") from None
        raise violation(refiner, str(exc), "return RefitOutcome(expressions={field: finite sympy expression}, "
                        "...) for the candidate's own fields") from None
    if not isinstance(outcome.reason, (str, type(None))):
        raise violation(refiner, f"reason is {type(outcome.reason).__name__}", "give reason as text or None")
    return Run(outcome, changed)


# ------------------------------------------------------------------ gate
def measured_pool(problem: Problem) -> tuple[list[Candidate], RunContext]:
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


def gate_run(subject: Subject, key: str) -> Run:
    """The gate's decision through the core's check, as (kept ids, removed)."""
    gate = subject.component

    def run() -> Run:
        pool, ctx = measured_pool(subject.problem)
        try:
            decision = apply_gate(gate, pool, ctx)       # the core's check: type, kept ids, keeps one
        except PluginError as exc:
            raise violation(gate, str(exc), "return GateDecision(kept=[some of the given candidates], "
                            "removed={id: reason})") from None
        ids = {c.id for c in pool}
        foreign = sorted(set(decision.removed) - ids)
        if foreign:
            raise violation(gate, f"removed ids {foreign} are not in the pool {sorted(ids)}",
                            "name in removed only ids of candidates the gate was given")
        check_json_safe(gate, {"removed": decision.removed, "note": decision.note}, "the decision's removed/note")
        return Run(([c.id for c in decision.kept], dict(decision.removed)), [])
    return subject.once(f"gate {key}", run)


def gate_reading(subject: Subject) -> Run:
    """The gate called on the candidates' views themselves, to see every change it makes to them."""
    gate = subject.component

    def run() -> Run:
        pool, ctx = measured_pool(subject.problem)
        views = [candidate_view(c) for c in pool]
        named = {"candidates": views, "problem": ctx.problem, **context_parts(ctx)}
        _, changed = unchanged(named, lambda: contained_call(gate, lambda: gate.apply(list(views), ctx)))
        return Run(None, changed)
    return subject.once("gate reading", run)


# ------------------------------------------------------------------ executor
def conformance_unit(item: int) -> dict[str, Any]:
    """A module-level unit (picklable by reference) that the executor check maps."""
    if item == FAILING_ITEM:
        raise ValueError("this unit fails on purpose")
    return {"item": item, "square": item * item}


def conformance_total(item: list[int]) -> dict[str, Any]:
    """A unit on a mutable item (a list), for the check that an executor leaves its units alone."""
    return {"total": sum(item)}


def executor_runs(subject: Subject) -> Run:
    """Two checked maps (a second must not answer with the first one's records), then a plain map of
    list items whose changes are recorded; the executor is closed after."""
    executor: Executor = subject.component

    def run() -> Run:
        items = list(EXECUTOR_ITEMS)
        units = [[3, 1], [4], [1, 5, 9]]
        with executor:
            try:
                run_executor(executor, conformance_unit, items[::-1])
                results = run_executor(executor, conformance_unit, items)
            except PluginError as exc:
                raise violation(executor, str(exc), "return fn(item) for every item, unchanged, in input order") from None
            _, changed = unchanged({"items": units}, lambda: contained_call(
                executor, lambda: executor.map(conformance_total, units)))
        return Run(results, changed)
    return subject.once("maps", run)

