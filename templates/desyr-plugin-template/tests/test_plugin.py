"""Tests of the plugin, written with desyr.testing: the same code paths as `desyr run`."""
from __future__ import annotations

import importlib.metadata as md

import pytest
from desyr_myplugin import plugin
from desyr_myplugin.plugin import InOrderExecutor, MaxComplexityGate

from desyr.plugin import ComponentError, load_registry
from desyr.testing import (
    isolated_registry,
    make_candidate,
    make_context,
    make_problem,
    parametrize_with_checks,
    refit_pool,
    run_executor,
    run_gates_on,
)

DISTRIBUTION = "desyr-myplugin"

#: candidates for the built-in test problem u'' = -pi^2 sin(pi x), u(0) = u(1) = 0
CANDIDATES = ["0.9*sin(3.1*x)", "0.5*x*(1.0 - x)", "sin(pi*x) + 0.001*x**3*(1.0 - x)"]


@pytest.fixture
def refit():
    """The candidates, refit by the built-in scipy refiner and measured, as Stage B leaves them."""
    problem = make_problem()
    ctx = make_context(problem)
    pool = [make_candidate(problem, text, id=f"c{i}") for i, text in enumerate(CANDIDATES)]
    refit_pool(pool, load_registry().create("refiner", "scipy"), ctx)
    return pool, ctx


def test_the_plugin_registers_its_components():
    registry = isolated_registry(plugin)
    assert not registry.failures
    assert registry.names("gate") == ["max_complexity"]
    assert registry.info("gate", "max_complexity").cls is MaxComplexityGate
    assert registry.names("executor") == ["in_order"]


@parametrize_with_checks([MaxComplexityGate, InOrderExecutor])
def test_every_component_meets_its_contract(component, check):
    check()          # one item per check `desyr run` relies on, each message naming the fix


def _square(item):
    return {"square": item * item}      # a unit: a module-level function returning a dict


def test_the_executor_answers_every_unit_in_order():
    assert run_executor(InOrderExecutor(), _square, [3, 1, 2]) == [{"square": 9}, {"square": 1}, {"square": 4}]


def test_the_installed_distribution_provides_the_gate():
    try:
        version = md.version(DISTRIBUTION)
    except md.PackageNotFoundError:
        pytest.skip(f"{DISTRIBUTION} is not installed (run `pip install -e .` first)")
    info = load_registry().info("gate", "max_complexity")
    assert info.origin == f"{DISTRIBUTION} {version}" and info.cls is MaxComplexityGate


def test_keeps_candidates_within_the_limit(refit):
    pool, ctx = refit
    limit = min(c.complexity for c in pool)             # the sine candidates stay, the parabola goes
    selection = run_gates_on(list(pool), [MaxComplexityGate(limit=limit)], ctx)
    (record,) = selection.records
    assert record.gate == "max_complexity" and record.active
    assert set(record.kept) == {c.id for c in pool if c.complexity <= limit}
    assert set(record.removed) == {c.id for c in pool if c.complexity > limit} != set()
    assert all(reason.endswith(f"> {limit}") for reason in record.removed.values())
    assert selection.selected is not None and selection.selected.complexity <= limit


def test_keeps_the_simplest_when_none_is_short_enough(refit):
    pool, ctx = refit
    selection = run_gates_on(list(pool), [MaxComplexityGate(limit=1)], ctx)
    (record,) = selection.records
    simplest = min(c.complexity for c in pool)
    assert record.kept and all(c.complexity == simplest for c in pool if c.id in record.kept)
    assert "kept the simplest" in record.note


def test_an_empty_pool_stays_empty(refit):
    _, ctx = refit
    assert MaxComplexityGate().apply([], ctx).kept == []


def test_the_option_is_checked():
    assert MaxComplexityGate().settings == {"limit": 20}
    with pytest.raises(ComponentError, match="limit"):
        MaxComplexityGate(limit=0)
    with pytest.raises(ComponentError, match="does not know option"):
        MaxComplexityGate(limt=5)
