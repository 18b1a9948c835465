"""Components that break the contracts ``desyr run`` enforces (issue 37, item 4), with the plugin that
registers them, for ``test_trust_contracts.py``: each must end in one line naming it, exit 2, or a
documented warning."""
from __future__ import annotations

import contextlib
import io
import time

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
    Teacher,
    TeacherModel,
    hookimpl,
    serial_map,
)

X = sp.Symbol("x")
RIGHT = sp.Float(1.0) * sp.sin(sp.Float(3.1) * X)      # refits to sin(pi*x)
WRONG = X * (1 - X)


def _mse(expr, task):
    values = sp.lambdify(X, expr, "numpy")(np.asarray(task.X, dtype=float)[:, 0])
    return float(np.mean((np.broadcast_to(values, task.y.shape) - task.y) ** 2))


class FixedSearcher(Searcher):
    """An honest front: the wrong simple member and the right one, each with its loss on the task."""
    name = "s_fixed"
    supported_binary = frozenset({"+", "-", "*", "/"})
    supported_unary = frozenset({"sin"})

    def search(self, task):
        return [ParetoMember(WRONG, 5, _mse(WRONG, task)), ParetoMember(RIGHT, 6, _mse(RIGHT, task))]


class LyingSearcher(FixedSearcher):
    """Reports loss 0 for the wrong member: the right one, more complex with a larger loss, looked dominated."""
    name = "s_lying"

    def search(self, task):
        return [ParetoMember(WRONG, 5, 0.0), ParetoMember(RIGHT, 6, _mse(RIGHT, task))]


class SleepingSearcher(FixedSearcher):
    """Ignores every clock: sleeps ``sleep`` seconds, then answers honestly."""
    name = "s_sleeping"
    options = {"sleep": Option(3.0, "seconds asleep", kind=float, low=0.0)}

    def search(self, task):
        time.sleep(self.settings["sleep"])
        return super().search(task)


class DictRefiner(Refiner):
    name = "r_dict"

    def refine(self, candidate, problem, points):
        return {"expressions": dict(candidate.search_expressions), "converged": True}


class RaisingRefiner(Refiner):
    name = "r_raising"

    def refine(self, candidate, problem, points):
        raise RuntimeError("the fit exploded\nsecond line")


class NaNRefiner(Refiner):
    name = "r_nan"

    def refine(self, candidate, problem, points):
        return RefitOutcome({f: sp.nan for f in candidate.search_expressions}, "converged", True, params=[math_nan()])


def math_nan():
    return float("nan")


class HalfBrokenRefiner(Refiner):
    """Keeps a candidate's constants (fixed), but returns a dict for the wrong one."""
    name = "r_half"

    def refine(self, candidate, problem, points):
        if candidate.search_expressions["u"].has(sp.sin):
            return RefitOutcome({"u": sp.sin(sp.pi * X)}, "converged", True)
        return {"u": WRONG}


class MovesTheTree(Refiner):
    """Keeps the constants, then edits the frozen tree in place so result.json says it started at sin(pi x)."""
    name = "r_moves_tree"

    def refine(self, candidate, problem, points):
        kept = dict(candidate.search_expressions)
        candidate.search_expressions["u"] = sp.sin(sp.pi * X)
        return RefitOutcome(kept, "fixed", True)


class ReplacesTheTree(Refiner):
    """Replaces the candidate's frozen tree with another dict."""
    name = "r_replaces_tree"

    def refine(self, candidate, problem, points):
        kept = dict(candidate.search_expressions)
        candidate.search_expressions = {"u": sp.sin(sp.pi * X)}
        return RefitOutcome(kept, "fixed", True)


class KeepsRefiner(Refiner):
    """Keeps every candidate as given (fixed), honestly."""
    name = "r_keeps"

    def refine(self, candidate, problem, points):
        return RefitOutcome(dict(candidate.search_expressions), "fixed", True)


class AssignsExpressions(Gate):
    """Writes the wrong tree onto every candidate and keeps them all."""
    name = "g_assigns"

    def apply(self, pool, context):
        for c in pool:
            c.expressions = {"u": WRONG}
        return GateDecision(list(pool))


class EditsExpressions(Gate):
    """Edits the expressions mapping in place."""
    name = "g_edits"

    def apply(self, pool, context):
        for c in pool:
            c.expressions["u"] = WRONG
        return GateDecision(list(pool))


class SetsVerdicts(Gate):
    """Marks a candidate it keeps as removed by another gate."""
    name = "g_verdicts"

    def apply(self, pool, context):
        pool[0].removed_by = "complexity"
        return GateDecision(list(pool))


class WritesTask(FixedSearcher):
    """Edits its task's teacher values in place, then fits them (the core scores on the values it gave)."""
    name = "s_writes_task"

    def search(self, task):
        task.y[:] = 0.0
        return super().search(task)


class SwapsFormula(Refiner):
    """Answers sin(pi*x), converged, whatever the candidate: right for sin(3.1*x) (its constants refit),
    another formula for the others."""
    name = "r_swaps"

    def refine(self, candidate, problem, points):
        return RefitOutcome({"u": sp.sin(sp.pi * problem.symbols[0])}, "converged", True)


class ComplexRefit(Refiner):
    """Keeps the frozen tree but writes it through the imaginary unit (``cos`` as two exponentials), as an
    exact solver's ``sqrt(gamma - omega)`` refits for gamma < omega: unreadable, yet no broken contract."""
    name = "r_complex"

    def refine(self, candidate, problem, points):
        x = problem.symbols[0]
        return RefitOutcome({"u": (sp.exp(sp.I * sp.pi * x) - sp.exp(-sp.I * sp.pi * x)) / (2 * sp.I)},
                            "converged", True)


class _Sine(TeacherModel):
    def predict(self, X):
        return np.sin(np.pi * np.asarray(X, dtype=float)[:, :1])


class EditsTitle(Teacher):
    """The problem is a frozen dataclass; object.__setattr__ still writes it."""
    name = "t_title"

    def prepare(self, problem, context):
        object.__setattr__(problem, "title", "changed by a teacher")
        return _Sine()


class EditsVocabulary(Teacher):
    """Swaps the vocabulary's table of parameters (its own tables are read-only)."""
    name = "t_vocabulary"

    def prepare(self, problem, context):
        problem.vocabulary.extra = {"k": sp.Symbol("k")}
        return _Sine()


class AppendsVariable(Teacher):
    """Appends to the vocabulary's variables (a tuple now)."""
    name = "t_variables"

    def prepare(self, problem, context):
        problem.vocabulary.variables.append("y")
        return _Sine()


class MovesConstraintPoints(Teacher):
    """Puts every constraint's points at x = 0: a candidate breaking u(1) = 0 would score rho_c = 0."""
    name = "t_constraint_points"
    options = {"route": Option("item", "item: assign into the list; setattr: replace the field", kind=str,
                               choices=("item", "setattr"))}

    def prepare(self, problem, context):
        at_zero = tuple(np.zeros_like(P) for P in context.points.constraints)
        if self.settings["route"] == "item":
            context.points.constraints[0] = at_zero[0]
        else:
            object.__setattr__(context.points, "constraints", at_zero)
        return _Sine()


class NoWorkers(Executor):
    """Declares workers = 0."""
    name = "e_zero"

    @property
    def workers(self):
        return 0

    def map(self, fn, items):
        return serial_map(fn, items)


class ContractsPlugin:
    @hookimpl
    def desyr_register_teachers(self):
        return [EditsTitle, EditsVocabulary, AppendsVariable, MovesConstraintPoints]

    @hookimpl
    def desyr_register_executors(self):
        return [NoWorkers]

    @hookimpl
    def desyr_register_searchers(self):
        return [FixedSearcher, LyingSearcher, SleepingSearcher, WritesTask]

    @hookimpl
    def desyr_register_refiners(self):
        return [DictRefiner, RaisingRefiner, NaNRefiner, HalfBrokenRefiner, MovesTheTree, ReplacesTheTree,
                KeepsRefiner, SwapsFormula, ComplexRefit]

    @hookimpl
    def desyr_register_gates(self):
        return [AssignsExpressions, EditsExpressions, SetsVerdicts]


def cli(registry, monkeypatch, tmp_path, toml: str, *args: str) -> tuple[int, list[str]]:
    """``desyr run`` on ``toml`` with ``registry`` (the hostile components in it): exit code, stderr lines."""
    import desyr.extension.registry
    from desyr.cli.main import main

    monkeypatch.setattr(desyr.extension.registry, "load_registry", lambda *a, **k: registry)
    path = tmp_path / "problem.toml"
    path.write_text(toml, encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet", "--no-plots",
                     "--executor", "serial", *args])
    return code, err.getvalue().splitlines()
