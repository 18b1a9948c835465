"""The conformance suite as named checks (issue 37, item 5): ``component_checks``,
``parametrize_with_checks`` with strict expected failures, and the checks that a component leaves
what it is given as it was (one deliberately broken component per role)."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from desyr.plugin import ConfigError
from desyr.testing import ContractViolation, check_component, component_checks, parametrize_with_checks

sys.path.insert(0, str(Path(__file__).parent / "third_party" / "fiveroles"))
plugin = importlib.import_module("desyr_fiveroles.plugin")
broken = importlib.import_module("desyr_fiveroles.broken")
sys.path.pop(0)

ALL_FIVE = [plugin.FormulaTeacher, plugin.SineSearcher, plugin.KeepRefiner, plugin.SimplestGate, plugin.InlineExecutor]

#: each broken variant, the check that must name it, and what its message must say
MUTATING = [
    ("TitlingTeacher", "check_teacher_leaves_inputs_unchanged", r"changed what it was given: context\.unknown_estimates"),
    ("BudgetFillingSearcher", "check_searcher_leaves_task_unchanged",
     r"changed what it was given: task\.budget, task\.budget\['iterations'\];.*copy task\.X"),
    ("TreeRoundingRefiner", "check_refiner_leaves_inputs_unchanged",
     r"changed what it was given: candidate\.search_expressions\['u'\];.*frozen tree"),
    ("AnsweringGate", "check_gate_leaves_inputs_unchanged",
     r"changed what it was given: candidates\[0\]\.expressions\['u'\].*a gate only decides"),
    ("ConsumingExecutor", "check_executor_leaves_units_unchanged",
     r"changed what it was given: items, items\[0\].*never sort, edit or consume"),
]


def _check(cls, name):
    return dict(component_checks(cls))[name]


@pytest.mark.parametrize("cls, check, message", MUTATING, ids=[m[0] for m in MUTATING])
def test_each_mutation_check_names_what_was_changed(cls, check, message):
    with pytest.raises(ContractViolation, match=message):
        _check(getattr(broken, cls), check)()


@pytest.mark.parametrize("cls, check, message", MUTATING, ids=[m[0] for m in MUTATING])
def test_the_same_check_passes_the_component_it_was_broken_from(cls, check, message):
    _check(getattr(broken, cls).__mro__[1], check)()


@pytest.mark.parametrize("cls", ["TitlingTeacher", "BudgetFillingSearcher", "TreeRoundingRefiner",
                                 "ConsumingExecutor"])
def test_check_component_fails_a_component_that_only_changes_its_inputs(cls):
    with pytest.raises(ContractViolation, match="changed what it was given"):
        check_component(getattr(broken, cls))


def test_a_gate_changing_a_candidate_is_refused_by_the_core_check_too():
    with pytest.raises(ContractViolation, match="it changed candidate c0's expressions; a gate only decides"):
        check_component(broken.AnsweringGate)


def test_every_role_has_named_checks_with_readable_ids():
    names = {cls.role: [n for n, _ in component_checks(cls)] for cls in ALL_FIVE}
    assert all(n.startswith("check_") for group in names.values() for n in group)
    assert names["searcher"][:2] == ["check_class_contract", "check_options_accepted"]
    assert "check_searcher_is_deterministic" in names["searcher"]
    for role in names:
        assert any(n.endswith("_unchanged") for n in names[role]), role
    assert [n for n, _ in component_checks(plugin.SimplestGate())] == ["check_class_contract"]


def test_check_component_returns_the_checks_it_ran():
    assert check_component(plugin.KeepRefiner) == [n for n, _ in component_checks(plugin.KeepRefiner)]


def test_an_instance_fails_only_its_class_check():
    ((name, check),) = component_checks(plugin.SimplestGate())
    with pytest.raises(ContractViolation, match="pass the class, not an instance"):
        check()


_CALLS: list[int] = []


class Counting(plugin.SineSearcher):
    name = "counting"

    def search(self, task):
        _CALLS.append(task.seed)
        return super().search(task)


def test_checks_of_one_component_share_its_runs():
    _CALLS.clear()
    for _, check in component_checks(Counting, harmonics=2):
        check()
    assert len(_CALLS) == 2            # the first run and the determinism check's second one


# --------------------------------------------------------------- parametrize_with_checks
def _params(decorator):
    argnames, params = decorator.args
    assert argnames == "component, check"
    return {p.id: p for p in params}


def test_one_item_per_check_with_marks_and_ids_carried():
    params = _params(parametrize_with_checks([pytest.param(plugin.SineSearcher, {"harmonics": 2}, marks=[pytest.mark.slow],
                                                           id="sines"), plugin.SimplestGate]))
    sines = [i for i in params if i.startswith("sines-")]
    assert sines == [f"sines-{n}" for n, _ in component_checks(plugin.SineSearcher)]
    assert all([m.name for m in params[i].marks] == ["slow"] for i in sines)
    assert params["sines-check_searcher_is_deterministic"].values[1].options == {"harmonics": 2}
    assert "SimplestGate-check_gate_decision" in params


def test_expected_failures_become_strict_xfails():
    reason = "it marks the problem it is given"
    params = _params(parametrize_with_checks([broken.TitlingTeacher],
                                             {"check_teacher_leaves_inputs_unchanged": reason}))
    (mark,) = params["TitlingTeacher-check_teacher_leaves_inputs_unchanged"].marks
    assert mark.name == "xfail" and mark.kwargs == {"reason": reason, "strict": True, "raises": ContractViolation}
    assert not params["TitlingTeacher-check_teacher_values"].marks


def test_expected_failures_may_depend_on_the_class():
    params = _params(parametrize_with_checks(ALL_FIVE, lambda cls: {"check_gate_decision": "why"}
                                             if cls.role == "gate" else {}))
    assert [i for i, p in params.items() if p.marks] == ["SimplestGate-check_gate_decision"]


def test_an_expected_failure_that_is_no_check_is_refused():
    with pytest.raises(ConfigError, match="expected_failures names no check: check_gate_decisoin"):
        parametrize_with_checks([plugin.SimplestGate], {"check_gate_decisoin": "typo"})


@parametrize_with_checks([broken.TitlingTeacher, broken.ConsumingExecutor],
                         expected_failures={"check_teacher_leaves_inputs_unchanged": "changes problem.title",
                                            "check_executor_leaves_units_unchanged": "pops its items"})
def test_broken_components_with_their_expected_failures(component, check):
    """Strict: if a listed check ever passes, this suite fails (XPASS(strict))."""
    check()


# --------------------------------------------------------------- fingerprints
def test_a_fingerprint_sees_in_place_changes_and_ignores_nan_and_caches():
    import numpy as np

    from desyr.testing.snapshots import changed_paths, fingerprint

    class Holder:
        def __init__(self):
            self.values, self.loss, self.names, self._memo = np.zeros(3), float("nan"), ["x"], {}
    held = Holder()
    before = fingerprint({"h": held})
    held._memo["jet"] = 1                                  # a private cache is not an input
    assert changed_paths(before, fingerprint({"h": held})) == []
    held.values[1] = 2.0
    held.names.append("y")
    assert changed_paths(before, fingerprint({"h": held})) == ["h.values", "h.names", "h.names[1]"]


def test_the_searchers_task_holds_every_unary_operator_it_declares():
    """A run hands a searcher whatever its library holds (the problem's text, the teacher's evidence, the
    broad base): a searcher that declares an operator and breaks on it fails its conformance (issue 45)."""
    import sympy as sp

    from desyr.plugin import ParetoMember, Searcher, SearchResult, teacher_fit_mse

    class BreaksOnLog(Searcher):
        name = "breaks_on_log"
        supported_binary = frozenset({"+", "-", "*", "/"})
        supported_unary = frozenset({"sin", "exp", "log"})

        def search(self, task):
            if "log" in task.unary:
                raise ValueError("log is not wired up")
            x = sp.Symbol("x")
            return SearchResult([ParetoMember(sp.sin(3.1 * x), 4, teacher_fit_mse(sp.sin(3.1 * x), [x], task.X,
                                                                                   task.y))])

    with pytest.raises(ContractViolation, match="log is not wired up"):
        _check(BreaksOnLog, "check_searcher_front_is_usable")()


    class WithoutLog(BreaksOnLog):      # what it does not declare, it is never handed
        name = "without_log"
        supported_unary = frozenset({"sin", "exp"})

    _check(WithoutLog, "check_searcher_front_is_usable")()
