"""No fork after a library that runs threads of its own is loaded (issue 45, item 5): JAX warns that
such a fork "will likely lead to a deadlock". ``child_context`` gives a fresh interpreter there, and
the suite itself loads JAX only in a child (conftest.py checks after every test)."""
from __future__ import annotations

import sys
import types

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
