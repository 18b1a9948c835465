"""``desyr.symbolic.time_limit``: a SIGALRM bound that nests, restores what it replaced on every
way out, keeps its swallowed signals from ``sys.unraisablehook``, and lets an enclosing deadline
through code that catches an inner one (cases from an outside review)."""
import signal
import sys
import threading
import time

import pytest

from desyr.symbolic.time_limit import OutOfTime, time_limit


def _spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _state():
    return signal.getsignal(signal.SIGALRM), sys.unraisablehook, signal.getitimer(signal.ITIMER_REAL)


def test_the_block_ends_at_its_deadline_and_everything_is_restored():
    before = _state()
    clock = time.perf_counter()
    with pytest.raises(OutOfTime), time_limit(0.1):
        _spin(5)
    assert 0.09 < time.perf_counter() - clock < 2 and _state() == before
    with pytest.raises(ValueError), time_limit(5):
        raise ValueError("the block's own error passes")
    assert _state() == before


def test_a_deadline_reached_as_the_block_ends_leaves_nothing_installed():
    import random

    before, draw = _state(), random.Random(0)
    for _ in range(3000):       # a signal landing inside the exit skipped the restore, 1 in 200
        try:
            with time_limit(0.001):
                _spin(draw.uniform(0.0009, 0.0011))
        except OutOfTime:
            pass
        assert _state() == before


def test_a_deadline_passed_before_the_block_stops_a_block_shorter_than_the_repeat():
    """The first signal of a limit entered past its deadline lands in the limit's own bookkeeping, where
    it cannot raise; the next came a repeat (50 ms) later, so a short block ran to its end (a SymPy
    call with warm caches, on a loaded machine: tests/test_exact_solve.py failed so in a full run)."""
    from desyr.symbolic.time_limit import REPEAT

    before = _state()
    for _ in range(50):
        with pytest.raises(OutOfTime), time_limit(-1.0):
            _spin(REPEAT / 5)
        assert _state() == before


def test_a_limit_that_lands_in_a_destructor_reaches_no_unraisable_hook(monkeypatch):
    seen: list = []
    record = seen.append
    monkeypatch.setattr(sys, "unraisablehook", record)

    class SlowToDie:
        def __del__(self):
            _spin(0.3)

    class Failing:
        def __del__(self):
            raise RuntimeError("a destructor's own error")

    with pytest.raises(OutOfTime), time_limit(0.1):
        Failing()           # its error is not ours: it reaches the hook
        SlowToDie()         # the first signal lands in __del__, where Python swallows it
        _spin(5)            # the repeating one ends the block
    assert [type(u.exc_value) for u in seen] == [RuntimeError] and sys.unraisablehook is record


def test_an_inner_limit_is_held_inside_an_outer_one():
    clock = time.perf_counter()
    with time_limit(3):
        with pytest.raises(OutOfTime), time_limit(0.1):
            _spin(5)
        inner = time.perf_counter() - clock
        with pytest.raises(OutOfTime), time_limit(0.1):      # the outer has time left for a second
            _spin(5)
    assert inner < 1.0 and time.perf_counter() - clock < 2.0


def test_an_outer_deadline_passes_through_code_that_catches_the_inner_one():
    def swallowing():                # bounded_simplify's shape: its own limit, OutOfTime caught
        try:
            with time_limit(5):
                _spin(0.05)
        except OutOfTime:
            return None
        return 1

    clock = time.perf_counter()
    with pytest.raises(OutOfTime), time_limit(0.2):
        while True:
            swallowing()
    assert time.perf_counter() - clock < 2.0


def test_an_inner_limit_ended_by_the_outer_one_is_not_caught_inside():
    caught = []
    with pytest.raises(OutOfTime), time_limit(0.1):
        try:
            with time_limit(5):
                _spin(5)
        except OutOfTime:
            caught.append("inner")
    assert caught == []


def test_off_the_main_thread_there_is_no_limit():
    took = []

    def work():
        clock = time.perf_counter()
        with time_limit(0.05):
            _spin(0.3)
        took.append(time.perf_counter() - clock)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert took and took[0] >= 0.3


def test_an_infinite_or_huge_limit_is_none_and_nan_is_refused():
    before = _state()
    for seconds in (float("inf"), 1e12):
        with time_limit(seconds):
            assert _state() == before           # nothing installed: setitimer cannot hold it
    with pytest.raises(ValueError, match="nan"):
        time_limit(float("nan"))
    with pytest.raises(OutOfTime), time_limit(0.05):     # and the next limit still works
        _spin(5)
    assert _state() == before


def test_what_an_interrupted_exit_leaves_is_harmless_and_the_next_limit_restores_it():
    import desyr.symbolic.time_limit as module

    before = _state()
    # Ctrl-C inside an exit can leave our handler and hook in place with no limit open
    signal.signal(signal.SIGALRM, module._expire)
    sys.unraisablehook = module._drop_ours
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        _spin(0.05)                              # a stray signal is ignored: no limit is open
        with time_limit(5):
            pass
        assert _state() == before                # the originals, not our own functions
    finally:
        signal.signal(signal.SIGALRM, before[0])
        sys.unraisablehook = before[1]


def test_a_limit_held_open_by_a_suspended_generator_is_closed_by_the_generator():
    def holding():
        with time_limit(60):
            yield

    before = _state()
    held = holding()
    with time_limit(5):
        next(held)                               # its limit is entered inside this block...
    assert signal.getsignal(signal.SIGALRM) is not before[0]      # ...and is still open after it
    held.close()
    assert _state() == before
