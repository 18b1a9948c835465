"""Helpers for testing DeSyR plugins, in the spirit of pytest's ``pytester``.

Build a problem from TOML text, a run context with its point sets, candidates
and fronts, and run one component in isolation, without training a teacher::

    from desyr.testing import check_component, make_problem, parametrize_with_checks, run_refiner

    check_component(MyRefiner)              # every contract check `desyr run` makes

    @parametrize_with_checks([MyRefiner])   # the same, one pytest item per named check
    def test_contract(component, check):
        check()
    problem = make_problem(SINE_POISSON_1D)
    outcome = run_refiner(MyRefiner(), problem, "sin(3.1*x)")
    assert outcome.converged

Everything here uses the same checking functions as ``desyr run``; nothing is faked.
With ``pytest_plugins = ["desyr.testing"]`` in a ``conftest.py``, the ``desyr_cli``
fixture runs the command line in a temporary directory.
"""
from __future__ import annotations

from desyr.testing.conformance import (
    ComponentCheck,
    ContractViolation,
    check_component,
    component_checks,
    parametrize_with_checks,
)
from desyr.testing.helpers import (
    SINE_POISSON_1D,
    decision,
    front_of,
    isolated_registry,
    make_candidate,
    make_context,
    make_problem,
    make_task,
    refit_pool,
    run_executor,
    run_gates_on,
    run_refiner,
    run_searcher,
    run_teacher,
)

try:   # the fixture needs pytest, which a plugin's runtime does not
    from desyr.testing.cli import CliResult, DesyrCli, desyr_cli
except ImportError:  # pragma: no cover
    pass

__all__ = ["SINE_POISSON_1D", "make_problem", "make_context", "make_candidate", "make_task", "run_teacher",
           "run_searcher", "run_refiner", "run_gates_on", "run_executor", "isolated_registry", "refit_pool",
           "front_of", "decision", "check_component", "component_checks", "parametrize_with_checks",
           "ComponentCheck", "ContractViolation", "desyr_cli", "DesyrCli", "CliResult"]
