"""No fork after a library that runs threads of its own is loaded (issue 45, item 5): JAX warns that
such a fork "will likely lead to a deadlock". ``child_context`` gives a fresh interpreter there, and
the suite itself loads JAX only in a child (conftest.py checks after every test)."""
from __future__ import annotations

import sys
import types

import pytest

from desyr.plugin import child_context
from desyr.runtime.forks import FORK_UNSAFE, fork_is_safe


def test_a_child_is_forked_only_while_no_threaded_library_is_loaded():
    assert not any(name in sys.modules for name in FORK_UNSAFE)
    assert fork_is_safe() and child_context().get_start_method() == "fork"
    sys.modules["jax"] = types.ModuleType("jax")          # as if JAX were loaded
    try:
        assert not fork_is_safe()
        fresh = child_context().get_start_method()
    finally:
        del sys.modules["jax"]
    assert fresh == ("forkserver" if sys.platform.startswith("linux") else "spawn")


def test_the_suite_has_not_loaded_jax():
    assert "jax" not in sys.modules


@pytest.mark.slow
def test_stage_0_proposes_the_same_from_a_fresh_interpreter_once_jax_is_loaded(registry):
    """The SymPy searcher's solver children come from child_context: with JAX loaded (a run of an earlier
    problem in a notebook, a plugin) they start from the fork server instead, and propose the same."""
    from desyr.testing import SINE_POISSON_1D, make_problem

    problem = make_problem(SINE_POISSON_1D.replace("enabled = false", "enabled = true"))
    sympy_searcher = registry.create("searcher", "sympy", {"solvers": ["dsolve"]})
    forked = sympy_searcher.propose(problem, 20.0)
    sys.modules["jax"] = types.ModuleType("jax")
    try:
        fresh = sympy_searcher.propose(problem, 20.0)
    finally:
        del sys.modules["jax"]
    assert [str(c) for c in fresh.candidates] == [str(c) for c in forked.candidates]
    assert [a.outcome for a in fresh.attempts] == [a.outcome for a in forked.attempts] and fresh.candidates
