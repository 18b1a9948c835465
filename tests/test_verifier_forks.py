"""The warm verifier the test suite forks (tests/verifier_forks.py) answers as a started one does."""
from __future__ import annotations

import os
import subprocess
import time

import pytest
from verifier_forks import REAL_STARTED, ForkedVerifier, VerifierForks

import desyr.verify.child as child
from desyr.testing import make_problem
from desyr.verify import VerifierError, make_request, request_verdict

REQUESTS = [({"u": "sin(pi*x)"}, "proved"), ({"u": "sin(3.1*x)"}, "not_exact")]


@pytest.fixture(scope="module")
def forks():
    forks = VerifierForks()
    yield forks
    forks.close()


def _verdict(answer):
    return {key: answer[key] for key in ("verdict", "exact", "reason")}


@pytest.mark.parametrize("candidate, verdict", REQUESTS)
def test_a_fork_gives_the_verdict_of_a_started_verifier(forks, monkeypatch, candidate, verdict):
    request = make_request(make_problem(), candidate, None, 0)
    monkeypatch.setattr(child, "_started", forks.started)
    forked = request_verdict(request)
    monkeypatch.setattr(child, "_started", REAL_STARTED)
    started = request_verdict(request)
    assert forked["verdict"] == verdict and _verdict(forked) == _verdict(started)


def test_each_request_has_a_process_of_its_own_that_answers_once(forks):
    first, second = forks.started(), forks.started()
    assert isinstance(first, ForkedVerifier) and first.pid != second.pid != os.getpid()
    assert first.poll() is None                                   # waiting for its one request
    line = '{"not": "a request"}\n'
    for process in (first, second):
        process.stdin.write(line)
        process.stdin.flush()
        out, err = process.communicate(timeout=60)
        assert process.returncode == 2 and out == "" and err.startswith("desyr: error: ") and err.count("\n") == 1
    assert _gone(first.pid)                                       # it has exited, and the warm process reaped it


def _gone(pid, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


def test_a_verifier_past_its_time_is_killed_and_reported(forks, monkeypatch):
    monkeypatch.setattr(child, "_started", forks.started)
    with pytest.raises(VerifierError, match="no verdict within"):
        request_verdict(make_request(make_problem(), {"u": "sin(pi*x)"}, None, 0), timeout=1e-3)
    process = forks.started()
    process.kill()
    assert process.communicate(timeout=60) == ("", "") and process.returncode < 0


def test_a_fork_of_the_test_process_starts_its_own_verifier(forks, monkeypatch):
    monkeypatch.setattr(forks, "_owner", -1)                      # as if called in a process pool's worker
    process = forks.started()
    assert isinstance(process, subprocess.Popen) and process.args == child.verifier_command()
    process.kill()
    process.communicate()
