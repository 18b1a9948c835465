"""Executors: one that breaks its contract ends the run with one line naming it, and the workers of
the ``processes`` executor die with their run, even when it is killed with SIGKILL."""
from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_components import RIGHT_FIT, TOML, WRONG, HostilePlugin
from scaling_helpers import child_env, sine_config

import desyr.extension.registry
from desyr.api import Execution, refine
from desyr.cli.main import main
from desyr.errors import PluginError
from desyr.extension.registry import load_registry
from desyr.testing import make_problem

FAST = TOML + "\n[refine.options]\nstarts = 1\n"


@pytest.fixture(scope="module")
def registry():
    return load_registry(extra_plugins=[HostilePlugin()])


@pytest.mark.parametrize("executor,match", [
    ("e_short", "returned 1 result.* for 2 unit"),
    ("e_raising", "RuntimeError: the cluster went away"),
    ("e_junk", "unit 0 .*came back as NoneType"),
    # c0 got c1's refit, exit 0 and Proved, before the units carried their keys
    ("e_reversed", r"unit 0 \(refit/refit-\w+\) came back with the record of unit 1"),
    ("e_repeats_first", r"unit 1 \(refit/refit-\w+\) came back with the record of unit 0"),
])
def test_an_executor_breaking_its_contract_is_one_line_error(registry, executor, match):
    with pytest.raises(PluginError, match=match) as info:
        refine(make_problem(FAST), [RIGHT_FIT, WRONG], registry=registry, execution=Execution(executor))
    message = str(info.value)
    assert "\n" not in message and f"executor '{executor}'" in message


def test_an_executor_answering_with_an_earlier_maps_records_is_caught(registry):
    from hostile_executors import StaleExecutor

    from desyr.testing import run_executor
    from desyr.testing.conformance import conformance_unit

    executor = StaleExecutor()
    assert run_executor(executor, conformance_unit, [1, 2]) == [{"item": 1, "square": 1}, {"item": 2, "square": 4}]
    with pytest.raises(PluginError, match="executor 'e_stale' broke its contract: unit 0 came back with a record "
                                          "that is no unit's of this map"):
        run_executor(executor, conformance_unit, [3, 4])


@pytest.mark.parametrize("executor", ["e_short", "e_reversed"])
def test_an_executor_losing_a_unit_exits_2_on_the_command_line(registry, tmp_path, monkeypatch, executor):
    monkeypatch.setattr(desyr.extension.registry, "load_registry", lambda *a, **k: registry)
    config = tmp_path / "sine.toml"
    config.write_text(FAST, encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["refine", str(config), "--candidate", RIGHT_FIT, "--candidate", WRONG, "--executor", executor,
                     "--quiet", "--no-plots"])
    lines = err.getvalue().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith(f"desyr: error: executor '{executor}'"), lines


# ------------------------------------------------------------------ orphans
def session_members(sid: int) -> list[tuple[int, str]]:
    """Live (not zombie) processes of session ``sid``: the run was started as a session leader, so its
    workers, the fork server and the resource tracker are all in it, whoever their parent is now."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, _, _, session = stat[stat.rindex(")") + 2:].split()[:4]
        if int(session) == sid and state not in "ZX":
            found.append((int(entry), state))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_killed_run_leaves_no_worker_behind(tmp_path):
    config = sine_config(tmp_path, runs=4, generations=5000)       # searches that outlast the test
    run = subprocess.Popen([sys.executable, "-m", "desyr", "run", str(config), "--out", str(tmp_path / "out"),
                            "--executor", "processes", "--workers", "2", "--quiet", "--no-plots"],
                           env=child_env(), start_new_session=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(session_members(run.pid)) < 4 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)             # the run, the resource tracker, the fork server and a worker
        assert run.poll() is None and len(session_members(run.pid)) >= 4, "the workers never started"
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 5
        while session_members(run.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert session_members(run.pid) == []
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(run.pid, signal.SIGKILL)                      # no orphan even when the test fails


@pytest.mark.parametrize("name", ["ReversedExecutor", "RepeatsFirstExecutor", "StaleExecutor"])
def test_check_component_catches_what_the_run_refuses(name):
    import hostile_executors

    from desyr.testing import ContractViolation, check_component

    with pytest.raises(ContractViolation, match="came back with .*return fn\\(item\\) for every item"):
        check_component(getattr(hostile_executors, name))
