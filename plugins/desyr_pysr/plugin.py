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
from typing import Any, Mapping, Sequence

import numpy as np
import sympy as sp

from desyr import hookimpl
from desyr.expressions import ExpressionError, Vocabulary, parse_expression
from desyr.roles import ComponentError, ParetoMember, SearchTask, Searcher
from desyr.stages.pool import empirical_front, teacher_fit_mse

#: common vocabulary -> PySR operator name
BINARY = {"+": "+", "-": "-", "*": "*", "/": "/", "^": "^"}
UNARY = {
    "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log", "sqrt": "sqrt",
    "tanh": "tanh", "sinh": "sinh", "cosh": "cosh", "asin": "asin", "acos": "acos",
    "atan": "atan", "abs": "abs", "square": "square", "cube": "cube",
}
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
    target = Vocabulary(variables).var_symbols
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
        text = row.get("equation")
        try:
            expr = parse_pysr_equation(text, variables, feature_names)
        except ExpressionError as exc:
            dropped.append(f"{text!r}: {exc}")
            continue
        if X is not None and y is not None:
            loss = teacher_fit_mse(expr, symbols, X, y)
        else:
            try:
                loss = float(row.get("loss"))
            except (TypeError, ValueError):
                loss = math.inf
        if not math.isfinite(loss):
            dropped.append(f"{text!r}: non-finite loss")
            continue
        members.append(ParetoMember(expr, int(row["complexity"]), loss))
    return empirical_front(members), dropped


def import_pysr():
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


class PySRSearcher(Searcher):
    """``PySRRegressor``; with a seed it runs ``deterministic=True, parallelism='serial'``."""

    name = "pysr"
    supported_binary = frozenset(BINARY)
    supported_unary = frozenset(UNARY)
    budget_aliases = BUDGET_ALIASES
    budget_protected = frozenset({"extra"})
    options = {
        "niterations": 100,
        "populations": 16,
        "population_size": 27,
        "timeout_in_seconds": None,
        "max_evals": None,
        "deterministic": True,        # with parallelism="serial"; set False to use threads (not reproducible)
        "precision": 64,
        "extra": {},                  # further PySRRegressor keyword arguments, passed unchanged
    }

    def regressor_kwargs(self, task: SearchTask) -> dict[str, Any]:
        """The PySRRegressor arguments for ``task`` (pure; useful to inspect without Julia)."""
        s, _ = self.settings_for(task)
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
        kwargs.update(dict(s["extra"] or {}))
        return kwargs

    def search(self, task: SearchTask) -> list[ParetoMember]:
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
        self.last_run_info = {"seed": int(task.seed), "seconds": elapsed, "dropped": len(dropped),
                              "raw_front": len(model.equations_)}
        return members


@hookimpl
def desyr_register_searchers():
    return [PySRSearcher]
