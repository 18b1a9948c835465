"""Variants of the five components, each breaking one rule that ``check_component`` must name."""
from __future__ import annotations

import itertools
import threading

import numpy as np
import sympy as sp

from desyr.plugin import GateDecision, ParetoMember, SearchResult
from desyr_fiveroles.plugin import (
    FormulaModel,
    FormulaTeacher,
    InlineExecutor,
    KeepRefiner,
    SimplestGate,
    SineSearcher,
)


class NaNModel(FormulaModel):
    def predict(self, X):
        values = super().predict(X)
        values[0, 0] = np.nan
        return values


class NaNTeacher(FormulaTeacher):
    name = "nan_teacher"

    def prepare(self, problem, context):
        return NaNModel(problem, self.settings["formula"])


class FlatModel(FormulaModel):
    def predict(self, X):
        return super().predict(X)[:, 0]          # (n,), not (n, 1)


class WrongShapeTeacher(FormulaTeacher):
    name = "wrong_shape"

    def prepare(self, problem, context):
        return FlatModel(problem, self.settings["formula"])


class UndeclaredOperatorSearcher(SineSearcher):
    """Returns cos members while declaring only sin."""

    name = "undeclared_cos"

    def search(self, task):
        x = sp.Symbol(task.variables[0])
        return SearchResult([ParetoMember(sp.cos(sp.Float(3.1) * x), 4, 0.5)])


class NonJSONInfoSearcher(SineSearcher):
    name = "set_info"

    def search(self, task):
        result = super().search(task)
        return SearchResult(result.front, {"operators": {"sin"}})      # a set: not JSON


_calls = itertools.count()


class NondeterministicSearcher(SineSearcher):
    """Ignores task.seed: each call differs."""

    name = "unseeded"

    def search(self, task):
        result = super().search(task)
        jitter = 1e-3 * next(_calls)
        return SearchResult([ParetoMember(m.expression + sp.Float(jitter), m.complexity, m.loss) for m in result.front])


class UnpicklableSearcher(SineSearcher):
    name = "holds_a_lock"

    def __init__(self, **options):
        super().__init__(**options)
        self.lock = threading.Lock()


class ShortListExecutor(InlineExecutor):
    name = "short_list"

    def map(self, fn, items):
        return super().map(fn, items)[:-1]


class ForeignIdGate(SimplestGate):
    name = "foreign_ids"

    def apply(self, pool, context):
        decision = super().apply(pool, context)
        return GateDecision(decision.kept, {**decision.removed, "not-in-pool": "made up"})


# ---------------------------------------------------------------- inputs changed (issue 37, item 5)
class TitlingTeacher(FormulaTeacher):
    """Marks what it was given as taught: the problem is frozen (assigning its title fails, as the run's
    problem does), so it writes into the context's estimates instead."""

    name = "titling"

    def prepare(self, problem, context):
        context.unknown_estimates["taught"] = 1.0
        return super().prepare(problem, context)


class BudgetFillingSearcher(SineSearcher):
    """Fills its defaults into the task's budget, which every searcher of a run shares."""

    name = "budget_filling"

    def search(self, task):
        task.budget.setdefault("iterations", 10)
        return super().search(task)


class TreeRoundingRefiner(KeepRefiner):
    """Rounds the constants of the frozen search tree in place instead of returning a refit."""

    name = "tree_rounding"

    def refine(self, candidate, problem, points):
        for f, e in candidate.search_expressions.items():
            candidate.search_expressions[f] = e.xreplace({n: sp.Float(round(float(n))) for n in e.atoms(sp.Float)})
        return super().refine(candidate, problem, points)


class AnsweringGate(SimplestGate):
    """Writes its own answer into the candidates' final expressions."""

    name = "answering"

    def apply(self, pool, context):
        for c in pool:
            c.expressions = {f: sp.sin(sp.pi * sp.Symbol("x")) for f in c.expressions}
        return super().apply(pool, context)


class ConsumingExecutor(InlineExecutor):
    """Pops its items off the caller's list as it runs them (the answers are right)."""

    name = "consuming"

    def map(self, fn, items):
        results = []
        while items:
            results += super().map(fn, [items.pop(0)])
        return results
