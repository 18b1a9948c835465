"""Seed waves: a round's first seeds are searched, refit and verified before the rest, and a verified
answer skips the remaining searches (recorded in ``search.skipped_seeds`` and a progress line)."""
from __future__ import annotations

import sys
from dataclasses import replace

import pytest
import sympy as sp
from helpers import sine_model

from desyr.api import run
from desyr.extension.registry import load_registry
from desyr.plugin import ParetoMember, Searcher, SearchResult, Teacher, hookimpl
from desyr.runtime.progress import Progress
from desyr.testing import make_problem

x = sp.Symbol("x")


class SineTeacher(Teacher):
    name = "wave_teacher"

    def prepare(self, problem, context):
        return sine_model()


class SeededSearcher(Searcher):
    """Answers ``answers[k]`` for the k-th seed (seeds 0, 1, 2, ... at run seed 0)."""

    name = "wave_searcher"
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = frozenset({"sin"})
    seeds: list[int] = []
    answers: list[sp.Expr] = []

    def search(self, task):
        type(self).seeds.append(task.seed)
        return SearchResult([ParetoMember(type(self).answers[task.seed % 1000], 4, 1e-6)])


class QuickSeededSearcher(SeededSearcher):
    name = "quick_wave_searcher"
    quick = True


def plugin():
    module = type(sys)("waves_plugin")
    module.desyr_register_teachers = hookimpl(lambda: [SineTeacher])
    module.desyr_register_searchers = hookimpl(lambda: [SeededSearcher, QuickSeededSearcher, LoggedSearcher,
                                                        QuickLoggedSearcher])
    return module


@pytest.fixture(scope="module")
def registry():
    return load_registry(extra_plugins=[plugin()])


@pytest.fixture(autouse=True)
def fresh():
    SeededSearcher.seeds = []
    yield


class Lines(Progress):
    def __init__(self) -> None:
        super().__init__(verbose=False)
        self.lines: list[str] = []

    def message(self, text: str) -> None:
        self.lines.append(text)


def problem(runs: int, searcher: str = "wave_searcher"):
    sections = f'[teacher]\nplugin = "wave_teacher"\n[search]\nplugin = "{searcher}"\nunary = ["sin"]\nruns = {runs}\n'
    return make_problem(make_problem().config_text.replace("[points]", sections + "[points]"))


def test_a_verified_first_wave_skips_the_remaining_seeds(registry):
    SeededSearcher.answers = [sp.sin(3.1 * x), x * (1 - x), x * (1 - x), x * (1 - x)]
    progress = Lines()
    result = run(problem(4), registry=registry, plots=False, progress=progress)   # in process: one worker
    assert result.verdict == "proved" and result.expression == {"u": "sin(3.141592653589793*x)"}
    assert SeededSearcher.seeds == [0, 1]        # one field, one searcher: two seeds give two searches
    assert result.search.seeds == [0, 1] and result.search.skipped_seeds == [2, 3]
    assert any("2 search(es) of seed(s) [2, 3] skipped" in line for line in progress.lines)


def test_an_unverified_first_wave_searches_the_rest_and_pools_every_seed(registry, tmp_path):
    SeededSearcher.answers = [x * (1 - x), x ** 2, sp.sin(3.1 * x)]
    result = run(problem(3), registry=registry, plots=False, out=tmp_path / "r")
    assert result.verdict == "proved" and SeededSearcher.seeds == [0, 1, 2]
    assert result.search.seeds == [0, 1, 2] and result.search.skipped_seeds == []
    assert [r.seed for r in result.search.runs] == [0, 1, 2]
    assert {c.search_seed for c in result.candidates} == {0, 1, 2}   # one pool: the first wave's fronts are in it
    assert result.provenance.execution.units_reused >= 1       # the first wave's refit, from the run store


def test_the_first_wave_holds_two_searches_whatever_the_executor():
    from desyr.config.spec import read_spec
    from desyr.stages.waves import seed_waves

    base = make_problem().config_text
    spec = read_spec(make_problem(base.replace("[points]", "[search]\nruns = 4\n[points]")), load_registry())
    assert spec.search.seed_waves        # on by default
    waves = seed_waves(spec.search, units_per_seed=3)
    assert [(w.runs, w.seed_offset) for w in waves] == [(1, 0), (3, 1)]
    assert [(w.runs, w.seed_offset) for w in seed_waves(spec.search, 1)] == [(2, 0), (2, 2)]
    assert seed_waves(replace(spec.search, runs=2), 1) == [replace(spec.search, runs=2)]  # nothing to skip
    assert seed_waves(replace(spec.search, runs=1), 1) == [replace(spec.search, runs=1)]


def test_quick_searchers_search_every_seed_in_one_wave(registry):
    # a second wave would add a refit that costs more than the quick searches it could skip
    SeededSearcher.answers = [sp.sin(3.1 * x), x * (1 - x), x * (1 - x), x * (1 - x)]
    result = run(problem(4, "quick_wave_searcher"), registry=registry, plots=False, progress=Lines())
    assert result.verdict == "proved" and SeededSearcher.seeds == [0, 1, 2, 3]
    assert result.search.skipped_seeds == []


class LoggedSearcher(SeededSearcher):
    """Logs (its name, the seed) of every search it is asked for."""

    name = "logged_searcher"
    log: list[tuple[str, int]] = []

    def search(self, task):
        LoggedSearcher.log.append((self.name, task.seed))
        guess = x * (1 - x) + task.seed % 1000
        loss = float(((task.X[:, 0] * (1 - task.X[:, 0]) + task.seed % 1000 - task.y) ** 2).mean())
        return SearchResult([ParetoMember(guess, 4, loss)])


class QuickLoggedSearcher(LoggedSearcher):
    name = "quick_logged_searcher"
    quick = True


def test_a_quick_searchers_seeds_are_not_searched_again_in_the_round_with_every_searcher(registry):
    LoggedSearcher.log = []
    sections = ('[teacher]\nplugin = "wave_teacher"\n[search]\nplugins = ["logged_searcher", '
                '"quick_logged_searcher"]\nruns = 2\n[points]')
    result = run(make_problem(make_problem().config_text.replace("[points]", sections)), registry=registry,
                 plots=False, progress=Lines())
    assert result.verdict != "proved"        # nothing exact: the quick round, then both waves of every searcher
    assert sorted(LoggedSearcher.log) == [("logged_searcher", 0), ("logged_searcher", 1),
                                          ("quick_logged_searcher", 0), ("quick_logged_searcher", 1)]
    # the round with every searcher took the quick searcher's fronts, and the refits of candidates
    # already refit, from the run's memo
    assert result.provenance.execution.units_reused >= 4
