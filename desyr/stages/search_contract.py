"""Stage A's contract: what a searcher's answer is held to (shared by ``desyr run`` and
:mod:`desyr.testing`). A searcher can express the configured operators, searches read-only copies of the
task's arrays, and returns a front whose members are sympy expressions in the problem's variables with an
integer complexity and a finite loss; each loss is re-scored as the core's own teacher-fit MSE. Apart from
:mod:`desyr.stages.search`, which schedules the searches and stores their records, so that the checks
a third-party searcher meets read in one place."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import sympy as sp

from desyr.errors import ComponentError, ConfigError, PluginError
from desyr.extension.guard import contained, warn_at_component, warn_unsafe_info
from desyr.extension.roles import Searcher
from desyr.model.problem import Problem
from desyr.model.search import ParetoMember, SearchResult, SearchTask, jsonable, teacher_fit_mse
from desyr.symbolic.expressions import expression_text


def check_operators(searchers: list[Searcher], binary: Sequence[str], unary: Sequence[str], problem: Problem) -> None:
    """Every searcher can express the configured operators (shared by ``desyr run`` and
    :mod:`desyr.testing`): a config error naming what it cannot, before any search runs."""
    for searcher in searchers:
        with contained("searcher", searcher.name):
            try:
                searcher.check_operators(list(binary), list(unary))
            except Exception as exc:
                raise ConfigError(f"{problem.source}: [search]: {exc}") from None


def run_search(searcher: Searcher, task: SearchTask, problem: Problem) -> tuple[list[ParetoMember], dict[str, Any], list[str]]:
    """One seeded search with the searcher's errors contained; its checked front, info and drops."""
    with contained("searcher", searcher.name):
        answer = searched(searcher, task)
    return checked_search_answer(searcher, answer, problem, task)


def searched(searcher: Searcher, task: SearchTask) -> object:
    """``searcher.search`` on its own read-only copies of the task's arrays (shared by ``desyr run`` and
    :mod:`desyr.testing`): an edit in place is one error naming it (it would otherwise fit, and report
    losses on, samples the core does not score); :meth:`Searcher.task_arrays` gives a library the
    writable arrays it may need."""
    mine = replace(task, X=_read_only_copy(task.X), y=_read_only_copy(task.y))
    try:
        return searcher.search(mine)
    except ValueError as exc:
        if "read-only" not in str(exc):
            raise
        raise ComponentError(f"it wrote into the task's arrays, which are read-only ({exc}); copy them, or "
                             "take writable copies from self.task_arrays(task)") from exc


def _read_only_copy(values: np.ndarray) -> np.ndarray:
    out = np.array(values, dtype=float)
    out.flags.writeable = False
    return out


def checked_search_answer(searcher: Searcher, answer: object, problem: Problem, task: SearchTask | None = None
                          ) -> tuple[list[ParetoMember], dict[str, Any], list[str]]:
    """A search's answer held to the contract (shared by ``desyr run`` and :mod:`desyr.testing`): its
    usable front, JSON-safe info and the dropped members with reasons. With the ``task``, each loss is
    the core's own teacher-fit MSE on the task's samples (a searcher's loss 0 for a wrong member would
    prune the right one as dominated); a reported loss that differs is named in a warning."""
    if isinstance(answer, SearchResult):
        front, info = answer.front, answer.info
    elif isinstance(answer, (list, tuple)):
        front, info = list(answer), {}
    else:
        raise ConfigError(f"searcher '{searcher.name}' returned {type(answer).__name__}; "
                          "expected a SearchResult or a list of ParetoMember")
    members, dropped = checked_members(front, problem)
    if task is not None:
        members, unscored, misreported = rescored(members, task, problem)
        dropped += unscored
        if misreported:
            warn_at_component(searcher, f"searcher '{searcher.name}' reported {len(misreported)} loss(es) that are "
                              "not the teacher-fit MSE on the task's samples (" + "; ".join(misreported[:2]) +
                              "); the core's re-scored losses are used")
    if dropped and not members:
        raise PluginError(f"searcher '{searcher.name}' returned {len(dropped)} front member(s) and every one is "
                          "unusable: " + "; ".join(dropped[:3]) + "; return ParetoMember(sympy expression in the "
                          "task's variables, integer complexity, finite loss)")
    if dropped:
        warn_at_component(searcher, f"searcher '{searcher.name}' returned {len(dropped)} unusable front member(s), "
                          "dropped: " + "; ".join(dropped[:3]))
    warn_unsafe_info(searcher, "searcher", "SearchResult.info", info)
    return members, jsonable(info), dropped


def checked_members(front: list[Any], problem: Problem) -> tuple[list[ParetoMember], list[str]]:
    """Members with a sympy expression in the problem's variables (same-named foreign symbols are
    mapped onto the problem's own), an integer complexity and a finite loss; the rest with reasons."""
    by_name = {s.name: s for s in problem.symbols}
    kept, dropped = [], []
    for i, m in enumerate(front):
        reason = _member_problem(m, by_name)
        if reason:
            dropped.append(f"member {i}: {reason}")
            continue
        expr = m.expression.xreplace({s: by_name[s.name] for s in m.expression.free_symbols})
        if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            dropped.append(f"member {i}: {expression_text(expr)} is not finite")
            continue
        try:   # what is stored and reported is the text: it must read back
            problem.parse(str(expression_text(expr)))
        except Exception as exc:
            dropped.append(f"member {i}: cannot be read back ({exc})")
            continue
        kept.append(ParetoMember(expr, int(m.complexity), float(m.loss)))
    return kept, dropped


def rescored(members: list[ParetoMember], task: SearchTask, problem: Problem
             ) -> tuple[list[ParetoMember], list[str], list[str]]:
    """The members with the core's teacher-fit MSE on ``task``'s own samples as their loss; the
    members that cannot be scored (dropped, with reasons); the reported losses that differ."""
    by_name = {s.name: s for s in problem.symbols}
    symbols = [by_name.get(v, sp.Symbol(v)) for v in task.variables]
    kept, dropped, misreported = [], [], []
    for i, m in enumerate(members):
        loss = teacher_fit_mse(m.expression, symbols, task.X, task.y)
        if not math.isfinite(loss):
            dropped.append(f"member {i}: {expression_text(m.expression)} has no finite loss on the task's samples")
            continue
        if not math.isclose(loss, m.loss, rel_tol=LOSS_RTOL, abs_tol=1e-300):
            misreported.append(f"{expression_text(m.expression)}: {m.loss:.3g}, re-scored {loss:.3g}")
        kept.append(ParetoMember(m.expression, m.complexity, loss))
    return kept, dropped, misreported


#: how far a reported loss may be from the core's teacher-fit MSE (round-off of another evaluation order)
LOSS_RTOL = 1e-6


def _member_problem(m: Any, by_name: dict[str, sp.Symbol]) -> str | None:
    if not isinstance(m, ParetoMember):
        return f"not a ParetoMember ({type(m).__name__})"
    if not isinstance(m.expression, sp.Expr):
        return f"expression is {type(m.expression).__name__}, not a sympy expression"
    foreign = sorted(s.name for s in m.expression.free_symbols if s.name not in by_name)
    if foreign:
        return f"uses {', '.join(foreign)}, which are not variables of the problem ({', '.join(by_name)})"
    if isinstance(m.complexity, bool) or not isinstance(m.complexity, (int, float)) or not m.complexity >= 0:
        return f"complexity {m.complexity!r} is not a non-negative number"
    try:
        loss = float(m.loss)
    except (TypeError, ValueError):
        return f"loss {m.loss!r} is not a number"
    return None if math.isfinite(loss) else f"loss {loss} is not finite"
