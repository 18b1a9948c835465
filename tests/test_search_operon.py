"""The `operon` searcher (pyoperon) on tiny budgets."""
from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp

from desyr.extension.roles import ComponentError, ParetoMember, SearchTask

pytest.importorskip("pyoperon", reason="pyoperon is not installed")

from desyr_operon.plugin import OperonSearcher, parse_model_string  # noqa: E402

x, t = sp.Symbol("x", real=True), sp.Symbol("t", real=True)
FAST = dict(generations=50, population_size=200, time_limit=0)


def sine_task(seed=1, **kw):
    rng = np.random.default_rng(0)
    X = rng.uniform(0.0, 1.0, (500, 1))
    return SearchTask(X, np.sin(3.14159 * X[:, 0]), ["x"], ["*"], ["sin"], 15, seed=seed, **kw)


def test_parse_model_string_maps_placeholders():
    e = parse_model_string("((-0.5) + (2.0 * sin((3.0 * _v0)))) * exp((_v1 ^ 2))", ["x", "t"])
    assert e.free_symbols == {x, t}
    assert e == (sp.Float(-0.5) + sp.Float(2.0) * sp.sin(sp.Float(3.0) * x)) * sp.exp(t ** 2)
    # names that would be special to the parser are fine as problem variables
    e = parse_model_string("(1.5 * _v0) + _v1", ["pi", "E"])
    assert {s.name for s in e.free_symbols} == {"pi", "E"}


@pytest.mark.slow
def test_recovers_sine_quickly():
    searcher = OperonSearcher(**FAST)
    start = time.perf_counter()
    result = searcher.search(sine_task())
    front = result.front
    assert time.perf_counter() - start < 10
    assert front and all(isinstance(m, ParetoMember) for m in front)
    assert [m.complexity for m in front] == sorted(m.complexity for m in front)
    best = min(front, key=lambda m: m.loss)
    assert best.loss < 1e-6
    assert best.expression.has(sp.sin) and best.expression.free_symbols == {x}
    assert best.expression.atoms(sp.Float)
    # the sine's frequency is ~pi
    (arg,) = [f.args[0] for f in best.expression.atoms(sp.sin)]
    assert abs(float(arg.coeff(x))) == pytest.approx(np.pi, rel=1e-4)
    assert result.info["stopped_by"] == "generations"


@pytest.mark.slow
def test_two_variables_are_mapped_back():
    rng = np.random.default_rng(1)
    X = rng.uniform(0.0, 1.0, (400, 2))
    y = np.exp(-X[:, 1]) * np.sin(X[:, 0])
    task = SearchTask(X, y, ["x", "t"], ["*"], ["sin", "exp"], 15, seed=3)
    front = OperonSearcher(generations=60, population_size=300, time_limit=0).search(task).front
    best = min(front, key=lambda m: m.loss)
    assert best.loss < 1e-6
    assert best.expression.free_symbols == {x, t}
    Xc = rng.uniform(0, 1, (20, 2))
    f = sp.lambdify([x, t], best.expression, "numpy")
    np.testing.assert_allclose(f(Xc[:, 0], Xc[:, 1]), np.exp(-Xc[:, 1]) * np.sin(Xc[:, 0]), atol=1e-3)


@pytest.mark.slow
def test_same_seed_same_front():
    a = OperonSearcher(**FAST).search(sine_task(seed=7)).front
    b = OperonSearcher(**FAST).search(sine_task(seed=7)).front
    assert [(m.complexity, m.loss, sp.srepr(m.expression)) for m in a] == \
           [(m.complexity, m.loss, sp.srepr(m.expression)) for m in b]


def test_unsupported_operator_is_a_config_error():
    with pytest.raises(ComponentError, match="operon.*cube"):
        OperonSearcher().check_operators(["*"], ["sin", "cube"])
    with pytest.raises(ComponentError, match="operon.*cube"):
        OperonSearcher(**FAST).search(SearchTask(np.zeros((3, 1)), np.zeros(3), ["x"], ["*"], ["cube"], 9, 0))


def test_unknown_option_and_budget_key():
    with pytest.raises(ComponentError, match="does not know option"):
        OperonSearcher(niterations=3)
    with pytest.raises(ComponentError, match="budget key 'bogus'"):
        OperonSearcher().search(sine_task(budget={"bogus": 1}))


@pytest.mark.slow
def test_budget_aliases():
    s = OperonSearcher(**FAST)
    info = s.search(sine_task(budget={"iterations": 5, "populations": 3})).info
    assert info["generations"] == 5
    assert info["ignored_budget"] == ["populations"]


def test_registered():
    from desyr.extension.registry import load_registry
    reg = load_registry()
    assert {"operon", "gplearn", "pysr"} <= set(reg.names("searcher"))
