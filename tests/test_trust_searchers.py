"""Issue 11, items 7/8 and 12: searcher options are typed and ranged; default budgets are not clocks."""
from __future__ import annotations

import numpy as np
import pytest
from desyr_gplearn.plugin import GplearnSearcher
from desyr_operon.plugin import OperonSearcher
from desyr_pysr.plugin import PySRSearcher

from desyr.extension.roles import ComponentError, SearchTask


def one_line_error(cls, **options):
    with pytest.raises(ComponentError) as info:
        cls(**options)
    assert "\n" not in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("options", [
    {"generations": -5}, {"generations": 0}, {"time_limit": -5}, {"population_size": 0}, {"max_evaluations": 0},
    {"optimizer_iterations": -1}, {"max_depth": 0}, {"tournament_size": 0}, {"offspring_generator": "evil"},
    {"n_threads": 0}, {"intercept": "yes"}, {"generations": 2.5}, {"generations": "100"}, {"time_limit": float("inf")},
])
def test_operon_bad_options_fail_at_load(options):
    assert next(iter(options)) in one_line_error(OperonSearcher, **options)


@pytest.mark.parametrize("options", [
    {"generations": -1}, {"population_size": 0}, {"tournament_size": 0}, {"p_crossover": 1.5},
    {"p_crossover": 0.9, "p_subtree_mutation": 0.2}, {"init_depth": [6, 2]}, {"init_depth": [2]},
    {"const_range": [5.0, -5.0]}, {"max_samples": 0}, {"front_from": "some"}, {"parsimony_coefficient": -1},
    {"population_size": 10, "tournament_size": 20},
])
def test_gplearn_bad_options_fail_at_load(options):
    one_line_error(GplearnSearcher, **options)


@pytest.mark.parametrize("options", [
    {"niterations": 0}, {"populations": -1}, {"population_size": 0}, {"timeout_in_seconds": -5},
    {"max_evals": -1}, {"precision": 33}, {"deterministic": 1},
    {"extra": {"loss_function": "f(tree, dataset, options) = (run(`touch /tmp/x`); 0.0)"}},
    {"extra": {"elementwise_loss": "myloss(x, y) = (x - y)^2"}},
    {"extra": {"output_directory": "/etc"}}, {"extra": {"procs": 64}},
    {"extra": {"early_stop_condition": "f(loss, complexity) = (run(`id`); false)"}},
])
def test_pysr_bad_options_fail_at_load(options):
    one_line_error(PySRSearcher, **options)


def test_defaults_have_no_clock():
    assert not OperonSearcher().settings["time_limit"]
    assert OperonSearcher().settings["generations"] <= 1000
    assert not PySRSearcher().settings["timeout_in_seconds"]
    assert "time_limit" not in GplearnSearcher().settings


def task(seed=0, **budget):
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, (60, 1))
    return SearchTask(X=X, y=np.sin(np.pi * X[:, 0]), variables=["x"], binary=["+", "*"], unary=["sin"],
                      max_size=10, seed=seed, budget=budget)


def test_budget_values_are_checked_like_options():
    with pytest.raises(ComponentError, match="generations"):
        OperonSearcher().search(task(iterations=-5))
    with pytest.raises(ComponentError, match="niterations"):
        PySRSearcher().regressor_kwargs(task(iterations=0))


def test_pysr_kwargs_without_clock_by_default():
    kwargs = PySRSearcher().regressor_kwargs(task())
    assert "timeout_in_seconds" not in kwargs and kwargs["deterministic"] is True


def _front(members):
    return [(str(m.expression), m.complexity, m.loss) for m in members]


@pytest.mark.slow
def test_operon_same_seed_same_front():
    s = OperonSearcher(generations=15, population_size=100)      # defaults otherwise: no clock
    first = s.search(task(seed=7))
    a, b = _front(first.front), _front(OperonSearcher(generations=15, population_size=100).search(task(seed=7)).front)
    assert a and a == b
    assert first.info["stopped_by"] == "generations"
