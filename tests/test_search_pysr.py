"""The `pysr` searcher: the equations_ conversion (fixture) and a real run when PySR works.

The fixture is hand-written in the schema of PySR's ``equations_``; it is not
PySR output.  The integration test runs only where ``import pysr`` succeeds.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from desyr_pysr.plugin import (
    SETUP_HELP,
    PySRSearcher,
    import_pysr,
    members_from_equations,
    parse_pysr_equation,
)

from desyr.extension.roles import ComponentError, SearchTask
from desyr.symbolic.expressions import ExpressionError

FIXTURE = Path(__file__).parent / "fixtures" / "pysr_equations_exp_sin.csv"
x, t = sp.Symbol("x", real=True), sp.Symbol("t", real=True)


def fixture_records():
    with FIXTURE.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert set(rows[0]) == {"complexity", "loss", "score", "equation", "sympy_format", "lambda_format"}
    return rows


@pytest.mark.parametrize("text, expected", [
    ("sin(x0 * 3.1415)", sp.sin(x * sp.Float(3.1415))),
    ("(x0 ^ 2)", x ** 2),
    ("-x0 ^ 2", -(x ** 2)),
    ("square(x1) + cube(x0)", t ** 2 + x ** 3),
    ("exp(neg(x1)) * inv(x0)", sp.exp(-t) / x),
    ("(x0 ^ -1.5)", x ** sp.Float(-1.5)),
    ("((x0 * x0) + -0.25573406)", x ** 2 + sp.Float(-0.25573406)),
])
def test_parse_pysr_equation(text, expected):
    assert parse_pysr_equation(text, ["x", "t"]) == expected


def test_parse_pysr_equation_names_and_safety():
    # equations written with the problem's own names (variable_names=...)
    assert parse_pysr_equation("sin(t) * x", ["x", "t"], ["x", "t"]) == sp.sin(t) * x
    # a swap of names is mapped position by position, simultaneously
    assert parse_pysr_equation("x1 - x0", ["x1", "x0"]) == sp.Symbol("x0", real=True) - sp.Symbol("x1", real=True)
    for bad in ["__import__('os').system('true')", "x0.real", "Inf * x0", "x0 if x0 else x1", "x2"]:
        with pytest.raises(ExpressionError):
            parse_pysr_equation(bad, ["x", "t"])


def test_members_from_fixture_table():
    members, dropped = members_from_equations(fixture_records(), ["x", "t"])
    assert len(dropped) == 2          # NaN loss and the Inf constant
    assert any("Inf" in d for d in dropped) and any("non-finite" in d for d in dropped)
    comps = [m.complexity for m in members]
    assert comps == [1, 3, 4, 6, 7, 8, 12]        # 5 and 9 are dominated
    by_c = {m.complexity: m for m in members}
    assert by_c[8].expression == sp.exp(-t) * sp.sin(x)
    assert by_c[8].loss == pytest.approx(2.1e-14)
    assert by_c[1].expression == sp.Float(0.29372)
    assert all(m.expression.free_symbols <= {x, t} for m in members)


def test_members_from_dataframe_and_recomputed_loss():
    pd = pytest.importorskip("pandas")
    table = pd.read_csv(FIXTURE)
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (100, 2))
    y = np.exp(-X[:, 1]) * np.sin(X[:, 0])
    members, dropped = members_from_equations(table, ["x", "t"], X=X, y=y)
    by_c = {m.complexity: m for m in members}
    assert by_c[8].loss < 1e-30             # recomputed exactly on X, y
    assert 12 not in by_c                   # no better than complexity 8 once recomputed
    assert len(dropped) == 2                # log(x1 - 5) is NaN on [0, 1]; Inf constant


def test_regressor_kwargs_and_operator_errors():
    task = SearchTask(np.zeros((3, 2)), np.zeros(3), ["x", "t"], ["+", "*", "^"], ["sin", "square"], 20, seed=4,
                      budget={"iterations": 7, "populations": 3, "time_limit": 30})
    kw = PySRSearcher().regressor_kwargs(task)
    assert kw["binary_operators"] == ["+", "*", "^"] and kw["unary_operators"] == ["sin", "square"]
    assert kw["maxsize"] == 20 and kw["niterations"] == 7 and kw["populations"] == 3
    assert kw["random_state"] == 4 and kw["deterministic"] is True and kw["parallelism"] == "serial"
    assert kw["timeout_in_seconds"] == 30.0
    with pytest.raises(ComponentError, match="pysr.*erf"):
        PySRSearcher().check_operators(["+"], ["erf"])
    with pytest.raises(ComponentError, match="budget key 'bogus'"):
        PySRSearcher().regressor_kwargs(SearchTask(np.zeros((3, 1)), np.zeros(3), ["x"], ["+"], [], 5, 0,
                                                   budget={"bogus": 1}))


def _pysr_or_reason():
    try:
        return import_pysr(), None
    except ComponentError as exc:
        return None, exc


def test_unusable_pysr_is_a_clear_error():
    pysr, exc = _pysr_or_reason()
    if pysr is not None:
        pytest.skip("PySR is usable here")
    assert "pysr" in str(exc) and "PYTHON_JULIAPKG_EXE" in str(exc) and "operon" in str(exc)
    assert SETUP_HELP in str(exc)
    task = SearchTask(np.zeros((3, 1)), np.zeros(3), ["x"], ["*"], ["sin"], 9, 0)
    with pytest.raises(ComponentError, match="unusable here"):
        PySRSearcher().search(task)


@pytest.mark.slow
def test_pysr_integration():
    pysr, exc = _pysr_or_reason()
    if pysr is None:
        pytest.skip(f"PySR unusable: {exc}")
    rng = np.random.default_rng(0)
    X = rng.uniform(0.0, 1.0, (200, 1))
    task = SearchTask(X, np.sin(3.14159 * X[:, 0]), ["x"], ["*"], ["sin"], 15, seed=1,
                      budget={"iterations": 20, "populations": 4})
    front = PySRSearcher().search(task).front
    assert front and min(m.loss for m in front) < 1e-6
    assert all(m.expression.free_symbols <= {x} for m in front)
