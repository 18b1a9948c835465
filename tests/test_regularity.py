"""The regularity rule of Proved (docs/verify.md) and the interval sign proofs under it (issue 35, items 6-7)."""
from __future__ import annotations

import sympy as sp

from desyr.testing import make_problem
from desyr.verify import make_request
from desyr.verify.verdict import decide

x = sp.Symbol("x", real=True)

LOG_QUADRATIC = """
name = "log_quadratic"
[domain]
x = [0.05, 0.2]
[[equations]]
lhs = "u_xx"
rhs = "200*(8100*x**2 - 900*x - 50*(18*x - 1)**2 + 81)/(900*x**2 - 100*x + 9)**2"
[[constraints]]
on = "x = 0.05"
value = "-log(144)"
[[constraints]]
on = "x = 0.2"
value = "-log(36)"
[points]
verify = 200
"""


def verdict(toml: str, candidate: str, field: str = "u") -> dict:
    return decide(make_request(make_problem(toml), {field: candidate}, None, 0))


# ------------------------------------------------------------------ item 6: interval arithmetic never raises
def test_signs_on_non_dyadic_bounds_are_proved_not_a_crash():
    from desyr.verify.intervals import sign_on

    # splitting [0.05, 0.2] once made an endpoint an interval, whose width float() refused (ValueError)
    assert sign_on(x**2 - x / 9 + sp.Rational(1, 100), {x: (0.05, 0.2)}, strict=True) == "positive"


def test_a_failure_inside_a_sign_proof_is_unknown(monkeypatch):
    import desyr.verify.intervals as intervals

    def broken(expr, box):
        raise ValueError("mpmath refused")

    monkeypatch.setattr(intervals, "enclose", broken)
    assert intervals.sign_on(x - 2, {x: (0.05, 0.2)}, strict=True) == "unknown"


def test_a_kink_on_non_dyadic_bounds_is_found():
    from desyr.verify.intervals import sign_on

    nu = sp.Symbol("nu", real=True)       # parametric:heat_nu with abs(nu - 1/10): a crash, now a sign change
    assert sign_on(nu - sp.Rational(1, 10), {nu: (0.05, 0.2)}, strict=False) == "changes"


def test_a_true_log_solution_on_non_dyadic_bounds_is_proved():
    answer = verdict(LOG_QUADRATIC, "log(x**2 - x/9 + 1/100)")
    assert answer["verdict"] == "proved", answer["reason"]
