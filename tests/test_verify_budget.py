"""Bounded time (issue 44, item 4): every verdict within the verifier's bound, each part within its share,
and a part out of time says what that means."""
import time

import pytest
import sympy as sp

from desyr.errors import ConfigError
from desyr.testing import make_problem
from desyr.verify import make_request
from desyr.verify import verdict as verdict_module
from desyr.verify.budget import RESERVE, SHARES, Budget
from desyr.verify.child import TIMEOUT
from desyr.verify.verdict import decide

HIGH = """[domain]
x = [0, 1]
y = [0, 1]
[[equations]]
lhs = "u_xxxxxxxyyyyyyy + u_xxxxxxxxxxxxxx + u_yyyyyyyyyyyyyy"
[[constraints]]
on = "boundary"
value = 0
"""


def _spin() -> None:
    x = sp.Symbol("x")
    while True:          # SymPy work that never ends on its own
        sp.expand((x + 1) ** 40)


def test_a_part_out_of_time_ends_and_says_so():
    budget = Budget(bound=RESERVE + 0.3)
    clock = time.monotonic()
    said = budget.within("proof", _spin, lambda late: late)
    assert time.monotonic() - clock < 2.0
    assert "not finished within" in said and "time bound" in said


def test_the_shares_fit_in_the_bound_and_the_run_waits_for_it():
    budget = Budget()
    assert sum(SHARES.values()) + RESERVE <= budget.bound
    assert TIMEOUT > budget.bound


def test_no_verdict_within_the_bound_is_one_line(monkeypatch):
    monkeypatch.setattr(verdict_module, "read_problem", lambda config: _spin())
    request = make_request(make_problem(), {"u": "sin(pi*x)"})
    clock = time.monotonic()
    with pytest.raises(ConfigError, match="no verdict within the verifier's time bound of 2 s"):
        decide(request, bound=2.0)
    assert time.monotonic() - clock < 3.0


@pytest.mark.slow
def test_a_14th_order_equation_answers_within_the_bound():
    # a formula whose 14th derivatives SymPy takes minutes to form: the residuals run out of their share
    bound = 12.0
    request = make_request(make_problem(HIGH), {"u": "sin(pi*x)*sin(pi*y)*exp(x*y)/(2 + cos(x*y))"})
    clock = time.monotonic()
    answer = decide(request, bound=bound)
    assert time.monotonic() - clock < bound + 1
    assert answer["verdict"] == "not_exact" and "not finished within" in answer["reason"]


def test_a_wrong_finite_sum_is_shown_above_at_fewer_digits_than_it_was_sized_for():
    # 40 terms of the rod's series, exp(-1600*pi**2*t) among them: sized at over a thousand digits, it spent the
    # whole precision share there; 38 and 76 digits already agree that it is above
    rod = ('[domain]\nx = [0, 1]\nt = [0, 1]\n[[equations]]\nlhs = "u_t - u_xx"\n[[constraints]]\n'
           'on = ["x = 0", "x = 1"]\nvalue = 0\n[[constraints]]\non = "t = 0"\nvalue = "x*(1 - x)"\n')
    text = "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, 40))"
    got = decide(make_request(make_problem(rod), {"u": text}, None, 1))
    # (its time is no assertion here: 4 s on a quiet machine, more beside another worker)
    assert got["verdict"] == "not_exact" and "shown above it at its worst points at 76 digits" in got["reason"], \
        got["reason"]
