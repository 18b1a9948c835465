"""``operon``: multi-objective symbolic regression with pyoperon (the default searcher).

Operon runs NSGA-II on (r2, length), so one run returns a real Pareto front.
Every tree comes back linearly scaled (``offset + scale*f``) by pyoperon.
Model strings are produced with full-precision constants and placeholder
variable names, then parsed with DeSyR's safe parser and renamed to the
problem's variables.
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np
import sympy as sp

from desyr.plugin import (
    BINARY_OPERATORS,
    UNARY_OPERATORS,
    ComponentError,
    Option,
    Searcher,
    SearchResult,
    SearchTask,
    Vocabulary,
    empirical_front,
    hookimpl,
    library_names,
    optional_import,
    parse_expression,
)

#: common vocabulary -> pyoperon symbol: its own names for the binary operators; every unary one but
#: ``cube``, ``sech``, ``csch`` and ``coth`` (pyoperon has none of them) under the common name
BINARY = library_names(BINARY_OPERATORS, {"+": "add", "-": "sub", "*": "mul", "/": "div", "^": "pow"})
UNARY = library_names(name for name in UNARY_OPERATORS if name not in ("cube", "sech", "csch", "coth"))
#: budget keys understood in SearchTask.budget besides the option names
BUDGET_ALIASES = {"iterations": "generations"}
#: generic budget keys (see SearchTask.budget) this searcher has no use for; ignored, noted in the SearchResult info
BUDGET_IGNORED = frozenset({"populations"})


def _placeholders(n: int) -> list[str]:
    return [f"_v{i}" for i in range(n)]


def parse_model_string(text: str, variables: list[str]) -> sp.Expr:
    """Operon infix (fully parenthesised, ``^`` for powers, placeholder names ``_v0..``) -> sympy.

    Raises :class:`ExpressionError` when the text is not acceptable.
    """
    places = _placeholders(len(variables))
    expr = parse_expression(text.replace("^", "**"), Vocabulary(places))
    target = {v: sp.Symbol(v, real=True) for v in variables}   # names were checked when the problem loaded
    return expr.xreplace({sp.Symbol(p, real=True): target[v] for p, v in zip(places, variables)})


#: the fewest rows a search fits, whatever the number of variables
MIN_ROWS = 250


def subsample(n: int, most: int, seed: int) -> np.ndarray:
    """All ``n`` rows, or a sorted subsample of ``most`` of them drawn with ``seed``."""
    if n <= most:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=most, replace=False))


class OperonSearcher(Searcher):
    """pyoperon ``SymbolicRegressor`` with objectives ``['r2', 'length']``.

    Reproducibility: by default a run is bounded by ``generations`` (and
    ``max_evaluations``) only; ``time_limit = 0`` means no clock, so the same
    config and seed give the same front on any machine.  A positive
    ``time_limit`` is a safety net; a run it stops depends on machine speed.
    """

    name = "operon"
    escalation_rank = 1
    default = True
    supported_binary = frozenset(BINARY)
    supported_unary = frozenset(UNARY)
    budget_aliases = BUDGET_ALIASES
    budget_ignored = BUDGET_IGNORED
    options = {
        "time_limit": Option(0.0, "seconds per run; 0 (or None): no clock, so runs are reproducible", kind=float,
                             low=0, high=7 * 86400, nullable=True),
        "generations": Option(100, "generations per run (the budget that binds by default)", kind=int,
                              low=1, high=1_000_000),
        "population_size": Option(500, "individuals per generation", kind=int, low=2, high=10_000_000),
        "max_evaluations": Option(1_000_000_000, "fitness evaluations per run", kind=int, low=1, high=2**62),
        "optimizer_iterations": Option(10, "local constant-tuning iterations (pyoperon's default 0 leaves "
                                           "constants untuned)", kind=int, low=0, high=10_000),
        "max_depth": Option(10, "maximum tree depth", kind=int, low=1, high=1000),
        "tournament_size": Option(5, "tournament size of selection", kind=int, low=1, high=10_000_000),
        "offspring_generator": Option("basic", "pyoperon offspring generator", kind=str,
                                      choices=("basic", "os", "brood", "poly")),
        "intercept": Option(True, "keep pyoperon's linear-scaling offset term", kind=bool),
        "n_threads": Option(1, "pyoperon threads (1 keeps runs reproducible)", kind=int, low=1, high=1024),
        "rows_per_variable": Option(125, "rows of X_S fitted per variable of the problem, at least 250; more are "
                                         "subsampled with the task seed (a search's cost grows with its rows, and a "
                                         "smooth teacher's values show a term on far fewer rows than X_S holds)",
                                    kind=int, low=1, high=10_000_000),
    }

    def search(self, task: SearchTask) -> SearchResult:
        self.check_operators(task.binary, task.unary)
        SymbolicRegressor = optional_import("searcher 'operon'", "pyoperon.sklearn", "pyoperon",
                                            "operon").SymbolicRegressor
        s, ignored_budget = self.settings_for(task)
        s = self.validate_options(s)          # budget values are checked like options
        if s["tournament_size"] > s["population_size"]:
            raise ComponentError(f"searcher 'operon': tournament_size ({s['tournament_size']}) exceeds "
                                 f"population_size ({s['population_size']})")
        X, y = self.task_arrays(task)
        rows = subsample(X.shape[0], max(int(s["rows_per_variable"]) * X.shape[1], MIN_ROWS), int(task.seed))
        X, y = X[rows], y[rows]
        variables = list(task.variables)
        symbols = [BINARY[b] for b in task.binary] + [UNARY[u] for u in task.unary]
        allowed = ",".join(dict.fromkeys(symbols + ["constant", "variable"]))
        time_limit = s["time_limit"]
        reg = SymbolicRegressor(
            allowed_symbols=allowed,
            objectives=["r2", "length"],
            optimizer_iterations=int(s["optimizer_iterations"]),
            max_length=int(task.max_size),
            max_depth=int(s["max_depth"]),
            initialization_max_length=min(10, int(task.max_size)),
            generations=int(s["generations"]),
            population_size=int(s["population_size"]),
            max_evaluations=int(s["max_evaluations"]),
            tournament_size=int(s["tournament_size"]),
            offspring_generator=str(s["offspring_generator"]),
            add_model_intercept_term=bool(s["intercept"]),
            max_time=int(math.ceil(time_limit)) if time_limit else None,
            n_threads=int(s["n_threads"]),
            random_state=int(task.seed),
        )
        start = time.perf_counter()
        reg.fit(X, y)
        elapsed = time.perf_counter() - start

        places = _placeholders(len(variables))
        texts = [(reg.get_model_string(entry["tree"], 17, places), int(entry["length"])) for entry in reg.pareto_front_]
        members, dropped = self.scored_members(
            ((repr(text), size, functools.partial(parse_model_string, text, variables)) for text, size in texts), task)
        generations = int(reg.stats_.get("generations", -1))
        return SearchResult(empirical_front(members), {
            "seed": int(task.seed),
            "rows": int(len(rows)),
            "seconds": elapsed,
            "generations": generations,
            "raw_front": len(reg.pareto_front_),
            "dropped": dropped,
            "ignored_budget": ignored_budget,
            "stopped_by": "generations" if generations >= int(s["generations"]) else "time or evaluations",
        })


@hookimpl
def desyr_register_searchers() -> list[type[Searcher]]:
    return [OperonSearcher]
