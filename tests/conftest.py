import sys
from pathlib import Path

import pytest
from scheduling import heaviest_modules_first
from verifier_forks import REAL_STARTED as real_verifier_start
from verifier_forks import VerifierForks

from desyr.config.loading import load_problem
from desyr.extension.registry import load_registry
from desyr.verify import child as verifier_child

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


@pytest.fixture(scope="session", autouse=True)
def _warm_verifier():
    """Verdicts from forks of one warm verifier process (tests/verifier_forks.py): each still a clean
    process answering one request, without importing SymPy again (about 0.8 s of CPU each)."""
    forks: list[VerifierForks] = []

    def started(spare: bool = False):
        if not forks:
            forks.append(VerifierForks())
        return forks[0].started(spare)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(verifier_child, "_started", started)
        yield
    verifier_child.VERIFIER.stop()          # a verifier started ahead for a request that never came
    for each in forks:
        each.close()


@pytest.fixture
def real_verifier(monkeypatch):
    """A test of the verifier's own start-up: each verdict from a process started as a run starts it."""
    monkeypatch.setattr(verifier_child, "_started", real_verifier_start)


@pytest.fixture(autouse=True)
def _no_fork_unsafe_library():
    """The suite forks (stage 0's solver children, the verifier's tests), and a fork after JAX "will
    likely lead to a deadlock" (issue 45): a test loads such a library only in a child process
    (helpers.in_a_fresh_process)."""
    yield
    from desyr.runtime.forks import FORK_UNSAFE

    loaded = [name for name in FORK_UNSAFE if name in sys.modules]
    assert not loaded, (f"this test loaded {', '.join(loaded)} into the test process; load it in a child "
                        "(helpers.in_a_fresh_process): the suite forks, and a fork after it can deadlock")


@pytest.fixture(autouse=True)
def _no_time_limit_left():
    """No test leaves a time limit open or a real-time timer running: with a timer running and no limit
    open, every later ``time_limit`` in the worker would silently be no limit (a run's budget stops
    included: desyr/stages/stops.py)."""
    yield
    from desyr.symbolic import time_limit

    left = time_limit.left_behind()
    if left is not None:
        time_limit.clear()      # the tests after this one start clean
    assert left is None, f"this test left {left}"


@pytest.fixture(autouse=True)
def _allow_callable_teacher(monkeypatch):
    """Most tests use the callable teacher as a stand-in; the opt-in is tested on its own."""
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")



# ------------------------------------------------------------------ the fast tier
#: a fast-tier test slower than this is named at the end of a ``--fast`` session: reported, never failed
#: (timings on a shared machine vary; speed targets belong in benchmarks, not in unit tests)
FAST_TIER_REPORT_S = 2.0


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true", default=False,
                     help="the fast tier (./dev test --fast): leave out the tests marked slow, "
                          f"and name the tests left that took over {FAST_TIER_REPORT_S:g} s")


def pytest_configure(config):
    if config.getoption("--fast"):
        config.pluginmanager.register(_FastTier(), "desyr-fast-tier")
    if getattr(config.option, "dist", "no") in ("loadfile", "loadscope"):
        # xdist would sort the modules by their number of tests again; keep the workers' order
        # (heaviest first, below), which xdist then hands out as given
        config.option.loadscopereorder = False


@pytest.hookimpl(trylast=True)      # after the fast tier's deselection, so the weights are those of what runs
def pytest_collection_modifyitems(config, items):
    """Under xdist, whole modules heaviest first (tests/scheduling.py): the last modules handed out
    are then short, and the two workers finish together."""
    if hasattr(config, "workerinput"):
        items[:] = heaviest_modules_first(items, lambda item: item.nodeid.split("::", 1)[0],
                                          lambda item: item.get_closest_marker("slow") is not None
                                          and not _skipped(item))


def _skipped(item) -> bool:
    """Whether a ``skipif`` whose condition is a plain True skips the test (budgets.full_only in CI): it
    weighs nothing in the modules' order."""
    return any(mark.args and mark.args[0] is True for mark in item.iter_markers("skipif"))


class _FastTier:
    """Deselects the ``slow`` tests and reports the drift: kept tests that have become slow."""

    def __init__(self):
        self.durations: dict[str, float] = {}

    def pytest_collection_modifyitems(self, config, items):
        slow = [item for item in items if item.get_closest_marker("slow") is not None]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if item.get_closest_marker("slow") is None]

    def pytest_runtest_logreport(self, report):
        # setup + call + teardown, so a module fixture's start-up counts for the first test using it
        self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + report.duration

    def pytest_terminal_summary(self, terminalreporter):
        over = sorted(((d, n) for n, d in self.durations.items() if d > FAST_TIER_REPORT_S), reverse=True)
        if not over:
            return
        terminalreporter.section(f"fast tier: tests over {FAST_TIER_REPORT_S:g} s", sep="-", yellow=True)
        for duration, nodeid in over:
            terminalreporter.write_line(f"{duration:6.1f} s  {nodeid}")
        terminalreporter.write_line("if one stays slow on an idle machine, mark it @pytest.mark.slow "
                                    "(tests/test_tiers.py lists what belongs there)")
