"""``pysr``: PySR (SymbolicRegression.jl), the searcher used in the paper.

Written against PySR's documented API (``PySRRegressor``, ``model.equations_``).
``pysr`` is imported only inside :meth:`PySRSearcher.search`; importing it
starts Julia (and, when no Julia is configured, tries to download one), so the
plugin itself loads everywhere.  Candidates are read from the ``equation``
column of ``equations_`` with DeSyR's safe parser (never from ``sympy_format``,
which PySR builds with ``sympify``).
"""
from __future__ import annotations

import ast
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from desyr.plugin import (
    BINARY_OPERATORS,
    UNARY_OPERATORS,
    ComponentError,
    ExpressionError,
    Option,
    ParetoMember,
    Searcher,
    SearchResult,
    SearchTask,
    Vocabulary,
    empirical_front,
    hookimpl,
    library_names,
    parse_expression,
    teacher_fit_mse,
)

#: common vocabulary -> PySR operator name: PySR has every operator, under the common name (sech, csch and
#: coth are Julia's own; PySR is told their SymPy meaning, which it has no table entry for)
BINARY = library_names(BINARY_OPERATORS)
UNARY = library_names(UNARY_OPERATORS)
JULIA_ONLY = ("sech", "csch", "coth")
BUDGET_ALIASES = {"iterations": "niterations", "time_limit": "timeout_in_seconds"}

SETUP_HELP = (
    "PySR runs on Julia. Install Julia >= 1.10 yourself and point PySR at it: "
    "set PYTHON_JULIAPKG_EXE=/path/to/julia, PYTHON_JULIAPKG_OFFLINE=yes once the Julia "
    "packages are installed, and JULIA_DEPOT_PATH to a writable depot; then run "
    "`python -c 'import pysr'` once with network access to install SymbolicRegression.jl. "
    "Or choose another searcher: [search] plugin = \"operon\" (default) or \"gplearn\"."
)


class _PySRSyntax(ast.NodeTransformer):
    """Rewrite PySR-only functions into plain arithmetic the safe parser accepts."""

    POWERS = {"square": 2, "cube": 3}

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
            name, arg = node.func.id, node.args[0]
            if name in self.POWERS:
                return ast.BinOp(arg, ast.Pow(), ast.Constant(self.POWERS[name]))
            if name == "neg":
                return ast.UnaryOp(ast.USub(), arg)
            if name == "inv":
                return ast.BinOp(ast.Constant(1), ast.Div(), arg)
        if isinstance(node.func, ast.Name) and len(node.args) == 2 and not node.keywords:
            ops = {"pow": ast.Pow(), "div": ast.Div(), "mult": ast.Mult(), "plus": ast.Add(), "sub": ast.Sub()}
            if node.func.id in ops:
                return ast.BinOp(node.args[0], ops[node.func.id], node.args[1])
        return node


def parse_pysr_equation(text: str, variables: Sequence[str],
                        feature_names: Sequence[str] | None = None) -> sp.Expr:
    """PySR ``equation`` string -> sympy in the problem's ``variables``.

    ``^`` is Julia's power (it binds like Python's ``**``); ``square``,
    ``cube``, ``neg``, ``inv`` are rewritten to arithmetic.  ``feature_names``
    are the names the equation uses (default ``x0, x1, ...``); they are mapped
    position by position onto ``variables``.  Raises :class:`ExpressionError`.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"expected an equation string, got {text!r}")
    names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(len(variables))]
    if len(names) != len(variables):
        raise ExpressionError(f"{len(names)} feature names for {len(variables)} variables")
    try:
        tree = ast.parse(text.strip().replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {text!r}: {exc.msg}") from None
    rewritten = ast.unparse(ast.fix_missing_locations(_PySRSyntax().visit(tree)))
    expr = parse_expression(rewritten, Vocabulary(names))
    target = {v: sp.Symbol(v, real=True) for v in variables}   # names were checked when the problem loaded
    return expr.xreplace({sp.Symbol(n, real=True): target[v] for n, v in zip(names, variables)})


def _records(table: Any) -> list[Mapping[str, Any]]:
    if hasattr(table, "to_dict"):
        return list(table.to_dict("records"))
    return [dict(r) for r in table]


def members_from_equations(table: Any, variables: Sequence[str],
                           feature_names: Sequence[str] | None = None,
                           X: np.ndarray | None = None, y: np.ndarray | None = None,
                           ) -> tuple[list[ParetoMember], list[str]]:
    """Convert a PySR ``equations_`` table into the empirical front.

    ``table`` is a pandas DataFrame or an iterable of records with at least the
    columns ``complexity``, ``loss`` and ``equation`` (``score``,
    ``sympy_format``, ``lambda_format`` are ignored).  The complexity is PySR's
    raw complexity.  The loss is PySR's ``loss`` column unless ``X`` and ``y``
    are given, in which case it is the MSE of the parsed expression on them.
    Rows that do not parse or have a non-finite loss are dropped; the second
    return value lists why.
    """
    symbols = list(Vocabulary(variables).var_symbols.values())
    members: list[ParetoMember] = []
    dropped: list[str] = []
    for row in _records(table):
        text = str(row.get("equation"))
        try:
            expr = parse_pysr_equation(text, variables, feature_names)
        except ExpressionError as exc:
            dropped.append(f"{text!r}: {exc}")
            continue
        if X is not None and y is not None:
            loss = teacher_fit_mse(expr, symbols, X, y)
        else:
            try:
                loss = float(row.get("loss"))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                loss = math.inf
        if not math.isfinite(loss):
            dropped.append(f"{text!r}: non-finite loss")
            continue
        members.append(ParetoMember(expr, int(row["complexity"]), loss))
    return empirical_front(members), dropped


def import_pysr() -> Any:    # the pysr module (PySR is untyped and optional)
    """Import pysr or raise a ComponentError that says why and how to fix it."""
    try:
        import pysr  # noqa: F401  (starts Julia)
    except BaseException as exc:  # juliapkg/juliacall raise many kinds, some not Exceptions
        if isinstance(exc, KeyboardInterrupt):
            raise
        if isinstance(exc, ModuleNotFoundError) and exc.name in ("pysr", "juliacall", "juliapkg"):
            raise ComponentError(
                f"searcher 'pysr' is unusable here: the Python package '{exc.name}' is not installed; "
                f"install it with `pip install pysr` (or `pip install desyr[pysr]`). {SETUP_HELP}"
            ) from None
        raise ComponentError(
            f"searcher 'pysr' is unusable here: importing pysr failed with "
            f"{type(exc).__name__}: {str(exc).strip()[:300]}. {SETUP_HELP}"
        ) from None
    return pysr


#: PySRRegressor keywords that ``extra`` may set: numeric or boolean tuning only.  Keys that
#: take Julia code (``loss_function``, ``elementwise_loss``, operator definitions,
#: ``early_stop_condition`` as a function), paths (``output_directory``, ``tempdir``,
#: ``equation_file``), processes (``procs``, ``cluster_manager``) or Python objects are refused:
#: a config file must not be able to run code.
EXTRA_ALLOWED = frozenset({
    "maxdepth", "parsimony", "adaptive_parsimony_scaling", "ncycles_per_iteration", "alpha", "annealing",
    "weight_add_node", "weight_insert_node", "weight_delete_node", "weight_do_nothing", "weight_mutate_constant",
    "weight_mutate_operator", "weight_swap_operands", "weight_rotate_tree", "weight_randomize", "weight_simplify",
    "weight_optimize", "crossover_probability", "skip_mutation_failures", "migration", "hof_migration",
    "fraction_replaced", "fraction_replaced_hof", "topn", "should_simplify", "should_optimize_constants",
    "optimizer_nrestarts", "optimizer_iterations", "optimize_probability", "perturbation_factor",
    "probability_negate_constant", "tournament_selection_n", "tournament_selection_p", "use_frequency",
    "use_frequency_in_tournament", "batching", "batch_size", "complexity_of_constants", "complexity_of_variables",
    "complexity_of_operators", "constraints", "nested_constraints", "turbo", "bumper", "denoise",
    "early_stop_condition", "warmup_maxsize_by", "dimensional_constraint_penalty",
})


def _plain_value(value: Any, depth: int = 0) -> bool:
    if isinstance(value, (bool, int, float)):
        return True
    if depth < 3 and isinstance(value, (list, tuple)):
        return all(_plain_value(v, depth + 1) for v in value)
    if depth < 3 and isinstance(value, Mapping):
        return all(isinstance(k, str) and _plain_value(v, depth + 1) for k, v in value.items())
    return False


class PySRSearcher(Searcher):
    """``PySRRegressor``; with a seed it runs ``deterministic=True, parallelism='serial'``."""

    name = "pysr"
    supported_binary = frozenset(BINARY)
    supported_unary = frozenset(UNARY)
    budget_aliases = BUDGET_ALIASES
    budget_protected = frozenset({"extra"})
    options = {
        "niterations": Option(100, "iterations (the budget that binds by default)", kind=int, low=1, high=1_000_000),
        "populations": Option(16, "number of populations", kind=int, low=1, high=10_000),
        "population_size": Option(27, "expressions per population", kind=int, low=2, high=1_000_000),
        "timeout_in_seconds": Option(None, "clock limit per run; None or 0: none (reproducible)", kind=float,
                                     low=0, high=7 * 86400, nullable=True),
        "max_evals": Option(None, "evaluation limit per run; None or 0: none", kind=int, low=0, high=2**62,
                            nullable=True),
        "deterministic": Option(True, "deterministic=True with parallelism='serial'; False uses threads "
                                      "(not reproducible)", kind=bool),
        "precision": Option(64, "floating-point precision: 16, 32 or 64", kind=int, low=16, high=64),
        "extra": Option({}, "further PySRRegressor keyword arguments (numeric tuning only, see EXTRA_ALLOWED)",
                        kind=dict),
    }

    @classmethod
    def validate_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        s = super().validate_options(given)
        if s["precision"] not in (16, 32, 64):
            raise ComponentError(f"searcher 'pysr': option 'precision' must be 16, 32 or 64, got {s['precision']!r}")
        extra = dict(s["extra"] or {})
        refused = sorted(k for k in extra if k not in EXTRA_ALLOWED)
        if refused:
            raise ComponentError(f"searcher 'pysr': option 'extra' does not accept {', '.join(map(str, refused))} "
                                 f"(keys that take Julia code, paths or processes are refused; allowed: "
                                 f"{', '.join(sorted(EXTRA_ALLOWED))})")
        for key, value in extra.items():
            if not _plain_value(value):
                raise ComponentError(f"searcher 'pysr': extra.{key} must be a number, bool, or a list/table of "
                                     f"them, got {type(value).__name__}")
        return s

    def regressor_kwargs(self, task: SearchTask) -> dict[str, Any]:
        """The PySRRegressor arguments for ``task`` (pure; useful to inspect without Julia)."""
        s, _ = self.settings_for(task)
        s = self.validate_options(s)          # budget values are checked like options
        kwargs: dict[str, Any] = dict(
            binary_operators=[BINARY[b] for b in task.binary],
            unary_operators=[UNARY[u] for u in task.unary],
            maxsize=int(task.max_size),
            niterations=int(s["niterations"]),
            populations=int(s["populations"]),
            population_size=int(s["population_size"]),
            elementwise_loss="L2DistLoss()",
            model_selection="best",
            precision=int(s["precision"]),
            random_state=int(task.seed),
            verbosity=0,
            progress=False,
            temp_equation_file=True,
            delete_tempfiles=True,
        )
        if s["deterministic"]:
            kwargs.update(deterministic=True, parallelism="serial")
        if s["timeout_in_seconds"]:
            kwargs["timeout_in_seconds"] = float(s["timeout_in_seconds"])
        if s["max_evals"]:
            kwargs["max_evals"] = int(s["max_evals"])
        julia_only = [u for u in task.unary if u in JULIA_ONLY]
        if julia_only:
            kwargs["extra_sympy_mappings"] = {u: UNARY_OPERATORS[u].sympy for u in julia_only}
        kwargs.update(dict(s["extra"] or {}))
        return kwargs

    def search(self, task: SearchTask) -> SearchResult:
        self.check_operators(task.binary, task.unary)
        kwargs = self.regressor_kwargs(task)
        X, y = self.task_arrays(task)
        variables = list(task.variables)
        pysr = import_pysr()
        model = pysr.PySRRegressor(**kwargs)
        start = time.perf_counter()
        model.fit(X, y)   # no variable_names: equations use x0, x1, ... which we map back
        elapsed = time.perf_counter() - start
        feature_names = [str(n) for n in getattr(model, "feature_names_in_", [f"x{i}" for i in range(X.shape[1])])]
        members, dropped = members_from_equations(model.equations_, variables, feature_names, X, y)
        if dropped:
            warnings.warn(f"searcher 'pysr' dropped {len(dropped)} front member(s): " + "; ".join(dropped[:3]),
                          RuntimeWarning, stacklevel=2)
        return SearchResult(members, {"seed": int(task.seed), "seconds": elapsed, "dropped": len(dropped),
                                      "raw_front": len(model.equations_)})


@hookimpl
def desyr_register_searchers() -> list[type[Searcher]]:
    return [PySRSearcher]
