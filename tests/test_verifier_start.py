"""The verifier started ahead of its request (``start_verifier``): the same clean process, one
request each, and an answer that does not wait for the end of its input."""
from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import desyr.verify.child as child
from desyr.testing import make_problem
from desyr.verify import make_request, request_verdict

#: these test the start of the process itself, not the forks of one warm process the other tests use
pytestmark = pytest.mark.usefixtures("real_verifier")


def test_a_started_verifier_answers_the_next_request_and_is_used_once():
    child.start_verifier()
    spare = child.VERIFIER.process
    assert spare is not None and spare.poll() is None
    child.start_verifier()                      # idempotent: still the one process
    assert child.VERIFIER.process is spare
    answer = request_verdict(make_request(make_problem(), {"u": "sin(pi*x)"}, None, 0))
    assert answer["verdict"] == "proved" and child.VERIFIER.process is None and spare.returncode == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_holding_the_input_open_does_not_hold_up_the_verdict():
    child.start_verifier()                      # its stdin pipe is inherited by the fork below
    pid = os.fork()
    if pid == 0:                                # pragma: no cover - the child only waits
        time.sleep(60)
        os._exit(0)
    try:
        answer = request_verdict(make_request(make_problem(), {"u": "sin(pi*x)"}, None, 0), timeout=50)
        assert answer["verdict"] == "proved"
        assert os.waitpid(pid, os.WNOHANG) == (0, 0)     # answered while the fork still held the pipe
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def test_the_verifier_still_reads_a_whole_file_of_indented_json():
    import json

    request = json.dumps(make_request(make_problem(), {"u": "sin(pi*x)"}, None, 0), indent=2)
    done = subprocess.run(child.verifier_command(), input=request, capture_output=True, text=True,
                          env=child.verifier_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "proved"


def test_a_spare_left_at_exit_is_stopped():
    code = ("import desyr.verify.child as c; c.start_verifier(); print(c.VERIFIER.process.pid, flush=True)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.strip())
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_the_verifier_leaves_without_the_interpreters_teardown_once_it_has_answered():
    """The run waits for the verifier's exit to read its answer: freeing SymPy's objects one by one
    (0.1-0.5 s) would only delay it. The answer (here: one error line) is still complete."""
    code = ("import atexit, sys; sys.path.insert(0, sys.argv[1]); import desyr.verify.__main__ as v; "
            "v._warm_up = lambda: None; atexit.register(lambda: print('teardown', flush=True)); v.serve()")
    done = subprocess.run([sys.executable, "-c", code, child.verifier_command()[-1]], input="not json\n",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == "desyr: error: the request is not JSON (JSONDecodeError)"
    assert done.stdout == ""                # no teardown: the handler never ran


def test_desyr_run_starts_the_spares_once_the_outline_is_checked_and_before_the_problem_is_read(
        monkeypatch, tmp_path):
    """The verifier's and the drawer's imports run on the core that reading the problem (SymPy's
    import) leaves idle; a path that cannot exist, a config with a wrong outline or a wrong spec
    still fails first, with no process started."""
    import desyr.cli.main as cli
    import desyr.config.loading as loading
    import desyr.report.drawer as drawer
    from desyr.errors import DesyrError

    order: list[str] = []

    def problem(*args):
        order.append("problem")
        raise DesyrError("stop here")

    monkeypatch.setattr(child, "start_verifier", lambda: order.append("verifier"))
    monkeypatch.setattr(drawer, "start_drawer", lambda: order.append("drawer"))
    class Plugins:
        def load_problem(self, spec):
            order.append("spec")
            raise DesyrError(f"no problem {spec}")

    monkeypatch.setattr(cli, "loaded_registry", lambda args: (order.append("plugins"), Plugins())[1])
    monkeypatch.setattr(loading, "load_problem", problem)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('colour = "blue"\n[domain]\nx = [0, 1]\n')
    assert cli.main(["run", str(tmp_path / "missing.toml")]) == 2 and order == []
    assert cli.main(["run", str(wrong)]) == 2 and order == ["plugins"]
    order.clear()
    assert cli.main(["run", "paper:nope", "--out", str(tmp_path / "out")]) == 2 and order == ["plugins", "spec"]
    order.clear()
    assert cli.main(["run", str(Path(__file__).parent / "fixtures" / "logistic.toml")]) == 2
    assert order == ["plugins", "verifier", "problem"]          # no --out: no figures, no drawer
    order.clear()
    assert cli.main(["run", str(Path(__file__).parent / "fixtures" / "logistic.toml"), "--out",
                     str(tmp_path / "out")]) == 2
    assert order == ["plugins", "verifier", "drawer", "problem"]


def _niceness(pid: int) -> int:
    """The process's nice value once its boot code has set it (it starts with its parent's)."""
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        value = os.getpriority(os.PRIO_PROCESS, pid)
        if value != mine:
            return value
        time.sleep(0.01)
    return os.getpriority(os.PRIO_PROCESS, pid)


@pytest.mark.skipif(not hasattr(os, "getpriority") or importlib.util.find_spec("matplotlib") is None,
                    reason="needs getpriority and matplotlib (the drawer)")
def test_the_spares_started_ahead_yield_to_the_run_and_a_verifier_asked_at_once_does_not():
    """Their imports are work ahead of a request: on two cores they shared a core with the run's own
    SymPy import, which decides when the request comes. A verifier the run starts and waits for is the
    run's critical path: it keeps the run's priority."""
    import desyr.report.drawer as drawer
    from desyr.runtime.spare import NICE

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    child.start_verifier()
    drawer.start_drawer()
    spares = [child.VERIFIER.process, drawer.DRAWER.process]
    try:
        assert all(p is not None for p in spares)
        assert [_niceness(p.pid) for p in spares if p is not None] == [min(mine + NICE, 19)] * 2
    finally:
        child.VERIFIER.stop()
        drawer.DRAWER.stop()
    assert "nice" not in " ".join(child.verifier_command())
