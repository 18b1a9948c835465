"""The run's memo: a unit computed once in a run (a quick searcher's seed, a candidate's refit) is not
computed again by a later round, wave or escalation attempt of the same run."""
from __future__ import annotations

import pytest

from desyr.extension.roles import UnitFailure
from desyr.runtime.execution import InProcess, Memo, Units
from desyr.stages.refit import _finished
from desyr.stages.refit_record import OUT_OF_TIME
from desyr.stages.search import search_memo_key, within_limit


def _counted(calls: list[str]):
    def unit(item: str) -> dict[str, str]:
        calls.append(item)
        if item == "bad":
            raise ValueError("no")
        return {"value": item.upper()}
    return unit


def test_a_unit_asked_for_again_is_answered_from_the_memo():
    calls: list[str] = []
    units = Units(InProcess())
    named = [("a", "a"), ("b", "b"), ("bad", "bad")]
    first = units.run("search", named, _counted(calls), memo_key=lambda name, item: name)
    again = units.run("search", named, _counted(calls), memo_key=lambda name, item: name)
    assert calls == ["a", "b", "bad", "bad"]           # a failure is not remembered: it is tried again
    assert first[:2] == again[:2] == [{"value": "A"}, {"value": "B"}]
    assert isinstance(again[2], UnitFailure) and units.counts["reused"] == 2
    again[0]["value"] = "changed"                      # a caller's edit does not reach the memo
    assert units.run("search", named[:1], _counted(calls), memo_key=lambda name, item: name) == [{"value": "A"}]


def test_without_a_key_or_where_the_record_does_not_fit_the_unit_is_computed():
    calls: list[str] = []
    memo = Memo()
    units = Units(InProcess(), memo=memo)
    units.run("refit", [("a", "a")], _counted(calls), memo_key=lambda name, item: name)
    units.run("refit", [("a", "a")], _counted(calls))                         # no key: no memo
    units.run("refit", [("a", "a")], _counted(calls), memo_key=lambda name, item: name,
              fits=lambda item, record: False)                               # not for this unit
    units.run("search", [("a", "a")], _counted(calls), memo_key=lambda name, item: name)   # another kind
    assert calls == ["a", "a", "a", "a"] and len(memo) == 2
    # units sharing a memo (escalation's attempts) answer each other
    Units(InProcess(), memo=memo).run("refit", [("a", "a")], _counted(calls), memo_key=lambda name, item: name)
    assert len(calls) == 4


class _Searcher:
    name = "s"
    settings = {"generations": 10}


def _task(**budget):
    from types import SimpleNamespace
    return SimpleNamespace(binary=["+"], unary=["sin"], max_size=10, budget=budget, variables=["x"], time=None,
                           centres=(), deadline=None)


def test_a_search_is_remembered_only_where_no_clock_limit_cut_it_short():
    searcher = _Searcher()
    # the clock limit is not part of the key: a search that ran well within both limits answers both
    assert search_memo_key("u-0", (searcher, _task(time_limit=5.0), None, None)) == \
        search_memo_key("u-0", (searcher, _task(time_limit=50.0), None, None))
    assert search_memo_key("u-0", (searcher, _task(), None, None)) != search_memo_key("u-1", (searcher, _task(), None, None))
    assert search_memo_key("u-0", (searcher, _task(iterations=5), None, None)) != \
        search_memo_key("u-0", (searcher, _task(), None, None))
    assert within_limit((searcher, _task(), None, None), {"seconds": 100.0})
    assert within_limit((searcher, _task(time_limit=10.0), None, None), {"seconds": 2.0})
    assert not within_limit((searcher, _task(time_limit=3.0), None, None), {"seconds": 2.0})
    assert not within_limit((searcher, _task(), None, None), {"seconds": 0.1, "stopped": True})
    # under a budget: less than half of its share of it, and of the time the stage has left
    from desyr.stages.search import SearchLimit
    assert within_limit((searcher, _task(), None, SearchLimit(10.0, None)), {"seconds": 2.0})
    assert not within_limit((searcher, _task(), None, SearchLimit(3.0, None)), {"seconds": 2.0})
    import time
    soon = _task()
    soon.deadline = time.time() + 1.0
    soon.seconds_left = lambda: max(soon.deadline - time.time(), 0.0)
    assert not within_limit((searcher, soon, None, None), {"seconds": 2.0})


def test_a_search_answered_in_an_earlier_round_answers_a_later_shorter_one():
    from desyr.stages.search import SearchLimit
    searcher = _Searcher()
    # it took 4 s of a 10 s share: no limit cut it, so a later round's 2 s share reuses it (a rerun would be
    # stopped at its share and leave an empty front)
    done = {"seconds": 4.0, "cap": 10.0}
    assert within_limit((searcher, _task(), None, SearchLimit(2.0, None)), done)
    assert within_limit((searcher, _task(time_limit=1.0), None, None), done)
    assert within_limit((searcher, _task(), None, None), {"seconds": 40.0, "cap": None})   # it had no limit
    # a search its limit may have cut short answers one with no more time, never one with more
    cut = {"seconds": 8.0, "cap": 10.0}
    assert within_limit((searcher, _task(), None, SearchLimit(3.0, None)), cut)
    assert not within_limit((searcher, _task(), None, SearchLimit(30.0, None)), cut)
    assert not within_limit((searcher, _task(), None, None), cut)
    assert not within_limit((searcher, _task(), None, SearchLimit(2.0, None)), {**done, "stopped": True})


def test_a_search_record_names_the_smallest_limit_it_ran_under():
    import time

    import numpy as np

    from desyr.model.search import SearchTask
    from desyr.plugin import ParetoMember, SearchResult
    from desyr.stages.search import SearchLimit, search_unit
    from desyr.testing import make_problem

    class Quick(_Searcher):
        def search(self, task):
            return SearchResult([ParetoMember(__import__("sympy").Symbol("x"), 1, 0.1)])

    X = np.linspace(0, 1, 5)[:, None]
    task = SearchTask(X=X, y=X[:, 0], variables=["x"], binary=["+"], unary=[], max_size=5, seed=0,
                      budget={"time_limit": 7.0}, field_name="u", deadline=time.time() + 60)
    record = search_unit((Quick(), task, make_problem(), SearchLimit(3.0, None)))
    assert 2.5 < record["cap"] <= 3.0 and record["front"]
    record = search_unit((Quick(), task, make_problem(), SearchLimit(30.0, None)))
    assert record["cap"] == 7.0


def test_a_refit_the_deadline_cut_short_or_skipped_is_not_remembered():
    assert _finished(None, {"refit": {"status": "converged", "reason": ""}})
    assert not _finished(None, {"refit": {"status": "timeout", "reason": ""}})
    assert not _finished(None, {"refit": {"status": "failed", "reason": OUT_OF_TIME}})
    assert not _finished(None, {"refit": {"status": "failed", "reason": "x"}, "contract_broken": True})


@pytest.mark.slow
def test_once_a_shorter_refit_meets_the_physics_no_longer_candidate_is_refit():
    from desyr.extension.registry import load_registry
    from desyr.stages.refit import SHORTER_EXACT, refine_pool
    from desyr.testing import make_candidate, make_context, make_problem

    problem = make_problem()            # u'' = -pi**2 sin(pi x) on [0, 1]: sin(pi x)
    refiner = load_registry().get("refiner", "scipy")()
    texts = ["sin(3.1*x)", "sin(3.1*x) + 0.01*x**2", "sin(3.1*x) + 0.01*x**3 + 0.02*x", "x*(1 - x)*(1 + 0.3*x**2 + x)"]
    pool = [make_candidate(problem, t, id=f"c{i}") for i, t in enumerate(texts)]
    refine_pool(pool, refiner, make_context(problem))
    # the first turn refits the two shortest; sin(3.1*x) refits to sin(pi*x) exactly, so the rest wait for nothing
    assert pool[0].refit.converged and pool[0].rho_r < 1e-8
    assert pool[1].refit.reason != SHORTER_EXACT
    assert [c.refit.reason for c in pool[2:]] == [SHORTER_EXACT, SHORTER_EXACT]
    # a pool where nothing meets the physics is refit to its end
    misses = [make_candidate(problem, t, id=f"m{i}") for i, t in enumerate(["x*(1 - x)", "x*(1 - x)*(1 + x)",
                                                                           "x*(1 - x)*(1 + x**2)"])]
    refine_pool(misses, refiner, make_context(problem))
    assert all(c.refit.reason != SHORTER_EXACT for c in misses)
