"""The executor role: lookup, order, per-unit failures, killed workers, and same results on every executor."""
import os
import signal

import pytest
from scaling_helpers import comparable, sine_config

from desyr.api import Execution, run
from desyr.config.loading import load_problem
from desyr.errors import ConfigError
from desyr.extension.registry import load_registry
from desyr.extension.roles import ROLES, Executor, UnitFailure
from desyr.runtime.execution import make_executor


def square(x):
    return x * x


def fail_on_three(x):
    if x == 3:
        raise ValueError("three")
    return x


def kill_once(item):
    """Kills its worker the first time (a marker file remembers), then answers."""
    x, marker = item
    if marker and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def kill_always(x):
    if x == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def test_executor_is_a_role_with_builtins(registry):
    assert "executor" in ROLES
    serial = make_executor(registry, name="serial")
    default = make_executor(registry)
    assert isinstance(serial, Executor) and serial.workers == 1
    assert default.name == "processes"


def test_unknown_executor_option_is_a_config_error(registry):
    with pytest.raises(ConfigError, match="processes"):
        make_executor(registry, name="processes", options={"nope": 1})


@pytest.mark.parametrize("name", ["serial", pytest.param("processes", marks=pytest.mark.slow)])
def test_map_keeps_order_and_isolates_failures(registry, name):
    with make_executor(registry, name=name, workers=2) as ex:
        out = ex.map(fail_on_three, list(range(6)))
    assert out[:3] == [0, 1, 2] and out[4:] == [4, 5]
    assert isinstance(out[3], UnitFailure) and "three" in out[3].message
    assert isinstance(out[3].error, ValueError)


@pytest.mark.slow
def test_killed_worker_is_retried_and_a_repeat_killer_is_recorded(registry, tmp_path):
    with make_executor(registry, name="processes", workers=2) as ex:
        out = ex.map(kill_once, [(0, ""), (1, str(tmp_path / "killed")), (2, ""), (3, "")])
        assert out == [0, 1, 2, 3]
        out = ex.map(kill_always, [0, 1, 2, 3])
    assert out[0] == 0 and out[2:] == [2, 3]
    assert isinstance(out[1], UnitFailure) and out[1].lost


@pytest.mark.slow
def test_same_result_on_serial_and_processes(registry, tmp_path):
    problem = load_problem(str(sine_config(tmp_path)), registry)
    results = {}
    for name in ("serial", "processes"):
        result = run(problem, registry=registry, out=tmp_path / name,
                     execution=Execution(name, 2), progress=None)
        results[name] = comparable(tmp_path / name / "result.json")
        assert result.provenance.execution.executor == name
        assert result.provenance.execution.units_computed == len(result.search.runs) + len(result.candidates)
    assert results["serial"] == results["processes"]
    assert results["serial"]["expression"] == {"u": "sin(3.141592653589793*x)"}


def stuck_in_c(x):
    """Unit 1 runs in C code without returning to Python (no signal, no lifeline thread reaches it)."""
    if x == 1:
        sum(range(10**14))
    return x


@pytest.mark.slow
def test_a_unit_not_back_by_the_deadline_is_stopped_with_its_worker(registry):
    """Under a budget (issue 45) the processes executor stops waiting at the deadline and kills the workers,
    a unit stuck in C code included; the units that finished keep their answers, and the executor runs
    the next map on fresh workers."""
    import time

    executor = make_executor(registry, name="processes", workers=2)
    try:
        assert executor.map(square, [1, 2]) == [1, 4]       # the workers start (and import) before the clock
        start = time.perf_counter()
        out = executor.map_until(stuck_in_c, [0, 1, 2], time.time() + 1.5)
        assert time.perf_counter() - start < 5
        assert out[0] == 0 and out[2] == 2
        assert isinstance(out[1], UnitFailure) and out[1].stopped and not out[1].lost
        assert executor.map(square, [1, 2, 3]) == [1, 4, 9]
    finally:
        executor.close()


def test_an_executor_that_cannot_stop_a_unit_waits_for_it(registry):
    """The default ``map_until`` is ``map``: an in-process executor has no worker to stop (its units stop
    themselves where a signal reaches them)."""
    import time

    serial = make_executor(registry, name="serial")
    assert serial.map_until(square, [2, 3], time.time() - 1) == [4, 9]
