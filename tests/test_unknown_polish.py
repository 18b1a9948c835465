"""The physics-only polish of a fit whose unknowns are held (``desyr.stages.unknowns._held``): least
squares may stop short of round-off when it starts from a joint fit that noisy data pulled off the
physics, so the polish is repeated while it still gains, and never gives up the data."""
import pytest
import sympy as sp
from helpers import DECAY_INVERSE

from desyr.stages.unknowns import POLISHES, _held
from desyr.testing import make_problem
from desyr.testing.helpers import make_context


@pytest.fixture(scope="module")
def decay():
    problem = make_problem(DECAY_INVERSE)
    (t,) = problem.symbols
    return problem, make_context(problem), lambda offset: sp.exp(-2 * t) + offset * t


def _refit(field, *offsets):
    """A stand-in refit returning, call by call, ``field(offset)`` (its last one thereafter)."""
    calls = []

    def refit(exprs):
        calls.append(dict(exprs))
        return "converged", {"u": field(offsets[min(len(calls), len(offsets)) - 1])}
    return refit, calls


def test_a_polish_that_gains_is_repeated_until_round_off(decay):
    problem, ctx, field = decay
    refit, calls = _refit(field, sp.Float(1e-4), sp.Float(1e-9), sp.Integer(0))
    held = _held({"u": field(sp.Float(1e-2)), "k": sp.Float(2.0)}, refit, ctx)
    assert len(calls) == 3 and held["u"] == field(0) and held["k"] == sp.Float(2.0)
    assert all(c["k"] == 2 and isinstance(c["k"], sp.Rational) for c in calls)   # the unknown is held


def test_a_polish_that_stops_gaining_or_loses_is_not_repeated(decay):
    problem, ctx, field = decay
    start = {"u": field(sp.Float(1e-2)), "k": sp.Float(2.0)}
    refit, calls = _refit(field, sp.Float(1e-4))               # the same fit again: no gain
    assert _held(start, refit, ctx)["u"] == field(sp.Float(1e-4)) and len(calls) == 2
    refit, calls = _refit(field, sp.Float(1e-1))               # worse than the start: the start stays
    assert _held(start, refit, ctx) == start and len(calls) == 1
    refit, calls = _refit(field, *[sp.Float(10.0 ** -(3 * i)) for i in range(2, 9)])
    _held({"u": field(sp.Float(1e-1)), "k": sp.Float(2.0)}, refit, ctx)
    assert len(calls) == POLISHES                               # bounded, however much it gains
