"""The conformance suite: named checks of a component class, one pytest item each.

In the spirit of scikit-learn's ``check_estimator`` and ``parametrize_with_checks``: every rule
``desyr run`` holds a component to is a named check (``check_searcher_is_deterministic``), run on
a tiny real problem through the same checking functions the pipeline calls (:mod:`desyr.stages`),
plus the rules a run relies on implicitly (determinism for a seed, picklability for the
``processes`` executor, JSON-safe info, inputs left as they were given).

- :func:`component_checks` yields ``(name, check)`` for one class (scikit-learn's ``generate_only``);
- :func:`parametrize_with_checks` makes them pytest items, with expected failures as strict xfails;
- :func:`check_component` runs them all and raises the first :class:`ContractViolation`.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from desyr.errors import ConfigError
from desyr.extension.roles import Component, ExactSearcher, UnitFailure
from desyr.model.problem import Problem
from desyr.model.search import ParetoMember
from desyr.stages.search_contract import rescored
from desyr.symbolic.expressions import expression_text
from desyr.testing import runs
from desyr.testing.observe import (
    ContractViolation,
    Subject,
    check_class,
    check_json_safe,
    check_picklable,
    mutation,
    require_unchanged,
    violation,
)
from desyr.testing.runs import EXECUTOR_ITEMS, FAILING_ITEM, conformance_unit

__all__ = ["ContractViolation", "ComponentCheck", "check_component", "component_checks", "parametrize_with_checks",
           "conformance_unit"]

CheckFunction = Callable[[Subject], None]


# ------------------------------------------------------------------ common
def check_class_contract(subject: Subject) -> None:
    """A component class (not an instance) with a name, its role's methods and declared options."""
    check_class(subject.cls)


def check_options_accepted(subject: Subject) -> None:
    """The class accepts the options the check is given (use them for tiny budgets)."""
    subject.component  # noqa: B018 - instantiating is the check


# ------------------------------------------------------------------ teacher
def check_teacher_values(subject: Subject) -> None:
    """prepare() gives a TeacherModel whose predict(X) is finite, of shape (len(X), n_fields)."""
    runs.teacher_run(subject, "first")


def check_teacher_info_is_json_safe(subject: Subject) -> None:
    model, _ = runs.teacher_run(subject, "first").value
    check_json_safe(subject.component, model.info(), "model.info()")


def check_teacher_is_deterministic(subject: Subject) -> None:
    (_, first), (_, again) = runs.teacher_run(subject, "first").value, runs.teacher_run(subject, "second").value
    if not np.array_equal(first, again):
        raise violation(subject.component, "two prepare() calls with seed 0 gave different values",
                        "seed every random generator from context.seed so a seed gives one teacher")


def check_teacher_leaves_inputs_unchanged(subject: Subject) -> None:
    require_unchanged(subject.component, runs.teacher_run(subject, "first").changed,
                      "build what you need from problem and context; "
                      "copy an array before changing it")


# ------------------------------------------------------------------ searcher
def check_searcher_is_picklable(subject: Subject) -> None:
    check_picklable(subject.component)


def check_searcher_front_is_usable(subject: Subject) -> None:
    """A non-empty front on sin(pi*x), no member dropped by the core, JSON-safe info."""
    if not runs.search_run(subject, "first").value:
        raise violation(subject.component, "its front on sin(pi*x) is empty after the core's checks",
                        "return at least one ParetoMember (sympy expression, complexity, finite loss)")


def check_searcher_uses_only_task_operators(subject: Subject) -> None:
    allowed = set(runs.searcher_task(subject).unary)
    member: ParetoMember
    for member in runs.search_run(subject, "first").value:
        used = {type(f).__name__.lower() for f in member.expression.atoms(sp.Function)}
        if used - allowed:
            raise violation(subject.component, f"member {expression_text(member.expression)} uses "
                            f"{', '.join(sorted(used - allowed))}, not in the task's unary operators "
                            f"{sorted(allowed)}", "use only task.binary and task.unary (and declare in "
                            "supported_unary/supported_binary only what the searcher can express)")


def check_searcher_is_deterministic(subject: Subject) -> None:
    first, second = runs.search_run(subject, "first").value, runs.search_run(subject, "second").value
    if _front_text(first) != _front_text(second):
        raise violation(subject.component, f"two searches with seed {runs.searcher_task(subject).seed} gave "
                        "different fronts", "seed every random generator from task.seed so a seed gives one front")


def check_searcher_losses_are_teacher_fit(subject: Subject) -> None:
    """The run re-scores every member on the teacher's samples; a loss that differs is misreported."""
    _, unscored, misreported = rescored(runs.search_run(subject, "first").value, runs.searcher_task(subject),
                                        subject.problem)
    if unscored or misreported:
        raise violation(subject.component, f"the core re-scores its members on the task's samples: "
                        f"{'; '.join((unscored + misreported)[:2])}", "report each member's teacher-fit MSE on "
                        "task.X, task.y (teacher_fit_mse, or self.scored_members)")


def check_searcher_leaves_task_unchanged(subject: Subject) -> None:
    require_unchanged(subject.component, runs.search_run(subject, "first").changed,
                      "copy task.X or task.y before changing them: "
                      "np.array(task.X); the same task goes to every searcher of a run")


def _front_text(front: list[ParetoMember]) -> list[tuple[str, int, float]]:
    return [(str(expression_text(m.expression)), int(m.complexity), float(m.loss)) for m in front]


# ------------------------------------------------------------------ exact searcher
def check_exact_searcher_proposes(subject: Subject) -> None:
    """Proposals with at least one candidate, each reading back, and JSON-safe attempts."""
    if not runs.propose_run(subject, "first").value.pool:
        raise violation(subject.component, "it proposes no candidate for u'' = -pi^2 sin(pi x) with zero ends",
                        "return Proposals with at least one mapping field -> sympy expression")


def check_exact_searcher_is_deterministic(subject: Subject) -> None:
    first, again = runs.propose_run(subject, "first").value, runs.propose_run(subject, "second").value
    if [c.search_expressions for c in first.pool] != [c.search_expressions for c in again.pool]:
        raise violation(subject.component, "two propose() calls gave different candidates",
                        "make propose() deterministic: the same problem gives the same proposals")


def check_exact_searcher_leaves_problem_unchanged(subject: Subject) -> None:
    require_unchanged(subject.component, runs.propose_run(subject, "first").changed,
                      "read the problem; build new expressions, never assign "
                      "to its fields")


# ------------------------------------------------------------------ refiner
def check_refiner_is_picklable(subject: Subject) -> None:
    check_picklable(subject.component)


def check_refiner_outcomes(subject: Subject) -> None:
    """A RefitOutcome for the candidate's own fields, finite constants when converged, for each candidate."""
    runs.refit_runs(subject, "first")


def check_refiner_is_deterministic(subject: Subject) -> None:
    pairs = zip(runs.CHECK_CANDIDATES, runs.refit_runs(subject, "first"), runs.refit_runs(subject, "second"))
    for text, first, second in pairs:
        if _outcome_key(first.value) != _outcome_key(second.value):
            raise violation(subject.component, f"two refits of {text} gave different outcomes",
                            "a refit must depend only on the candidate, the problem and the options (seed "
                            "any random starts from fixed values)")


def check_refiner_leaves_inputs_unchanged(subject: Subject) -> None:
    """The candidate (its frozen search tree above all), the problem and the points stay as given."""
    changed = [path for run in runs.refit_runs(subject, "first") for path in run.changed]
    if changed:
        raise mutation(subject.component, list(dict.fromkeys(changed)), "the candidate's search_expressions "
                       "are the frozen tree the search found: return the refit in a RefitOutcome")


def _outcome_key(outcome: Any) -> tuple[Any, ...]:
    texts = {f: str(expression_text(e)) for f, e in (outcome.expressions or {}).items()}
    return outcome.status, outcome.params, texts


# ------------------------------------------------------------------ gate
def check_gate_decision(subject: Subject) -> None:
    """A GateDecision keeping some of the given candidates (one at least), removing only their ids."""
    runs.gate_run(subject, "first")


def check_gate_is_deterministic(subject: Subject) -> None:
    if runs.gate_run(subject, "first").value != runs.gate_run(subject, "second").value:
        raise violation(subject.component, "two calls on the same pool gave different decisions",
                        "decide from the candidates and the context alone")


def check_gate_leaves_inputs_unchanged(subject: Subject) -> None:
    require_unchanged(subject.component, runs.gate_reading(subject).changed,
                      "a gate only decides: return GateDecision(kept, removed) "
                      "and leave the candidates' expressions and measures as they are")


# ------------------------------------------------------------------ executor
def check_executor_workers(subject: Subject) -> None:
    workers = subject.component.workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise violation(subject.component, f"workers is {workers!r}", "make the workers property an int >= 1")


def check_executor_returns_each_units_result(subject: Subject) -> None:
    """One result per unit in its unit's place, over two maps; a UnitFailure for the unit that raises."""
    for i, (item, result) in enumerate(zip(EXECUTOR_ITEMS, runs.executor_runs(subject).value)):
        if item == FAILING_ITEM and not isinstance(result, UnitFailure):
            raise violation(subject.component, f"unit {i} raised but came back as {type(result).__name__}",
                            "answer a unit that raises with a UnitFailure in its place")
        if item != FAILING_ITEM and result != conformance_unit(item):
            raise violation(subject.component, f"unit {i} came back as {result!r}, expected "
                            f"{conformance_unit(item)}", "return fn(item) for every item, in input order")


def check_executor_leaves_units_unchanged(subject: Subject) -> None:
    require_unchanged(subject.component, runs.executor_runs(subject).changed,
                      "pass each item to fn as it is; never sort, edit or "
                      "consume the list of items")


#: the checks of each kind of component, in the order check_component runs them
COMMON: tuple[CheckFunction, ...] = (check_class_contract, check_options_accepted)
CHECKS: dict[str, tuple[CheckFunction, ...]] = {
    "teacher": (check_teacher_values, check_teacher_info_is_json_safe, check_teacher_is_deterministic,
                check_teacher_leaves_inputs_unchanged),
    "searcher": (check_searcher_is_picklable, check_searcher_front_is_usable, check_searcher_uses_only_task_operators,
                 check_searcher_is_deterministic, check_searcher_losses_are_teacher_fit,
                 check_searcher_leaves_task_unchanged),
    "exact searcher": (check_searcher_is_picklable, check_exact_searcher_proposes,
                       check_exact_searcher_is_deterministic, check_exact_searcher_leaves_problem_unchanged),
    "refiner": (check_refiner_is_picklable, check_refiner_outcomes, check_refiner_is_deterministic,
                check_refiner_leaves_inputs_unchanged),
    "gate": (check_gate_decision, check_gate_is_deterministic, check_gate_leaves_inputs_unchanged),
    "executor": (check_executor_workers, check_executor_returns_each_units_result,
                 check_executor_leaves_units_unchanged),
}


def check_names(cls: Any) -> list[str]:
    """The names of the checks a class gets (the common ones only, for anything not a component class)."""
    return [fn.__name__ for fn in _checks_of(cls)]


def _checks_of(cls: Any) -> tuple[CheckFunction, ...]:
    if not (isinstance(cls, type) and issubclass(cls, Component)):
        return COMMON[:1]
    kind = "exact searcher" if issubclass(cls, ExactSearcher) else cls.role
    return COMMON + CHECKS.get(kind, ())


# ------------------------------------------------------------------ the API
#: subjects of parametrized checks, so the items of one component share its runs (a few at a time)
_SUBJECTS: OrderedDict[tuple[Any, ...], Subject] = OrderedDict()
_KEEP = 4


@dataclass(frozen=True)
class ComponentCheck:
    """One named check of one component class; call it with no arguments. Checks of one class with
    the same options and problem share their runs of the component (each run made once)."""

    name: str
    function: CheckFunction = field(repr=False)
    cls: Any
    options: Mapping[str, Any] = field(default_factory=dict)
    problem: Problem | None = field(default=None, repr=False)

    def __call__(self) -> None:
        self.function(_shared_subject(self.cls, self.options, self.problem))


def _shared_subject(cls: Any, options: Mapping[str, Any], problem: Problem | None) -> Subject:
    key = (cls, repr(sorted(options.items())), id(problem))
    if key not in _SUBJECTS:
        _SUBJECTS[key] = Subject(cls, options, problem)
        while len(_SUBJECTS) > _KEEP:
            _SUBJECTS.popitem(last=False)
    _SUBJECTS.move_to_end(key)
    return _SUBJECTS[key]


def component_checks(cls: Any, problem: Problem | None = None, **options: Any) -> Iterator[tuple[str, ComponentCheck]]:
    """``(name, check)`` for every check of component class ``cls`` instantiated with ``options``, in
    order; nothing runs until a check is called (scikit-learn's ``generate_only``)."""
    for fn in _checks_of(cls):
        yield fn.__name__, ComponentCheck(fn.__name__, fn, cls, dict(options), problem)


def check_component(cls: Any, problem: Problem | None = None, **options: Any) -> list[str]:
    """Run every check of component class ``cls`` (any role), instantiated with ``options`` (use them
    for tiny budgets). ``problem`` defaults to :data:`desyr.testing.SINE_POISSON_1D`. Raises the first
    :class:`ContractViolation`, naming the fix; returns the names of the checks, all passed."""
    subject = Subject(cls, options, problem)
    names = []
    for fn in _checks_of(cls):
        fn(subject)
        names.append(fn.__name__)
    return names


def parametrize_with_checks(components: Iterable[Any], expected_failures: Any = None, problem: Problem | None = None
                            ) -> Any:
    """A ``pytest.mark.parametrize("component, check", ...)`` with one item per check of each component.

    ``components``: classes, ``(cls, options)`` pairs, or ``pytest.param(cls, options, marks=..., id=...)``
    (its marks and id go to every check of that component). ``expected_failures``: ``{"check_name":
    "why"}`` for every component, or a function ``cls -> {"check_name": "why"}``; those checks are
    strict xfails (a check listed that passes fails the suite), and a name that is no check is refused."""
    import pytest

    params = []
    for item in components:
        cls, options, marks, name = _unpack(item)
        expected = _expected(expected_failures, cls)
        for check_name, check in component_checks(cls, problem, **options):
            extra = [pytest.mark.xfail(reason=expected[check_name], strict=True, raises=ContractViolation)] \
                if check_name in expected else []
            params.append(pytest.param(cls, check, marks=[*marks, *extra], id=f"{name}-{check_name}"))
    return pytest.mark.parametrize("component, check", params)


def _unpack(item: Any) -> tuple[Any, dict[str, Any], tuple[Any, ...], str]:
    marks: tuple[Any, ...] = ()
    given_id = None
    if hasattr(item, "values") and hasattr(item, "marks"):        # a pytest.param
        item, marks, given_id = item.values if len(item.values) > 1 else item.values[0], tuple(item.marks), item.id
    cls, options = item if isinstance(item, tuple) else (item, {})
    if not isinstance(options, Mapping):
        raise ConfigError(f"parametrize_with_checks: the options of {cls!r} are {type(options).__name__}; "
                          "give a component class, (cls, {option: value}) or pytest.param(cls, {...})")
    return cls, dict(options), marks, str(given_id or getattr(cls, "__name__", repr(cls)))


def _expected(expected_failures: Any, cls: Any) -> dict[str, str]:
    found = expected_failures(cls) if callable(expected_failures) else expected_failures
    found = dict(found or {})
    known = {fn.__name__ for group in (COMMON, *CHECKS.values()) for fn in group}
    unknown = sorted(set(found) - known)
    if unknown:
        raise ConfigError(f"expected_failures names no check: {', '.join(unknown)} (the checks: "
                          f"{', '.join(sorted(known))})")
    return {k: str(v) for k, v in found.items()}
