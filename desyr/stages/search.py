"""Stage A, second half: K seeded searches per field and searcher, each one unit (run by the executor, or
read back from the run store or the run's memo), under its share of the budget and stopped past it, with the
record a search leaves. What each searcher's answer is held to is :mod:`desyr.stages.search_contract`;
retention and pooling are :mod:`desyr.stages.pool`."""
from __future__ import annotations

import math
import re
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

import numpy as np

from desyr.config.spec import SearchSettings
from desyr.errors import ConfigError, DesyrError
from desyr.extension.guard import overran, warn_at_component
from desyr.extension.roles import Searcher, UnitFailure
from desyr.model.context import RunContext, SearchInfo, SearchRun
from desyr.model.frozen import thawed
from desyr.model.outcomes import StoppedCall
from desyr.model.problem import Problem
from desyr.model.search import ParetoMember, SearchTask
from desyr.runtime.execution import serial_units
from desyr.runtime.executor_map import Unanswered
from desyr.runtime.store import NUMBER, check_depth, digest, stored_field
from desyr.stages.search_contract import run_search
from desyr.stages.stops import (
    BACKSTOP,
    Stopped,
    executor_stop,
    grace,
    late_by,
    no_time,
    note_stop,
    stop_time,
    stopped_at,
)
from desyr.symbolic.expressions import expression_text


def search_seeds(base: int, runs: int, offset: int = 0) -> list[int]:
    return [1000 * base + k for k in range(offset, offset + runs)]


@dataclass(frozen=True)
class SearchOutcome:
    """Stage A's searches: every checked front by (field, searcher) in seed order, and the run facts
    (``kept`` and the pool sizes are the pool stage's to fill in)."""

    fronts: Mapping[tuple[str, str], list[tuple[int, list[ParetoMember]]]]
    info: SearchInfo
    seconds: float


def search_fields(searchers: list[Searcher], settings: SearchSettings, ctx: RunContext,
                  first: str | None = None) -> SearchOutcome:
    """K seeded searches per field and searcher on that field's teacher output (each search one unit,
    run by the executor or read back from the run store). ``first``: the configured first searcher
    (default: the first of ``searchers``), whose units keep unprefixed names. Under a deadline each
    search has its share (:class:`SearchLimit`), and a search still running at its stop time is stopped
    and left out of the pool (:mod:`desyr.stages.stops`)."""
    problem, start = ctx.problem, time.perf_counter()
    assert ctx.teacher_values is not None, "the teacher runs before the search"
    seeds = search_seeds(ctx.seed, settings.runs, settings.seed_offset)
    label = "+".join(s.name for s in searchers)
    info = SearchInfo(label, seeds, list(settings.binary), list(settings.unary or ()), int(settings.max_size))
    units = ctx.units or serial_units()
    cap = _seconds_per_search(ctx, len(problem.fields) * len(searchers) * len(seeds), units.executor.workers)
    limit = None if cap is None else SearchLimit(cap, ctx.wall)
    named = []
    for j, field in enumerate(problem.fields):
        values = ctx.teacher_values[:, j]
        # the name hashes what this search sees, so a store never feeds a front found on other data
        data = digest(np.ascontiguousarray(ctx.points.search).tobytes(), np.ascontiguousarray(values).tobytes())
        for searcher in searchers:
            # the configured first keeps the names stores already hold; a unit's name never depends on
            # which searchers run beside it (the anytime order runs the quick ones alone first)
            prefix = "" if searcher.name == (first or searchers[0].name) else f"{searcher.name}-"
            for seed in seeds:
                task = SearchTask(X=ctx.points.search, y=values, variables=list(problem.variable_names),
                                  binary=list(settings.binary), unary=list(settings.unary or ()),
                                  max_size=int(settings.max_size), seed=seed,
                                  budget=_time_capped(searcher, thawed(settings.budget), cap), field_name=field,
                                  time=problem.time, centres=round_centres(problem), deadline=ctx.deadline)
                named.append((f"{prefix}{field}-{seed}-{data[:16]}", (searcher, task, problem, limit)))
    ctx.progress.message(f"stage A: {len(named)} {label} search(es) "
                         f"({len(seeds)} per field and searcher) on {units.executor.name} x {units.executor.workers}")
    began = time.perf_counter()
    records = units.run("search", named, search_unit, check_search_record,
                        None if limit is None else limit.backstop(ctx.deadline), memo_key=search_memo_key,
                        fits=within_limit)
    _overruns(named, records, cap)
    executor_stop(ctx.progress, records, units.executor)
    _stops(named, records, cap, time.perf_counter() - began, ctx)
    fronts: dict[tuple[str, str], list[tuple[int, list[ParetoMember]]]] = {}
    for (_, (searcher, task, _, _)), record in zip(named, records):
        if isinstance(record, UnitFailure) and (record.stopped or isinstance(record, Unanswered)):
            record = _stopped_record(task, time.perf_counter() - began)
        if isinstance(record, UnitFailure):
            raise record.error if isinstance(record.error, DesyrError) else ConfigError(
                f"searcher '{searcher.name}' search (seed {task.seed}): {record.message}")
        front = _front_of(record, problem)
        for category, text in record.get("warnings", []):
            warn_at_component(searcher, text, _WARNINGS.get(category, RuntimeWarning), kind=warning_kind(text))
        fronts.setdefault((task.field_name, searcher.name), []).append((task.seed, front))
        info.runs.append(SearchRun(task.field_name, task.seed, len(front), 0, record["seconds"],
                                   record["front"], record["dropped"], {**record["info"], "searcher": searcher.name}))
    return SearchOutcome(fronts, info, time.perf_counter() - start)


@dataclass(frozen=True)
class SearchLimit:
    """A search's part of the budget: its seconds from when it starts (searches queue for the workers),
    and the run's wall."""

    seconds: float
    wall: float | None

    def stop(self, deadline: float) -> float | None:
        """When a search whose deadline is ``deadline`` is stopped."""
        return stop_time(deadline, self.seconds, self.wall)

    def backstop(self, deadline: float | None) -> float | None:
        """When the run stops waiting on any search of a stage ending at ``deadline``, a moment after the
        last search's own stop."""
        at = None if deadline is None else self.stop(deadline)
        return None if at is None else at + BACKSTOP


def search_memo_key(name: str, item: tuple[Searcher, SearchTask, Problem, SearchLimit | None]) -> str:
    """A search's key in the run's memo: its unit name (field, seed, the teacher's values) and the
    settings the name leaves out (the searcher's, the library, the size, the budget), so the quick
    searchers' seeds are not searched again in the round with every searcher, and a search with
    another library or budget never reuses a front."""
    searcher, task, _, _ = item
    budget = sorted((k, v) for k, v in task.budget.items() if k != "time_limit")     # within_limit's part
    return digest(name, searcher.name, sorted(searcher.settings.items()), task.binary, task.unary, task.max_size,
                  budget, task.variables, task.time, task.centres)


#: a search that took less than this part of its clock limit was not cut short by it
UNCUT_SHARE = 0.5


def within_limit(item: tuple[Searcher, SearchTask, Problem, SearchLimit | None], record: dict[str, Any]) -> bool:
    """Whether a remembered search answers this one: it was not stopped, and either no limit cut it short
    (it took less than half of the smallest limit it ran under, its ``cap``: its front is the whole
    answer, whatever this search's limits), or this search has no more time than it had (a rerun would
    be cut at least as short, so the front found is the best this search could give). A record without
    its ``cap`` (written before it was kept) is judged by this task's limits alone (a clock limit in its
    budget, its share of the budget, the time left to the stage's deadline)."""
    _, task, _, limit = item
    took = record.get("seconds")
    if record.get("stopped") or not _number(took):
        return False
    mine = _limits(task, limit)
    if "cap" in record:
        cap = record["cap"]
        if cap is None or (_number(cap) and took < UNCUT_SHARE * cap):
            return True
        return _number(cap) and min(mine, default=math.inf) <= cap
    return all(took < UNCUT_SHARE * v for v in mine) and \
        not (task.deadline is not None and task.seconds_left() <= 0)


def _number(value: object) -> TypeGuard[float]:
    """A finite number, not a flag."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _limits(task: SearchTask, limit: SearchLimit | None) -> list[float]:
    """The limits a search runs under now: a clock limit in its budget, its share of the budget, and the
    time left to its deadline (that one even at 0: no time is the smallest limit)."""
    limits = [float(v) for v in (task.budget.get("time_limit"), None if limit is None else limit.seconds)
              if _number(v) and v > 0]
    return limits + ([max(task.seconds_left(), 0.0)] if task.deadline is not None else [])


def round_centres(problem: Problem) -> tuple[dict[str, float], ...]:
    """The centres of the domain's round shapes (none on a box)."""
    return problem.geometry.centres() if problem.geometry is not None else ()


def _overruns(named: Sequence[tuple[str, Any]], records: Sequence[object], cap: float | None) -> None:
    """Under a deadline, each searcher whose slowest search overran its share, named in a warning (a
    stopped search is named by :func:`_stops` instead)."""
    if cap is None:
        return
    slowest: dict[str, tuple[float, Searcher]] = {}
    for (_, (searcher, _, _, _)), record in zip(named, records):
        took = record.get("seconds") if isinstance(record, dict) and not record.get("stopped") else None
        if isinstance(took, (int, float)) and took > slowest.get(searcher.name, (-1.0, searcher))[0]:
            slowest[searcher.name] = (float(took), searcher)
    for name, (took, searcher) in slowest.items():
        overran(searcher, "searcher", name, took, cap, "a search")


def _stops(named: Sequence[tuple[str, Any]], records: Sequence[object], cap: float | None, waited: float,
           ctx: RunContext) -> None:
    """One line per searcher whose searches were stopped (each left out of the pool), and one per searcher
    with searches the run had no time left for (not blamed: their turn came after the deadline)."""
    stopped: dict[str, list[tuple[float, float, float]]] = {}    # searcher -> (seconds, share, late) of each
    unstarted: dict[str, int] = {}
    unanswered: dict[str, int] = {}
    total: dict[str, int] = {}
    by_name: dict[str, Searcher] = {}
    for (_, (searcher, _, _, _)), record in zip(named, records):
        total[searcher.name] = total.get(searcher.name, 0) + 1
        by_name[searcher.name] = searcher
        if isinstance(record, Unanswered) and record.stopped:         # it ran here and caught its stops
            stopped.setdefault(searcher.name, []).append((record.seconds, cap or 0.0,
                                                          max(record.seconds - (cap or 0.0) - grace(cap or 0.0), 0.0)))
        elif isinstance(record, Unanswered) and record.executor:
            unanswered[searcher.name] = unanswered.get(searcher.name, 0) + 1
        elif isinstance(record, Unanswered) or isinstance(record, dict) and record.get("no_time"):
            unstarted[searcher.name] = unstarted.get(searcher.name, 0) + 1
        elif isinstance(record, UnitFailure) and record.stopped:
            stopped.setdefault(searcher.name, []).append((waited, cap or 0.0, 0.0))
        elif isinstance(record, dict) and record.get("stopped"):
            stopped.setdefault(searcher.name, []).append((float(record["seconds"]), float(record["share"]),
                                                          float(record.get("late", 0.0))))
    for name, calls in stopped.items():
        seconds, share, late = max(calls)
        what = ("its search" if total[name] == 1 else f"1 of its {total[name]} searches" if len(calls) == 1 else
                f"the longest of {len(calls)} of its {total[name]} searches")
        note_stop(ctx.progress, StoppedCall("searcher", name, seconds, share,
                                            f"{'they are' if len(calls) > 1 else 'it is'} left out of the pool", what,
                                            late), by_name[name])
    for name, count in unstarted.items():
        what = f"{count} of its {total[name]} searches" if total[name] > 1 else "its search"
        no_time(ctx.progress, "searcher", name, what, f"{'they are' if count > 1 else 'it is'} left out of the pool")
    for name, count in unanswered.items():
        ctx.progress.message(f"stage A: {count} of the {total[name]} {name} search(es) not answered: the executor "
                             "was stopped (the searcher is not to blame)")


def _stopped_record(task: SearchTask, seconds: float, share: float = 0.0) -> dict[str, Any]:
    """The record of a search stopped at its stop time after ``seconds`` of its ``share``: no front (it is
    left out of the pool)."""
    return {"field": task.field_name, "seed": task.seed, "seconds": round(seconds, 3), "front": [], "dropped": [],
            "info": {"stopped": "at its stop time (--budget)"}, "warnings": [], "stopped": True,
            "share": round(share, 3)}


def _seconds_per_search(ctx: RunContext, searches: int, workers: int) -> float | None:
    """Under a deadline, each search's share of the time left (searches queue for the workers)."""
    if ctx.deadline is None:
        return None
    rounds = math.ceil(searches / max(int(workers or 1), 1))
    return max(ctx.seconds_left() / max(rounds, 1), 1.0)


def _time_capped(searcher: Searcher, budget: dict[str, Any], cap: float | None) -> dict[str, Any]:
    """``budget`` with its ``time_limit`` at most ``cap``, for a searcher that takes one (a configured
    shorter limit, the option's or the budget's own, stays)."""
    name = searcher.budget_aliases.get("time_limit", "time_limit")
    if (cap is None or name not in searcher.options or "time_limit" in searcher.budget_ignored
            or name in searcher.budget_protected):
        return budget
    own = [v for v in (budget.get("time_limit"), searcher.settings.get(name))
           if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0]
    return {**budget, "time_limit": min([cap, *own])}


def search_unit(item: tuple[Searcher, SearchTask, Problem, SearchLimit | None]) -> dict[str, Any]:
    """One seeded search as a JSON-safe record (the unit an executor runs; warnings are the caller's).
    Under a budget the search's deadline is its share from now (within the stage's), and a search still
    running at its stop time is stopped where a signal reaches it: its record then has no front."""
    searcher, task, problem, limit = item
    t0 = time.perf_counter()
    at = None
    if limit is not None and task.deadline is not None:
        deadline = min(task.deadline, time.time() + limit.seconds)
        task, at = replace(task, deadline=deadline), limit.stop(deadline)
    share = task.seconds_left()
    if at is not None and share <= 0:
        return {**_stopped_record(task, 0.0), "no_time": True}      # its turn came after its deadline
    # warnings are recorded and re-issued by the caller: a worker process has no one to show them to
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with stopped_at(at):
                front, info, dropped = run_search(searcher, task, problem)
        except Stopped:
            return {**_stopped_record(task, time.perf_counter() - t0, share), "late": round(late_by(at), 3)}
    # the smallest limit it ran under: the memo's test of whether a later, shorter search may reuse it
    cap = min((v for v in (task.budget.get("time_limit"), share) if _number(v) and v > 0), default=None)
    return {"field": task.field_name, "seed": task.seed, "seconds": round(time.perf_counter() - t0, 3),
            "cap": None if cap is None else round(float(cap), 3),
            "front": [{"expression": expression_text(m.expression), "complexity": m.complexity, "loss": m.loss}
                      for m in front], "dropped": dropped, "info": info,
            "warnings": [[w.category.__name__, str(w.message)] for w in caught]}


def warning_kind(text: str) -> str:
    """What a search's warning says, without its numbers and details: one search's warning and the next's
    of the same kind are shown once in a run (their counts and losses differ)."""
    return re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", text.split(" (", 1)[0].split(":", 1)[0])


_WARNINGS: dict[str, type[Warning]] = {c.__name__: c for c in (RuntimeWarning, UserWarning, DeprecationWarning,
                                                               FutureWarning)}


def check_search_record(item: tuple[Searcher, SearchTask, Problem, SearchLimit | None],
                        record: dict[str, Any]) -> None:
    """A stored search record is reused only if it has the shape :func:`search_unit` writes, is this
    search's (field, seed), and its front reads back; otherwise the search runs again."""
    _, task, problem, _ = item
    if record.get("stopped"):
        raise ValueError("the search was stopped at its stop time (--budget): it runs again")
    check_depth(record)
    if stored_field(record, "field", str) != task.field_name or stored_field(record, "seed", int) != task.seed:
        raise ValueError(f"it is the search of {record['field']!r} seed {record['seed']}")
    if not math.isfinite(stored_field(record, "seconds", NUMBER)):
        raise ValueError("'seconds' is not finite")
    for m in stored_field(record, "front", list):
        stored_field(m, "expression", str)
        if stored_field(m, "complexity", int) < 0 or not math.isfinite(stored_field(m, "loss", NUMBER)):
            raise ValueError(f"front member {m!r:.80} has a negative complexity or a non-finite loss")
    stored_field(record, "info", dict)
    if not all(isinstance(d, str) for d in stored_field(record, "dropped", list)):
        raise ValueError("'dropped' is not a list of text")
    if not all(isinstance(w, list) and len(w) == 2 and all(isinstance(t, str) for t in w)
               for w in stored_field(record, "warnings", list)):
        raise ValueError("'warnings' is not a list of [category, text] pairs")
    _front_of(record, problem)


def _front_of(record: dict[str, Any], problem: Problem) -> list[ParetoMember]:
    """The front back from its record; the text reads back to the same doubles (expression_text)."""
    return [ParetoMember(problem.parse(m["expression"]), int(m["complexity"]), float(m["loss"]))
            for m in record["front"]]
