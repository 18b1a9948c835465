"""The run store: records per unit, keyed; --resume after SIGKILL redoes only the unfinished units."""
import json
import subprocess
import sys
import time

import pytest
from scaling_helpers import child_env, comparable, sine_config

from desyr.api import Execution, run
from desyr.config.loading import load_problem
from desyr.extension.registry import load_registry
from desyr.runtime.store import RunStore, unit_seconds


def stamps(out):
    return {p.name: json.loads(p.read_text())["written"] for p in sorted((out / "store" / "search").glob("*.json"))}


def test_store_with_another_key_is_not_reused(tmp_path):
    first = RunStore(tmp_path, "a" * 64, {}, resume=False)
    (first.path("search", "u-0")).write_text(json.dumps({"key": "a" * 64, "record": {"x": 1}}))
    assert RunStore(tmp_path, "a" * 64, {}, resume=True).get("search", "u-0") == {"x": 1}
    other = RunStore(tmp_path, "b" * 64, {}, resume=True)
    assert other.note and other.get("search", "u-0") is None
    assert not other.path("search", "u-0").exists()


@pytest.mark.slow
def test_killed_run_resumes_without_redoing_finished_units(tmp_path):
    registry = load_registry()
    cfg = sine_config(tmp_path, runs=5, generations=80, waves=False)
    killed = tmp_path / "killed"
    cmd = [sys.executable, "-m", "desyr", "run", str(cfg), "--out", str(killed), "--executor", "serial", "--quiet"]
    proc = subprocess.Popen(cmd, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and len(stamps(killed) if
                                                                        (killed / "store").exists() else {}) < 1:
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    before = stamps(killed)
    assert 1 <= len(before) < 5, "the run finished its searches before it could be killed; make them slower"
    assert not (killed / "result.json").exists()

    problem = load_problem(str(cfg), registry)
    resumed = run(problem, registry=registry, out=killed, execution=Execution("serial", resume=True))
    after = stamps(killed)
    assert all(after[name] == before[name] for name in before)      # finished searches were not redone
    assert len(after) == 5
    assert resumed.provenance.execution.units_reused == len(before)
    assert resumed.provenance.execution.units_computed == 5 - len(before) + len(resumed.candidates)

    fresh = run(problem, registry=registry, out=tmp_path / "fresh", execution=Execution("serial"))
    assert comparable(killed / "result.json") == comparable(tmp_path / "fresh" / "result.json")
    assert fresh.provenance.execution.units_reused == 0

    again = run(problem, registry=registry, out=killed, execution=Execution("serial", resume=True))
    assert again.provenance.execution.units_computed == 0               # everything came from the store
    assert comparable(killed / "result.json") == comparable(tmp_path / "fresh" / "result.json")
    assert len(unit_seconds(killed)) == 5 + len(again.candidates)
