"""The `gplearn` searcher on tiny budgets, and its program -> sympy converter."""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from desyr.extension.roles import ComponentError, ParetoMember, SearchTask

pytest.importorskip("gplearn", reason="gplearn is not installed")

from desyr_gplearn.plugin import GplearnSearcher, program_to_sympy  # noqa: E402
from gplearn.functions import _function_map  # noqa: E402

x, t = sp.Symbol("x", real=True), sp.Symbol("t", real=True)
FAST = dict(generations=8, population_size=300)


def exp_sin_task(seed=1, **kw):
    rng = np.random.default_rng(0)
    X = rng.uniform(0.0, 1.0, (200, 2))
    y = np.exp(-X[:, 1]) * np.sin(X[:, 0])
    return SearchTask(X, y, ["x", "t"], ["+", "-", "*", "/"], ["sin", "exp", "tanh"], 20, seed=seed, **kw)


def test_program_to_sympy():
    f = _function_map
    prog = [f["add"], 0.5, f["mul"], f["sin"], 0, f["div"], 1, 2.0]
    assert program_to_sympy(prog, ["x", "t"]) == sp.Float(0.5) + sp.sin(x) * t / sp.Float(2.0)
    with pytest.raises(ValueError):
        program_to_sympy([f["add"], 0], ["x"])          # truncated
    with pytest.raises(ValueError):
        program_to_sympy([0, 1], ["x", "t"])            # trailing
    with pytest.raises(ValueError):
        program_to_sympy([f["max"], 0, 0], ["x"])       # no mapping


@pytest.mark.slow
def test_front_is_valid_and_sympy():
    searcher = GplearnSearcher(**FAST)
    front = searcher.search(exp_sin_task()).front
    assert front and all(isinstance(m, ParetoMember) for m in front)
    comps = [m.complexity for m in front]
    losses = [m.loss for m in front]
    assert comps == sorted(set(comps)) and losses == sorted(losses, reverse=True)
    assert max(comps) <= 20
    for m in front:
        assert isinstance(m.expression, sp.Expr)
        assert m.expression.free_symbols <= {x, t}
        assert np.isfinite(m.loss)
    assert min(losses) < 1e-3


@pytest.mark.slow
def test_same_seed_same_front():
    a = GplearnSearcher(**FAST).search(exp_sin_task(seed=5)).front
    b = GplearnSearcher(**FAST).search(exp_sin_task(seed=5)).front
    assert [(m.complexity, m.loss, sp.srepr(m.expression)) for m in a] == \
           [(m.complexity, m.loss, sp.srepr(m.expression)) for m in b]


def test_unsupported_operator_is_a_config_error():
    with pytest.raises(ComponentError, match=r"gplearn.*\^"):
        GplearnSearcher().check_operators(["+", "^"], ["sin"])
    with pytest.raises(ComponentError, match="gplearn.*sinh"):
        GplearnSearcher(**FAST).search(SearchTask(np.zeros((3, 1)), np.zeros(3), ["x"], ["*"], ["sinh"], 9, 0))


def test_options_and_budget():
    with pytest.raises(ComponentError, match="does not know option"):
        GplearnSearcher(time_limit=3)
    with pytest.raises(ComponentError, match="front_from"):
        GplearnSearcher(front_from="best").search(exp_sin_task())
    s = GplearnSearcher(generations=2, population_size=50, front_from="final")
    result = s.search(exp_sin_task(budget={"iterations": 2, "time_limit": 5}))
    assert result.front and result.info["ignored_budget"] == ["time_limit"]
