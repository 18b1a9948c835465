import sys
from pathlib import Path

import pytest

from desyr.config.loading import load_problem
from desyr.extension.registry import load_registry

THIRD_PARTY = Path(__file__).parent / "third_party"


@pytest.fixture
def third_party(monkeypatch):
    """Put the test distributions (real .dist-info folders) on sys.path."""
    monkeypatch.syspath_prepend(str(THIRD_PARTY))
    yield THIRD_PARTY
    for name in [m for m in sys.modules if m.startswith("desyr_example_plugin")]:
        del sys.modules[name]


@pytest.fixture(scope="session")
def registry():
    return load_registry()


@pytest.fixture
def paper(registry):
    def load(spec):
        return load_problem(f"paper:{spec}", registry)
    return load


@pytest.fixture(autouse=True)
def _allow_callable_teacher(monkeypatch):
    """Most tests use the callable teacher as a stand-in; the opt-in is tested on its own."""
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
