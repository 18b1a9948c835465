"""One helper for the processes started ahead of their one request (``desyr.runtime.spare.Spare``): the
verifier and the figure drawer both use it (issue 45, item 4)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from desyr.runtime.spare import Spare, ask

ECHO = [sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read())"]


def _echo() -> subprocess.Popen[bytes]:
    return subprocess.Popen(ECHO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_spare_is_started_once_handed_to_one_request_and_answers_it():
    spare = Spare(_echo)
    spare.start()
    first = spare.process
    spare.start()                                   # one is waiting: no second process
    assert first is not None and spare.process is first
    taken = spare.take()
    assert taken is first and spare.process is None and spare.take() is None     # used once
    heard: list[str] = []
    out, _ = ask(taken, b"request", 30, lambda: heard.append("meanwhile"))
    assert out == b"request" and heard == ["meanwhile"] and taken.returncode == 0


def test_a_spare_never_asked_is_stopped_and_a_dead_one_is_not_handed_out():
    spare = Spare(_echo)
    spare.start()
    process = spare.process
    assert process is not None
    spare.stop()
    assert spare.process is None and process.returncode is not None
    spare.start()
    dead = spare.process
    assert dead is not None
    dead.kill()
    dead.wait()
    assert spare.take() is None


def test_a_spare_that_cannot_start_leaves_the_request_to_start_its_own():
    def broken() -> subprocess.Popen[bytes]:
        raise OSError("no such program")

    spare = Spare(broken)
    spare.start()
    assert spare.process is None and spare.take() is None


def test_a_spare_past_its_time_is_killed():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE)
    with pytest.raises(subprocess.TimeoutExpired):
        ask(sleeper, b"", 0.5)
    assert sleeper.returncode is not None


def test_the_verifier_and_the_drawer_share_the_helper():
    import desyr.report.drawer as drawer
    import desyr.verify.child as child

    assert isinstance(child.VERIFIER, Spare) and isinstance(drawer.DRAWER, Spare)
