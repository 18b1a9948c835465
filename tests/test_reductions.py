"""Stage 0's reductions (issue 36, item 5): the energy integral, travelling waves, a rotating phase
and similarity variables each hand a reduced ODE to SymPy, and their candidates end Proved before
any teacher is trained; ``reductions = false`` turns them off."""
from __future__ import annotations

from pathlib import Path

import pytest
from budgets import full_only
from desyr_sympy import propose

from desyr.api import run
from desyr.extension.registry import load_registry
from desyr.plugin import problem_from_toml

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "reductions"

#: each fixture and the reduction that must settle it
CASES = {"sine_gordon_kink": "energy", "kdv_soliton": "waves", "nls_bright": "phase", "heat_source": "similarity"}


def load(name: str, extra: str = ""):
    return problem_from_toml((FIXTURES / f"{name}.toml").read_text() + extra, name)


@pytest.mark.slow
@full_only("each example's stage-0 run below asserts its reduction's tag")
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_reduction_proposes_a_candidate_tagged_with_its_source(name):
    # its own solver only: every solver together is the stage-0 run's below
    found = propose(load(name), time_limit=30.0, solvers=[CASES[name]])
    assert CASES[name] in found.origins, found.attempts
    record = {a.solver: a for a in found.attempts}[CASES[name]]
    assert record.outcome.startswith("candidates") and record.outcome != "candidates: 0"


@pytest.fixture(scope="module")
def registry():
    return load_registry()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_example_ends_proved_at_stage_0(name, registry, tmp_path):
    result = run(load(name), registry=registry, out=tmp_path / "r", plots=False)
    assert result.verdict == "proved" and result.teacher is None
    assert result.attempts[0].searchers == f"sympy:{CASES[name]}"


def test_the_off_switch_leaves_the_reductions_out():
    found = propose(load("heat_source"), time_limit=30.0, reductions=False, solvers=["similarity", "separable"])
    assert [a.solver for a in found.attempts] == ["separable"]
    assert "similarity" not in found.origins


def test_the_option_is_documented_and_on_by_default():
    from desyr_sympy.plugin import SympySearcher

    assert SympySearcher.options["reductions"].default is True
    assert "reductions" in (Path(__file__).resolve().parents[1] / "docs" / "solvers.md").read_text()


def test_a_linear_ode_is_not_the_energy_integrals():
    problem = problem_from_toml('name = "lin"\n[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx + u"\n'
                                '[[constraints]]\non = ["x = 0", "x = 1"]\nvalue = 0\n', "lin")
    found = propose(problem, time_limit=5.0, solvers=["energy"])
    assert found.attempts[0].outcome == "not applicable" and "linear" in found.attempts[0].detail
