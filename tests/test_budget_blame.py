"""Under ``--budget`` the run names the component that overran, and only that one (issue 45, the outside
author's second round): an executor whose ``map`` sleeps is stopped and named (not the searcher whose
units it never ran); a call whose turn comes after its deadline is not started and not blamed, and the
line says who spent the time; a call that catches every stop in the run's process is named with how long
it went on past its stop time, and in the overrun warning. Stops are shortened here; the commands are
held to the promise in ``test_budget_acceptance.py``."""
from __future__ import annotations

import io
import time
import warnings
from dataclasses import replace

import pytest

import desyr.runtime.executor_map as executor_map
import desyr.stages.stops as stops
from desyr.escalation import Policy, escalate
from desyr.extension.guard import warn_at_component, warnings_once
from desyr.extension.roles import Executor
from desyr.model.outcomes import StoppedCall
from desyr.model.result import Result
from desyr.plugin import ParetoMember, Searcher, SearchResult, Teacher
from desyr.runtime.execution import InProcess, Units, serial_map
from desyr.runtime.executor_map import Unanswered
from desyr.runtime.progress import Progress
from desyr.stages.search import SearchLimit, search_fields, search_unit
from desyr.stages.stops import NoTime, note_stop, noting_stops
from desyr.stages.teach import teach
from desyr.testing import make_context, make_problem, make_task


@pytest.fixture
def short_stops(monkeypatch):
    """A call is stopped 0.2 s past its deadline, an executor's map 0.2 s past the run's backstop."""
    monkeypatch.setattr(stops, "OVERRUN_GRACE", 0.2)
    monkeypatch.setattr(stops, "OVERRUN_SHARE", 0.0)
    monkeypatch.setattr(executor_map, "EXECUTOR_GRACE", 0.2)


class SleepyMap(Executor):
    """An executor whose map sleeps on the run's main thread before it runs the units (issue 45's e_sleep)."""

    name = "sleepy_map"
    in_process = True

    def map(self, fn, items):
        time.sleep(30)
        return serial_map(fn, items)


def _record(item: int) -> dict:
    return {"item": item}


def _catching(item: int) -> dict:
    """A unit that catches every stop for a while (``except BaseException`` in a loop), then ends."""
    if item == 0:
        end = time.perf_counter() + 1.2
        while time.perf_counter() < end:
            try:
                time.sleep(0.01)
            except BaseException:  # noqa: BLE001 - what a careless plugin does
                pass
    return {"item": item}


def test_an_executor_whose_map_sleeps_is_stopped_and_its_units_are_unanswered(short_stops):
    start = time.perf_counter()
    answers = Units(SleepyMap()).run("search", [("a", 0), ("b", 1)], _record, until=time.time() + 0.3)
    assert time.perf_counter() - start < 3
    assert all(isinstance(a, Unanswered) and a.executor == "sleepy_map" and not a.stopped for a in answers)
    assert 0.4 <= answers[0].seconds < 3


def test_a_unit_that_catches_its_stops_in_process_is_the_one_named_and_the_next_gets_no_time(short_stops):
    start = time.perf_counter()
    first, second = Units(InProcess()).run("search", [("a", 0), ("b", 1)], _catching, until=time.time() + 0.2)
    assert time.perf_counter() - start < 3
    assert isinstance(first, Unanswered) and first.stopped and not first.executor and first.seconds >= 1.0
    assert isinstance(second, Unanswered) and not second.stopped and not second.executor


def test_units_answered_before_the_executor_was_stopped_keep_their_records(short_stops):
    class SleepsAfterTheFirst(Executor):
        name = "sleeps_after_the_first"
        in_process = True

        def map(self, fn, items):
            done = [fn(items[0])]
            time.sleep(30)
            return done + [fn(i) for i in items[1:]]

    answers = Units(SleepsAfterTheFirst()).run("search", [("a", 0), ("b", 1)], _record, until=time.time() + 0.3)
    assert answers[0] == {"item": 0} and isinstance(answers[1], Unanswered)


class Quick(Searcher):
    name = "quick"
    supported_binary = frozenset({"+", "-", "*", "/"})

    def search(self, task):
        import sympy as sp

        return SearchResult([ParetoMember(sp.Symbol(task.variables[0]), 1, 0.0)])


def test_the_search_stage_names_the_executor_and_not_the_searcher(short_stops, capsys, monkeypatch):
    monkeypatch.setattr("desyr.stages.search.BACKSTOP", 0.2)
    problem = make_problem()
    ctx = make_context(problem, teacher_values=problem.evaluate_reference(make_context(problem).points.search))
    ctx = replace(ctx, units=Units(SleepyMap()), deadline=time.time() + 0.3, wall=time.time() + 5)
    from desyr.config.spec import SearchSettings

    settings = SearchSettings(plugin=None, binary=("+", "-", "*", "/"), unary=(), max_size=10, runs=2,
                              plugins=None, seed_offset=0, options={}, budget={})
    start = time.perf_counter()
    with noting_stops() as noted:
        outcome = search_fields([Quick()], settings, ctx)
    assert time.perf_counter() - start < 4
    assert [(s.role, s.name) for s in noted] == [("executor", "sleepy_map")]
    assert all(not front for runs in outcome.fronts.values() for _, front in runs)
    err = capsys.readouterr().err
    assert "executor 'sleepy_map' was stopped after" in err and "searcher 'quick' was stopped" not in err


class CountingTeacher(Teacher):
    name = "counting_teacher"
    calls = 0

    def prepare(self, problem, context):
        type(self).calls += 1
        raise AssertionError("a teacher with no time left is not started")


def test_a_teacher_whose_turn_comes_after_its_deadline_is_not_started_nor_blamed(capsys):
    problem = make_problem()
    ctx = replace(make_context(problem), deadline=time.time() - 1.0, wall=time.time() - 1.0)
    with noting_stops() as noted:
        note_stop(ctx.progress, StoppedCall("searcher", "x_sleep", 21.0, 19.0, "it proposes nothing", "propose()"))
        with pytest.raises(NoTime):
            teach(None, ctx, CountingTeacher())
    assert CountingTeacher.calls == 0 and [s.name for s in noted] == ["x_sleep"]
    assert ("the run had no time left for teacher 'counting_teacher' (prepare() and predict(); searcher 'x_sleep' "
            "overran its share and was stopped)") in capsys.readouterr().err


def test_a_search_whose_turn_comes_after_its_deadline_is_not_run():
    problem = make_problem()
    task = replace(make_task(problem), deadline=time.time() - 0.5)
    record = search_unit((Quick(), task, problem, SearchLimit(1.0, None)))
    assert record["no_time"] and record["front"] == [] and record["seconds"] == 0.0


def test_escalation_names_the_call_that_spent_the_budget_not_the_attempt_that_got_no_time():
    from helpers import POLY_ONLY
    from result_files import fixture_result

    from desyr.config.spec import read_spec

    unsolved = replace(Result.from_dict(fixture_result()), exact=False)
    assert not unsolved.exact
    stream = io.StringIO()
    with noting_stops():
        note_stop(Progress(stream=stream), StoppedCall("searcher", "x_sleep", 21.0, 19.0, "it proposes nothing"))
        _, _, records, stop = escalate(read_spec(make_problem(POLY_ONLY)), Policy(1e-9, ()), None,  # type: ignore[arg-type]
                                       Progress(stream=stream), lambda variant: (unsolved, None), first=2)
    assert [a.index for a in records] == [2]
    assert stop == "no time was left after attempt 2: searcher 'x_sleep' overran its share and was stopped"


def test_a_call_that_caught_its_stops_says_so_and_is_named_in_the_overrun_warning(capsys):
    late = StoppedCall("searcher", "s_swallow", 40.1, 4.3, "it is left out of the pool", "1 of its 2 searches", 33.8)
    assert late.line() == ("searcher 's_swallow' ran 40.1 s (1 of its 2 searches; its share of the budget: 4.3 s), "
                           "33.8 s past its stop time: it caught every stop until then (only a worker process can "
                           "abandon such a call): it is left out of the pool")
    on_time = replace(late, seconds=6.4, late=0.01)
    assert on_time.line().startswith("searcher 's_swallow' was stopped after 6.4 s (1 of its 2 searches")
    with pytest.warns(RuntimeWarning, match="searcher 's_swallow' overran the budget: 1 of its 2 searches took 40.1 s"):
        note_stop(Progress(verbose=False), late, Quick())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        note_stop(Progress(verbose=False), on_time, Quick())     # stopped at its stop time: the line is enough


def test_a_kind_of_warning_about_a_component_is_shown_once_per_run_at_its_roles_method():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with warnings_once():
            for search in range(3):
                warn_at_component(Quick(), f"searcher 'quick' reported {search} loss(es)", kind="losses")
            warn_at_component(Quick(), "searcher 'quick' returned 1 unusable front member(s)", kind="dropped")
        warn_at_component(Quick(), "searcher 'quick' reported 0 loss(es)", kind="losses")     # another run
    assert [str(w.message) for w in caught] == ["searcher 'quick' reported 0 loss(es)",
                                                "searcher 'quick' returned 1 unusable front member(s)",
                                                "searcher 'quick' reported 0 loss(es)"]
    import inspect

    assert {(w.filename, w.lineno) for w in caught} == {(__file__, inspect.getsourcelines(Quick.search)[1])}
