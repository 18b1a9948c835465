"""The anytime order inside an attempt: a quick searcher pooled with slower ones runs first, alone,
and its verified answer ends the attempt before they start; otherwise every searcher runs."""
from __future__ import annotations

import sys

import pytest
import sympy as sp
from helpers import sine_model

from desyr.api import run
from desyr.extension.registry import load_registry
from desyr.plugin import ParetoMember, Searcher, SearchResult, Teacher, hookimpl
from desyr.testing import make_problem

x = sp.Symbol("x")


class SineTeacher(Teacher):
    name = "any_teacher"

    def prepare(self, problem, context):
        return sine_model()


class _Counted(Searcher):
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = frozenset({"sin"})
    calls = 0
    answer: sp.Expr = x

    def search(self, task):
        type(self).calls += 1
        return SearchResult([ParetoMember(type(self).answer, 4, 1e-6)])


class QuickSearcher(_Counted):
    name = "any_quick"
    quick = True


class SlowSearcher(_Counted):
    name = "any_slow"


def plugin():
    module = type(sys)("anytime_plugin")
    module.desyr_register_teachers = hookimpl(lambda: [SineTeacher])
    module.desyr_register_searchers = hookimpl(lambda: [QuickSearcher, SlowSearcher])
    return module


@pytest.fixture(scope="module")
def registry():
    return load_registry(extra_plugins=[plugin()])


def config() -> str:
    sections = ('[teacher]\nplugin = "any_teacher"\n[search]\nplugins = ["any_slow", "any_quick"]\n'
                'unary = ["sin"]\nruns = 1\n')
    return make_problem().config_text.replace("[points]", sections + "[points]")


@pytest.fixture(autouse=True)
def counts():
    QuickSearcher.calls = SlowSearcher.calls = 0
    yield


def test_a_verified_answer_of_the_quick_searcher_ends_the_attempt(registry):
    QuickSearcher.answer, SlowSearcher.answer = sp.sin(3.1 * x), x * (1 - x)
    result = run(make_problem(config()), registry=registry, plots=False)
    assert result.verdict == "proved" and result.expression == {"u": "sin(3.141592653589793*x)"}
    assert (QuickSearcher.calls, SlowSearcher.calls) == (1, 0)
    assert result.provenance.components["searcher"] == "any_quick"
    assert "quick_searchers" not in result.timings


def test_otherwise_every_searcher_runs_and_the_names_in_the_store_stay_apart(registry, tmp_path):
    QuickSearcher.answer, SlowSearcher.answer = x * (1 - x), sp.sin(3.1 * x)
    # with a run store: the quick searcher's unit of the first round must not be read back as the
    # slow searcher's unit of the second (same seed, same data)
    result = run(make_problem(config()), registry=registry, plots=False, out=tmp_path / "r")
    assert (QuickSearcher.calls, SlowSearcher.calls) == (1, 1)    # the store answers the quick one's repeat
    assert result.verdict == "proved" and result.provenance.components["searcher"] == "any_slow+any_quick"
    chosen = next(c for c in result.candidates if c.id == result.selected_id)
    assert chosen.searcher == "any_slow" and result.timings["quick_searchers"] > 0


def test_one_searcher_or_only_quick_ones_search_once(registry):
    QuickSearcher.answer = sp.sin(3.1 * x)
    text = config().replace('plugins = ["any_slow", "any_quick"]', 'plugin = "any_quick"')
    assert run(make_problem(text), registry=registry, plots=False).verdict == "proved"
    assert QuickSearcher.calls == 1


def test_an_unsolved_stage_0_attempt_is_kept_when_it_is_nearer_than_the_teachers():
    from types import SimpleNamespace

    from desyr.api.stage0 import closer
    from desyr.model.result import Residuals

    def result(verdict, r_eq, r_con):       # a result of before 0.6, with no relative residual: its absolute ones
        return SimpleNamespace(verdict=verdict, residuals=Residuals(R_eq=r_eq, R_con=r_con))

    assert closer(result("not_exact", 3e-7, 1e-9), result("not_exact", 2e-4, 1e-9))
    assert not closer(result("not_exact", 2e-4, None), result("not_exact", 3e-7, None))
    assert closer(result("verified", 1e-9, 1e-9), result("not_exact", 1e-12, 1e-12))
    assert not closer(result("not_exact", float("nan"), 0.0), result("not_exact", 1.0, 1.0))
