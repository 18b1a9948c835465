"""Five small components, one per role; every one passes ``desyr.testing.check_component``."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from desyr.plugin import (
    Executor,
    Gate,
    GateDecision,
    Option,
    ParetoMember,
    Refiner,
    RefitOutcome,
    Searcher,
    SearchResult,
    Teacher,
    TeacherModel,
    UnitFailure,
    evaluate,
    hookimpl,
    teacher_fit_mse,
)


class FormulaModel(TeacherModel):
    """A closed form of one field as a teacher (a stand-in for a trained network)."""

    def __init__(self, problem, formula):
        self.symbols, self.fields = problem.symbols, list(problem.fields)
        self.formula, self.expression = formula, problem.parse(formula)

    def predict(self, X):
        return evaluate(self.expression, self.symbols, np.asarray(X, dtype=float)).reshape(len(X), 1)

    def info(self):
        return {"formula": self.formula}


class FormulaTeacher(Teacher):
    """Answers with a given formula of the problem's variables (single-field problems)."""

    name = "formula"
    options = {"formula": Option("sin(pi*x)", "the field as an expression of the variables", kind=str)}

    def prepare(self, problem, context):
        return FormulaModel(problem, self.settings["formula"])


class SineSearcher(Searcher):
    """Tries a*sin(k*x) for a few k: a one-parameter family, least squares in a."""

    name = "sines"
    supported_binary = frozenset({"+", "-", "*", "/"})
    supported_unary = frozenset({"sin"})
    options = {"harmonics": Option(4, "largest k/pi tried", kind=int, low=1)}

    def search(self, task):
        X, y = self.task_arrays(task)
        x = sp.Symbol(task.variables[0])
        front = []
        for k in range(1, self.settings["harmonics"] + 1):
            basis = np.sin(k * math.pi * X[:, 0])
            a = float(basis @ y / max(basis @ basis, 1e-300))
            expr = sp.Float(a) * sp.sin(sp.Float(k * math.pi) * x)
            front.append(ParetoMember(expr, 4, teacher_fit_mse(expr, [x], X, y)))
        return SearchResult(front, {"tried": len(front)})


class KeepRefiner(Refiner):
    """Keeps the search constants (a refiner that has nothing to fit)."""

    name = "keep"

    def refine(self, candidate, problem, points):
        return RefitOutcome(dict(candidate.search_expressions), "fixed", True)


class SimplestGate(Gate):
    """Keeps the simplest candidates."""

    name = "simplest"

    def apply(self, pool, context):
        if not pool:
            return GateDecision([], note="empty pool")
        least = min(c.complexity for c in pool)
        kept = [c for c in pool if c.complexity == least]
        return GateDecision(kept, {c.id: f"complexity {c.complexity} > {least}" for c in pool if c not in kept})


class InlineExecutor(Executor):
    """Runs units in order in this process, a failing unit answered by a UnitFailure."""

    name = "inline"

    def map(self, fn, items):
        results = []
        for item in items:
            try:
                results.append(fn(item))
            except Exception as exc:
                results.append(UnitFailure(f"{type(exc).__name__}: {exc}", exc))
        return results


@hookimpl
def desyr_register_teachers():
    return [FormulaTeacher]


@hookimpl
def desyr_register_searchers():
    return [SineSearcher]


@hookimpl
def desyr_register_refiners():
    return [KeepRefiner]


@hookimpl
def desyr_register_gates():
    return [SimplestGate]


@hookimpl
def desyr_register_executors():
    return [InlineExecutor]
