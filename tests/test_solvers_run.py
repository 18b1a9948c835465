"""Stage 0 in a run: the exact searchers propose before any teacher, a verified proposal ends the
run there (attempts table and solver calls in the result), and everything else falls through."""
from __future__ import annotations

import sys

import pytest
import sympy as sp
from helpers import sine_model

from desyr.api import run
from desyr.config.spec import read_spec
from desyr.extension.registry import load_registry
from desyr.model.result import load_result
from desyr.plugin import (
    ConfigError,
    ExactSearcher,
    ParetoMember,
    PluginError,
    Proposals,
    Searcher,
    SearchResult,
    SolverAttempt,
    Teacher,
    hookimpl,
)
from desyr.testing import make_problem

x = sp.Symbol("x")


class CountingTeacher(Teacher):
    """Counts its trainings, so a test can see that stage 0 ended the run before any."""

    name = "s0_teacher"
    trained = 0

    def prepare(self, problem, context):
        type(self).trained += 1
        return sine_model()


class OneSineSearcher(Searcher):
    name = "s0_one_sine"
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = frozenset({"sin"})

    def search(self, task):
        return SearchResult([ParetoMember(sp.sin(3.1 * x), 4, 1e-6)])


class TableSearcher(ExactSearcher):
    """An exact searcher from a table: a wrong proposal and a right one with a float to refit."""

    name = "s0_table"

    def propose(self, problem, time_limit):
        return Proposals(({"u": x * (1.0 - x)}, {"u": 0.9 * sp.sin(3.14 * x)}), ("guess", "table"),
                         (SolverAttempt("table", 0.01, "candidates: 2"),))


class WrongSearcher(ExactSearcher):
    """A proposal that refits but is not exact: stage 0 ends Not exact and the teacher path follows."""

    name = "s0_wrong"

    def propose(self, problem, time_limit):
        return Proposals(({"u": 0.8 * x * (1.0 - x)},), ("guess",), (SolverAttempt("guess", 0.01, "candidates: 1"),))


class NothingSearcher(ExactSearcher):
    name = "s0_nothing"

    def propose(self, problem, time_limit):
        return Proposals((), (), (SolverAttempt("none", 0.0, "not applicable", "no family fits"),))


class BrokenSearcher(ExactSearcher):
    name = "s0_broken"

    def propose(self, problem, time_limit):
        return [{"u": x}]          # not Proposals


def plugin():
    module = type(sys)("s0_plugin")
    module.desyr_register_teachers = hookimpl(lambda: [CountingTeacher])
    module.desyr_register_searchers = hookimpl(lambda: [OneSineSearcher, TableSearcher, NothingSearcher,
                                                        BrokenSearcher, WrongSearcher])
    return module


@pytest.fixture(scope="module")
def registry():
    return load_registry(extra_plugins=[plugin()])


def config(solvers: str) -> str:
    sections = '[teacher]\nplugin = "s0_teacher"\n[search]\nplugin = "s0_one_sine"\nunary = ["sin"]\nruns = 1\n'
    return make_problem().config_text.replace("[points]", sections + "[points]").replace(
        "[solvers]\nenabled = false", f"[solvers]\nenabled = true\nplugins = [{solvers}]")


def test_a_verified_proposal_ends_the_run_before_any_teacher(registry, tmp_path):
    CountingTeacher.trained = 0
    result = run(make_problem(config('"s0_table"')), registry=registry, out=tmp_path / "r", plots=False)
    assert result.verdict == "proved" and CountingTeacher.trained == 0
    assert result.teacher is None and result.search is None
    first = result.attempts[0]
    assert (first.step, first.exact, first.searchers) == ("exact_solvers", True, "s0_table:table")
    assert [c.solver for c in result.solvers] == ["table"]
    back = load_result(tmp_path / "r")                     # what result.json and report.md say
    assert back.attempts[0].searchers == "s0_table:table" and back.solvers[0].outcome == "candidates: 2"
    assert "Exact solvers (stage 0)" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_figure_that_cannot_be_moved_in_costs_no_result(registry, tmp_path):
    """Red team: a folder named fig_solution.png in --out made a Proved stage-0 run end in a traceback."""
    pytest.importorskip("matplotlib")
    (tmp_path / "a" / "fig_solution.png").mkdir(parents=True)
    solved = run(make_problem(config('"s0_table"')), registry=registry, out=tmp_path / "a")
    assert solved.verdict == "proved"
    assert load_result(tmp_path / "a").verdict == "proved" and not (tmp_path / "a" / ".stage0-figures").exists()


@pytest.mark.slow
def test_stage_0_figures_are_drawn_while_the_verifier_works_and_kept_only_for_its_answer(registry, tmp_path):
    pytest.importorskip("matplotlib")
    solved = run(make_problem(config('"s0_table"')), registry=registry, out=tmp_path / "a")
    assert solved.verdict == "proved"
    assert (tmp_path / "a" / "fig_solution.png").is_file() and not (tmp_path / "a" / ".stage0-figures").exists()
    assert "fig_solution.png" in (tmp_path / "a" / "report.md").read_text(encoding="utf-8")
    # stage 0 not exact: its figure is not left behind; the teacher path's result draws its own
    later = run(make_problem(config('"s0_wrong"')), registry=registry, out=tmp_path / "b")
    assert later.attempts[0].step == "exact_solvers" and not later.attempts[0].exact and later.verdict == "proved"
    assert not (tmp_path / "b" / ".stage0-figures").exists()
    assert (tmp_path / "b" / "fig_solution.png").is_file()


def test_without_a_proposal_the_teacher_path_runs_and_both_attempts_are_listed(registry):
    CountingTeacher.trained = 0
    result = run(make_problem(config('"s0_nothing"')), registry=registry, plots=False)
    assert result.verdict == "proved" and CountingTeacher.trained == 1
    assert [a.step for a in result.attempts] == ["exact_solvers", "first"]
    assert not result.attempts[0].exact and result.attempts[1].searchers == "s0_one_sine"
    assert result.solvers[0].detail == "no family fits"


def test_an_exact_searcher_that_breaks_its_contract_is_one_line(registry):
    with pytest.raises(PluginError) as info:
        run(make_problem(config('"s0_broken"')), registry=registry, plots=False)
    assert "searcher 's0_broken'" in str(info.value) and "\n" not in str(info.value)


def test_an_unknown_exact_searcher_is_a_config_error(registry):
    with pytest.raises(ConfigError, match="not an installed exact searcher"):
        run(make_problem(config('"s0_one_sine"')), registry=registry, plots=False)


def test_stage_0_is_on_by_default(registry):
    text = make_problem().config_text.replace("[solvers]\nenabled = false\n", "")
    assert "[solvers]" not in text
    assert read_spec(make_problem(text), registry).solvers.enabled is True


def test_stage_0_is_off_when_disabled(registry):
    CountingTeacher.trained = 0
    text = config('"s0_table"').replace("enabled = true", "enabled = false")
    result = run(make_problem(text), registry=registry, plots=False)
    assert CountingTeacher.trained == 1 and result.attempts == [] and result.solvers == []


@pytest.mark.slow
def test_the_sympy_searcher_proves_a_damped_oscillator_through_the_cli(tmp_path):
    import subprocess

    config_path = tmp_path / "damped.toml"
    config_path.write_text('extends = "examples:damped_oscillator"\n', encoding="utf-8")    # default settings
    done = subprocess.run([sys.executable, "-m", "desyr", "run", str(config_path), "--out", str(tmp_path / "r"),
                           "--no-plots", "--quiet"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = load_result(tmp_path / "r")
    assert result.verdict == "proved" and result.teacher is None
    assert result.attempts[0].searchers.startswith("sympy:")
