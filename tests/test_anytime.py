"""The anytime order inside an attempt: a quick searcher pooled with slower ones runs first, alone,
and its verified answer ends the attempt before they start; otherwise every searcher runs."""
from __future__ import annotations

import sys

import pytest
import sympy as sp
from helpers import sine_model

from desyr.api import run
from desyr.extension.registry import load_registry
from desyr.plugin import Option, ParetoMember, Searcher, SearchResult, Teacher, hookimpl
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


class ScaledSineTeacher(Teacher):
    """Offers a smaller teacher (the anytime order's first round), whose values are a little off."""

    name = "any_scaled_teacher"
    options = {"scale": Option(1.0, "the budget's scale", kind=float, low=0.0, open_low=True)}

    def smaller_budget(self):
        return {"scale": 0.5}

    def prepare(self, problem, context):
        exact, off = sine_model(), 1.0 + (1.0 - float(self.settings["scale"])) * 1e-3

        class Model(type(exact)):
            def predict(self, X):
                return exact.predict(X) * off
        return Model()


def plugin():
    module = type(sys)("anytime_plugin")
    module.desyr_register_teachers = hookimpl(lambda: [SineTeacher, ScaledSineTeacher])
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


class ScaledTeacher(Teacher):
    """A teacher with a budget to halve and double, whose values are exact at every budget."""
    name = "any_scaled"
    options = {"scale": Option(1.0, "the budget", kind=float, low=0, high=4, open_low=True)}
    prepared: list[float] = []

    def smaller_budget(self):
        return {"scale": self.settings["scale"] / 2}

    def larger_budget(self):
        larger = 2 * self.settings["scale"]
        return {"scale": larger} if larger <= 4 else None

    def prepare(self, problem, context):
        type(self).prepared.append(self.settings["scale"])
        return sine_model()


@pytest.mark.slow
def test_the_smaller_teacher_comes_first_in_the_first_attempt_only(tmp_path):
    """A larger teacher continues from the last attempt's: no smaller teacher and no early round before it."""
    import io

    from desyr.runtime.progress import Progress

    module = type(sys)("anytime_scaled_plugin")
    module.desyr_register_teachers = hookimpl(lambda: [ScaledTeacher])
    module.desyr_register_searchers = hookimpl(lambda: [QuickSearcher, SlowSearcher])
    registry = load_registry(extra_plugins=[module])
    QuickSearcher.answer = SlowSearcher.answer = x * (1 - x)        # never exact: escalation goes on
    ScaledTeacher.prepared = []
    text = config().replace('plugin = "any_teacher"', 'plugin = "any_scaled"') + \
        '\n[escalation]\nsteps = ["larger_teacher"]\n'
    stream = io.StringIO()
    result = run(make_problem(text), registry=registry, plots=False, budget=20, progress=Progress(stream),
                 cache_dir=tmp_path)
    steps = [a.step for a in result.attempts]
    assert steps[:2] == ["first", "larger_teacher"]
    assert ScaledTeacher.prepared[:3] == [0.5, 1.0, 2.0]
    assert stream.getvalue().count("on the smaller teacher") == 1

def test_a_later_round_never_loses_an_earlier_rounds_candidates(registry, monkeypatch):
    # the memo off, and the quick searcher's second search (the round with every searcher) finds nothing,
    # as a search stopped at its share does: the first round's candidate must stay in the pool
    from desyr.runtime.execution import Memo

    monkeypatch.setattr(Memo, "put", lambda self, key, record: None)
    answers = iter([[ParetoMember(x * (1 - x), 5, 1e-3)]])

    def once(self, task):
        type(self).calls += 1
        return SearchResult(next(answers, []))

    monkeypatch.setattr(QuickSearcher, "search", once)
    monkeypatch.setattr(SlowSearcher, "search", lambda self, task: SearchResult([]))
    result = run(make_problem(config()), registry=registry, plots=False)
    assert QuickSearcher.calls == 2
    assert result.selected_id is not None and result.verdict != "no_candidate"
    assert [c.searcher for c in result.candidates] == ["any_quick"]
    assert result.search.pool_size == 1


def test_the_smaller_teachers_candidates_stay_in_the_pool(registry, monkeypatch):
    # the quick searcher finds x*(1 - x) on the smaller teacher's values only; on the configured teacher's
    # values (other data, so no memo) it finds nothing, as a search stopped at its share
    answers = iter([[ParetoMember(x * (1 - x), 5, 1e-3)]])

    def once(self, task):
        type(self).calls += 1
        return SearchResult(next(answers, []))

    monkeypatch.setattr(QuickSearcher, "search", once)
    monkeypatch.setattr(SlowSearcher, "search", lambda self, task: SearchResult([]))
    text = config().replace('plugin = "any_teacher"', 'plugin = "any_scaled_teacher"')
    result = run(make_problem(text), registry=registry, plots=False)
    assert QuickSearcher.calls == 2 and "smaller_teacher" in result.timings
    assert result.selected_id is not None and [c.searcher for c in result.candidates] == ["any_quick"]


def test_the_best_round_so_far_is_what_the_attempt_returns():
    from types import SimpleNamespace

    from desyr.api.pipeline import _better
    from desyr.model.result import Residuals

    def result(verdict, worst, selected="c0"):
        return SimpleNamespace(verdict=verdict, residuals=Residuals(R_eq=worst, R_con=worst), selected_id=selected)

    early, empty = (result("not_exact", 1e-3), "small"), (result("no_candidate", None, None), "full")
    assert _better(None, empty) is empty
    assert _better(early, empty) is early                  # a stopped later round keeps the earlier answer
    nearer, farther = (result("not_exact", 1e-6), "full"), (result("not_exact", 1e-2), "full")
    assert _better(early, nearer) is nearer
    assert _better(early, farther) is farther      # the later round's selection stands: its pool holds early's
    assert _better((result("verified", 1e-9), "small"), nearer)[1] == "small"     # a better verdict is kept
    assert _better((result("not_exact", 1e-6, None), "x"), nearer) is nearer


def test_a_configured_teacher_stopped_after_the_early_round_keeps_its_candidates(registry, monkeypatch):
    # the smaller teacher's round found x*(1 - x) (not exact), then the configured teacher ran to its stop
    # time: the attempt returns the early round's selection, not "no candidate"
    import desyr.api.pipeline as pipeline
    from desyr.stages.stops import Stopped

    taught = pipeline.teach

    def stopped_unless_smaller(registry_, ctx, teacher):
        if float(teacher.settings["scale"]) == 1.0:
            raise Stopped()
        return taught(registry_, ctx, teacher)

    monkeypatch.setattr(pipeline, "teach", stopped_unless_smaller)
    QuickSearcher.answer, SlowSearcher.answer = x * (1 - x), x * (1 - x)
    text = config().replace('plugin = "any_teacher"', 'plugin = "any_scaled_teacher"')
    result = run(make_problem(text), registry=registry, plots=False)
    assert QuickSearcher.calls == 1 and SlowSearcher.calls == 0
    assert result.selected_id is not None and result.verdict == "not_exact"
    assert [c.searcher for c in result.candidates] == ["any_quick"]
