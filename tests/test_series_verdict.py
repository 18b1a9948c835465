"""The verdict of a series (docs/verify.md, "What Proved means for a series"): Proved only with the four-part
proof and the truncated sums meeting every target on the verifier's points; the red team's series that
pass the numbers are Verified at best, the others Not exact; a finite formula keeps its meaning."""
from __future__ import annotations

import pytest
from series_cases import ROD, problem

from desyr.verify import make_request
from desyr.verify.verdict import decide

pytestmark = pytest.mark.slow


def verdict(fixture: str, text: str) -> dict:
    return decide(make_request(problem(fixture), {"u": text}, None, 0))


def test_the_rod_is_proved_with_each_target_judged_on_fresh_points():
    answer = verdict("rod", f"Sum({ROD}, (n, 1, oo))")
    assert answer["verdict"] == "proved", answer["reason"]
    judged = {j["target"]: j for j in answer["residuals"]["series"]}
    # each term solves the heat equation: the merged sum of the terms' residuals is 0, nothing to evaluate
    assert judged["equation 1"]["norm"] == "pointwise" and judged["equation 1"]["residual"] == 0
    assert judged["constraint u on initial"]["terms"] > 0
    assert all(j["residual"] <= j["allowed"] for j in judged.values())
    assert answer["exact_form"]["parts"]["family"].startswith("x on [0, 1]: sin(j >= 1)")


def test_cold_ends_are_judged_in_l2_at_t_0_and_proved():
    answer = verdict("cold_ends", "Sum(2*(1 - (-1)**n)/(pi*n)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))")
    assert answer["verdict"] == "proved", answer["reason"]
    initial = next(j for j in answer["residuals"]["series"] if "initial" in j["target"])
    assert initial["norm"] == "L2" and 1e-4 < initial["residual"]    # Gibbs: not pointwise, and left to the proof
    assert "exceeds 0.1 of the tolerance" in answer["reason"]
    assert "initial, at t = 0 in the L2 sense" in answer["reason"]


@pytest.mark.parametrize(("text", "expected"), [
    (f"Sum({ROD}, (n, 1, oo)) + sin(3*pi*x)*exp(-9*pi**2*t)/100", "not_exact"),     # the numbers see it
    (f"Sum({ROD}, (n, 1, oo)) + sin(1001*pi*x)*exp(-1002001*pi**2*t)/10**12", "verified"),   # only the proof does
    (f"Sum({ROD}, (n, 1, 50))", "not_exact"),                                         # a truncated sum: finite
    ("Sum(2*sin(n*pi*x)*exp(-n**2*pi**2*t)/(pi*n), (n, 1, oo))", "not_exact"),       # converges in L2, to 1 - x
])
def test_wrong_series_are_never_proved(text, expected):
    answer = verdict("rod", text)
    assert answer["verdict"] == expected, answer["reason"]
    if expected == "verified":
        assert "sin j = 1001" in answer["reason"]
