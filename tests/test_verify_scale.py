"""Verified is relative to the problem's scale (issue 44, item 1): each residual over its own data plus its
terms, the terms counting at most as much as the problem's largest data; round-off at a large scale goes
to the proof; values a double cannot hold are evaluated in mpmath."""
import math

import numpy as np
import pytest
import sympy as sp

from desyr.model.residuals import verify
from desyr.symbolic.residual_terms import split_terms
from desyr.symbolic.scales import Measured, relative
from desyr.testing import make_problem
from desyr.verify import make_request
from desyr.verify.verdict import decide, fresh_points

#: the before-stop hook's check 4f: the whole problem written at 1e-9
SMALL = """name = "small"
[domain]
x = [0, 1]
[[equations]]
lhs = "1e-9*(u_xx + pi**2*sin(pi*x))"
[[constraints]]
operator = "1e-9*u"
on = "boundary"
value = 0
"""

HEAT = """[domain]
t = [0, 1]
x = [0, 1]
[[equations]]
lhs = "{a}*(u_t - u_xx)"
[[constraints]]
operator = "u"
on = "t = 0"
value = "{s}*sin(pi*x)"
[[constraints]]
operator = "u"
on = ["x = 0", "x = 1"]
value = 0
"""

PERIODIC = """[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx"
rhs = "-4*pi**2*cos(2*pi*x)"
[[constraints]]
operator = "u"
on = "x = 0"
periodic = "x = 1"
[[constraints]]
operator = "u_x"
on = "x = 0"
periodic = "x = 1"
"""


def _verdict(toml: str, text: str, exact: str | None = None) -> dict:
    problem = make_problem(toml)
    return decide(make_request(problem, {"u": text}, None if exact is None else {"u": exact}))


def test_a_wrong_constant_is_not_exact_on_a_problem_written_small():
    answer = _verdict(SMALL, "3")
    assert answer["verdict"] == "not_exact" and answer["residuals"]["relative"] > 0.5
    assert answer["residuals"]["R_eq"] < 1e-8 and answer["residuals"]["R_con"] < 1e-8   # absolutely, it passed
    assert _verdict(SMALL, "sin(pi*x)")["verdict"] == "proved"


@pytest.mark.parametrize("s", ["10**-9", "10**-3", "10**3", "10**9"])
def test_a_solution_that_does_not_decay_is_not_exact_at_any_scale(s):
    toml = HEAT.format(a=1, s=s)
    assert _verdict(toml, f"{s}*sin(pi*x)")["verdict"] == "not_exact"
    assert _verdict(toml, f"{s}*exp(-pi**2*t)*sin(pi*x)")["verdict"] == "proved"


def test_round_off_of_large_terms_is_sent_to_the_proof():
    big = ('[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx"\nrhs = "2*10**10*cos(2*x)"\n[[constraints]]\n'
           'operator = "u"\non = "x = 0"\nvalue = 0\n[[constraints]]\noperator = "u"\non = "x = 1"\n'
           'value = "10**10*sin(1)**2"\n')
    answer = _verdict(big, "10**10*sin(x)**2")
    assert answer["verdict"] == "proved" and answer["residuals"]["R_eq"] > 1e-8     # round-off above 1e-8
    # terms 1e10 times the data: floats cannot tell, the proof decides
    loud = HEAT.format(a="1e9", s=1)
    assert _verdict(loud, "exp(-pi**2*t)*sin(pi*x)")["verdict"] == "proved"
    wrong = _verdict(loud, "exp(-pi**2*t)*sin(pi*x)*(1 + x/10**14)")
    assert wrong["verdict"] == "not_exact"


@pytest.mark.parametrize("text", ["cos(2*pi*x) + x/1000 + 10**10", "cos(2*pi*x) + 0.001*x + 1e10",
                                  "cos(2*pi*x) + 10**12*(x - x**2)/10**6"])
def test_a_large_part_the_equation_does_not_see_hides_nothing(text):
    # the periodic residual is 1e-3; against the candidate's own terms (1e10) it was 1e-13
    assert _verdict(PERIODIC, text)["verdict"] == "not_exact"


def test_a_large_constant_the_problem_allows_is_proved():
    assert _verdict(PERIODIC, "cos(2*pi*x) + 10**10")["verdict"] == "proved"


def test_values_a_double_cannot_hold_are_measured():
    down = ('[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_x + 1000*u"\n[[constraints]]\noperator = "u"\n'
            'on = "x = 0"\nvalue = "exp(800)"\n')
    assert _verdict(down, "exp(800 - 1000*x)")["verdict"] == "proved"
    off = _verdict(down, "exp(800 - 1000*x)*(1 + 1e-12)")
    assert off["verdict"] == "verified" and 0 < off["residuals"]["relative"] < 1e-11
    assert _verdict(down, "exp(800 - 1000*x)*(1 + 1e-6)")["verdict"] == "not_exact"
    up = down.replace("u_x + 1000*u", "u_x - 1000*u").replace("exp(800)", "1")
    assert _verdict(up, "exp(1000*x)")["verdict"] == "proved"


def test_the_run_measures_as_the_verifier():
    problem = make_problem(SMALL)
    v = verify(problem, {"u": sp.Integer(3)}, fresh_points(problem, 0))
    assert v.relative >= 0.5 and v.R_eq < 1e-8
    assert v.scale == pytest.approx(1e-9 * math.pi ** 2 / math.sqrt(2), rel=0.05)


def test_terms_are_split_from_the_data():
    u, ux, x = sp.symbols("u u_x x", real=True)
    split = split_terms((x + 1) * (ux + sp.sin(x)) + 7, {u, ux})
    assert sp.simplify(split.data - ((x + 1) * sp.sin(x) + 7)) == 0
    assert split.factors == (ux,) and sp.simplify(split.coefficients[0] - (x + 1)) == 0
    # the same factor is one term, so a coefficient that is 0 on paper does not count thrice
    same = split_terms(10**10 * u * sp.cos(x) ** 2 + 10**10 * u * sp.sin(x) ** 2 - 10**10 * u, {u})
    assert len(same.factors) == 1 and sp.simplify(same.coefficients[0]) == 0
    assert split_terms(u ** 2 - 1, {u}).data == -1


def test_the_candidate_raises_its_scale_at_most_to_the_problems():
    def one(absolute, data, terms, kind="constraint"):
        return Measured(kind, 0, 10, absolute, data, terms)
    rel = relative([one(0.0, 2.0, 1.0, "equation"), one(1e-3, 0.0, 1e12)])
    assert rel.scale == 2.0 and rel.constraints[0] == pytest.approx(1e-3 / 2)      # capped at Q
    assert rel.roundoff_constraints[0] == pytest.approx(1e-15)                      # its terms' whole size
    assert relative([one(1e-3, 0.0, 1e-6)]).constraints[0] == pytest.approx(1e3)    # no data: Q is 1
    assert relative([one(1e-300, 0.0, 0.0)]).constraints[0] > 1e7                   # a zero scale passes nothing
    assert relative([one(0.0, 0.0, 0.0)]).constraints[0] == 0.0


@pytest.mark.slow
def test_the_oracle_catches_what_an_absolute_tolerance_let_pass():
    from tests.oracle_invariant import broken
    from tests.test_oracle_property import PROBLEMS
    assert "Verified, but" in broken(PROBLEMS["written_0"], "verified", {"u": "3"}, None, 0)
    assert "Verified, but" in broken(PROBLEMS["periodic_free"], "verified",
                                     {"u": "cos(2*pi*x) + x/1000 + 10**10"}, None, 0)
    assert not broken(PROBLEMS["large_terms"], "proved", {"u": "10**10*sin(x)**2"}, None, 0)
    assert np.isfinite(float(verify(make_problem(SMALL), {"u": sp.Integer(0)},
                                    fresh_points(make_problem(SMALL), 1)).relative))
