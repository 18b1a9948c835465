"""``gplearn``: single-objective GP with gplearn's ``SymbolicRegressor``.

gplearn has no Pareto front, so one is built from the evolved programs (the
final population, or every stored program of the run): programs longer than
``max_size`` are dropped, the rest are pre-screened by gplearn's raw MSE and
``length_`` (non-domination), converted to sympy directly from the program's
prefix list (no strings, no eval), re-scored by evaluating the sympy
expression, and reduced to the empirical front by (complexity, loss).

gplearn's protected primitives (``div`` returns 1 for tiny denominators,
``sqrt``/``log`` act on ``|x|``, ``exp`` is clipped) are mapped to the plain
functions of the common vocabulary; the reported loss is that of the returned
sympy expression, and members whose expression is not finite on X_S are dropped.
"""
from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from desyr.plugin import (
    ComponentError,
    Option,
    ParetoMember,
    Searcher,
    SearchResult,
    SearchTask,
    Vocabulary,
    empirical_front,
    hookimpl,
    library_names,
    operator,
    optional_import,
)


def _protected_exp(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        out: np.ndarray = np.exp(np.clip(x, -100.0, 100.0))
    return out


def _protected_square(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        out: np.ndarray = np.clip(x, -1e100, 1e100) ** 2
    return out


def _protected_cube(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        out: np.ndarray = np.clip(x, -1e100, 1e100) ** 3
    return out


#: vocabulary -> gplearn built-in function name (gplearn has no power)
BUILTIN_BINARY = library_names(["+", "-", "*", "/"], {"+": "add", "-": "sub", "*": "mul", "/": "div"})
BUILTIN_UNARY = library_names(["sin", "cos", "tan", "log", "sqrt", "abs"])
#: vocabulary -> (numpy implementation, gplearn name) for functions made with make_function
CUSTOM_UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], str]] = {
    "exp": (_protected_exp, "exp"),
    "tanh": (np.tanh, "tanh"),
    "square": (_protected_square, "square"),
    "cube": (_protected_cube, "cube"),
}
#: gplearn function name -> sympy builder: the common operator's meaning (its protected version is read
#: as the plain function), and gplearn's ``neg`` and ``inv``, which are not in the common vocabulary
SYMPY_OF: dict[str, Callable[..., sp.Expr]] = {
    **{gp: operator(name).sympy for name, gp in {**BUILTIN_BINARY, **BUILTIN_UNARY}.items()},
    **{gp: operator(name).sympy for name, (_, gp) in CUSTOM_UNARY.items()},
    "neg": lambda a: -a, "inv": lambda a: 1 / a,
}
BUDGET_ALIASES = {"iterations": "generations"}
BUDGET_IGNORED = frozenset({"populations", "time_limit"})


def program_to_sympy(program: Sequence[Any], variables: Sequence[str]) -> sp.Expr:
    """Convert a gplearn program (prefix list of functions, feature indices, floats) to sympy.

    ``program`` is ``est._program.program``: gplearn ``_Function`` objects (with
    ``.name``/``.arity``), ``int`` feature indices into ``variables``, and
    ``float`` constants (which become sympy ``Float``).
    """
    symbols = list(Vocabulary(variables).var_symbols.values())
    pos = 0

    def build() -> sp.Expr:
        nonlocal pos
        if pos >= len(program):
            raise ValueError("truncated gplearn program")
        node = program[pos]
        pos += 1
        if isinstance(node, (bool, np.bool_)):
            raise ValueError(f"unexpected node {node!r}")
        if isinstance(node, (int, np.integer)):
            if not 0 <= int(node) < len(symbols):
                raise ValueError(f"feature index {node} out of range for {len(symbols)} variables")
            return symbols[int(node)]
        if isinstance(node, (float, np.floating)):
            return sp.Float(float(node))
        name = getattr(node, "name", None)
        if name not in SYMPY_OF:
            raise ValueError(f"gplearn function {name!r} has no sympy mapping")
        args = [build() for _ in range(int(node.arity))]
        return SYMPY_OF[name](*args)

    expr = build()
    if pos != len(program):
        raise ValueError("trailing nodes in gplearn program")
    return expr


class GplearnSearcher(Searcher):
    """gplearn ``SymbolicRegressor`` (metric mse) with a front built from the evolved programs."""

    name = "gplearn"
    supported_binary = frozenset(BUILTIN_BINARY)
    supported_unary = frozenset(BUILTIN_UNARY) | frozenset(CUSTOM_UNARY)
    budget_aliases = BUDGET_ALIASES
    budget_ignored = BUDGET_IGNORED
    options = {
        "generations": Option(20, "generations (gplearn has no clock: runs are reproducible)", kind=int,
                              low=1, high=1_000_000),
        "population_size": Option(1000, "programs per generation", kind=int, low=1, high=10_000_000),
        "tournament_size": Option(20, "tournament size of selection", kind=int, low=1, high=10_000_000),
        "parsimony_coefficient": Option(0.001, "length penalty", kind=float, low=0, high=1e6),
        "p_crossover": Option(0.9, "probability of crossover", kind=float, low=0, high=1),
        "p_subtree_mutation": Option(0.01, "probability of subtree mutation", kind=float, low=0, high=1),
        "p_hoist_mutation": Option(0.01, "probability of hoist mutation", kind=float, low=0, high=1),
        "p_point_mutation": Option(0.01, "probability of point mutation", kind=float, low=0, high=1),
        "p_point_replace": Option(0.05, "probability of replacing a node in point mutation", kind=float,
                                  low=0, high=1),
        "init_depth": Option([2, 6], "[min, max] depth of the initial programs", kind=list, item=int, low=2, high=2),
        "const_range": Option([-5.0, 5.0], "[low, high] of random constants", kind=list, item=float, low=2, high=2),
        "max_samples": Option(1.0, "fraction of samples per program evaluation", kind=float, low=0, high=1,
                              open_low=True),
        "front_from": Option("all", "'all': every stored program of the run; 'final': the last population",
                             kind=str, choices=("all", "final")),
    }

    @classmethod
    def validate_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        s = super().validate_options(given)
        lo, hi = s["init_depth"]
        if not 0 <= lo <= hi <= 30:
            raise ComponentError(f"searcher 'gplearn': option 'init_depth' must be [min, max] with "
                                 f"0 <= min <= max <= 30, got {s['init_depth']!r}")
        c_lo, c_hi = s["const_range"]
        if not (math.isfinite(c_lo) and math.isfinite(c_hi) and c_lo <= c_hi):
            raise ComponentError(f"searcher 'gplearn': option 'const_range' must be finite [low, high], "
                                 f"got {s['const_range']!r}")
        total = sum(s[k] for k in ("p_crossover", "p_subtree_mutation", "p_hoist_mutation", "p_point_mutation"))
        if total > 1 + 1e-12:
            raise ComponentError(f"searcher 'gplearn': p_crossover + p_subtree_mutation + p_hoist_mutation + "
                                 f"p_point_mutation must be at most 1, got {total:g}")
        if s["tournament_size"] > s["population_size"]:
            raise ComponentError(f"searcher 'gplearn': tournament_size ({s['tournament_size']}) exceeds "
                                 f"population_size ({s['population_size']})")
        return s

    def _settings_for(self, task: SearchTask) -> tuple[dict[str, Any], list[str]]:
        settings, ignored = self.settings_for(task)
        return self.validate_options(settings), ignored

    def search(self, task: SearchTask) -> SearchResult:
        self.check_operators(task.binary, task.unary)
        make_function = optional_import("searcher 'gplearn'", "gplearn.functions", "gplearn", "gplearn").make_function
        SymbolicRegressor = optional_import("searcher 'gplearn'", "gplearn.genetic", "gplearn",
                                            "gplearn").SymbolicRegressor
        s, ignored_budget = self._settings_for(task)
        X, y = self.task_arrays(task)
        variables = list(task.variables)
        function_set: list[Any] = [BUILTIN_BINARY[b] for b in task.binary]
        for u in task.unary:
            if u in BUILTIN_UNARY:
                function_set.append(BUILTIN_UNARY[u])
            else:
                fn, fname = CUSTOM_UNARY[u]
                function_set.append(make_function(function=fn, name=fname, arity=1, wrap=False))
        if not function_set:
            raise ComponentError("searcher 'gplearn' needs at least one operator")
        est = SymbolicRegressor(
            population_size=int(s["population_size"]),
            generations=int(s["generations"]),
            tournament_size=int(s["tournament_size"]),
            stopping_criteria=0.0,
            const_range=tuple(s["const_range"]),
            init_depth=tuple(s["init_depth"]),
            function_set=tuple(function_set),
            metric="mse",
            parsimony_coefficient=float(s["parsimony_coefficient"]),
            p_crossover=float(s["p_crossover"]),
            p_subtree_mutation=float(s["p_subtree_mutation"]),
            p_hoist_mutation=float(s["p_hoist_mutation"]),
            p_point_mutation=float(s["p_point_mutation"]),
            p_point_replace=float(s["p_point_replace"]),
            max_samples=float(s["max_samples"]),
            feature_names=None,
            n_jobs=1,
            verbose=0,
            random_state=int(task.seed),
        )
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            est.fit(X, y)
        elapsed = time.perf_counter() - start

        generations = est._programs if s["front_from"] == "all" else est._programs[-1:]
        programs: dict[str, tuple[Any, float]] = {}      # text -> (gplearn _Program, raw fitness)
        for population in generations:
            for prog in population or ():
                if prog is None or prog.length_ > int(task.max_size):
                    continue
                fit = float(prog.raw_fitness_)
                if not math.isfinite(fit):
                    continue
                programs.setdefault(str(prog), (prog, fit))
        # Pre-screen on gplearn's own (protected) scores, then re-score the sympy expressions.
        screened = empirical_front(
            [ParetoMember(sp.Integer(0), int(p.length_), fit) for p, fit in programs.values()]
        )
        wanted = {(m.complexity, m.loss) for m in screened}
        kept = []
        for prog, fit in programs.values():
            if (int(prog.length_), fit) in wanted:
                wanted.discard((int(prog.length_), fit))
                kept.append(prog)
        members, dropped = self.scored_members(
            ((str(prog), int(prog.length_), functools.partial(program_to_sympy, prog.program, variables))
             for prog in kept), task)
        return SearchResult(empirical_front(members), {
            "seed": int(task.seed),
            "seconds": elapsed,
            "programs_considered": len(programs),
            "dropped": dropped,
            "ignored_budget": ignored_budget,
        })


@hookimpl
def desyr_register_searchers() -> list[type[Searcher]]:
    return [GplearnSearcher]
