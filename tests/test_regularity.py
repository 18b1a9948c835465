"""The regularity rule of Proved (docs/verify.md) and the interval sign proofs under it (issue 35, items 6-7)."""
from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from desyr.testing import SINE_POISSON_1D, make_problem
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


# ------------------------------------------------------------------ item 7: a branch point on the boundary
NGUYEN8 = (Path(__file__).parent / "fixtures" / "nguyen8_0_4.toml").read_text()
SMOOTH_AT_0 = """
[domain]
x = [0, 1]
[[equations]]
lhs = "2*x*u_x - u"
[[constraints]]
on = "x = 1"
value = 1
"""


def test_sqrt_on_the_boundary_of_nguyen8_is_proved():
    # continuous on [0, 4], smooth inside, and the source -1/(4 x^(3/2)) is singular at x = 0 too
    answer = verdict(NGUYEN8, "sqrt(x)")
    assert answer["verdict"] == "proved", answer["reason"]


def test_a_branch_point_where_the_problems_data_are_smooth_is_refused():
    # sqrt(x) solves 2 x u' = u exactly, but the coefficients are smooth at 0: no free pass there
    answer = verdict(SMOOTH_AT_0, "sqrt(x)")
    assert answer["verdict"] == "not_exact" and "data are smooth" in answer["reason"], answer["reason"]


@pytest.mark.parametrize("candidate", [
    "sin(pi*x) + 10**-20*sqrt(x)*(1 - x)",          # a boundary kink forged onto a problem smooth at 0
    "sin(pi*x) + 10**-20*sqrt(x*(1 - x))",
    "sin(pi*x) + 10**-20*asin(2*x - 1)",            # asin is finite at -1 and 1, its derivative is not
    "sin(pi*x) + sqrt(x**2 - x + 1/4) - 1/2",       # an interior kink
    "sin(pi*x) + 10**-20*((x - 1/2)**2)**(1/3)",     # an interior branch point
])
def test_branch_points_on_a_smooth_problem_stay_refused(candidate):
    answer = verdict(SINE_POISSON_1D, candidate)
    assert answer["verdict"] == "not_exact", answer["reason"]
    assert answer["reason"].startswith(("not smooth enough", "not finite on the domain")), answer["reason"]


@pytest.mark.parametrize("candidate, why", [
    ("sqrt(x) + 10**-20*log(x)", "not finite"),      # log is not finite at 0, even where the data are singular
    ("sqrt(x) + 10**-20/x", "not finite"),
    ("sqrt(x) + 10**-20*x**x", "not finite"),        # a power must be proved positive to stay finite at 0
    ("sqrt(x) + 10**-20*sqrt(4 - x)", "data are smooth"),   # the data are singular at 0, not at 4
])
def test_only_a_finite_branch_point_where_the_data_are_singular_is_allowed(candidate, why):
    answer = verdict(NGUYEN8, candidate)
    assert answer["verdict"] == "not_exact" and why in answer["reason"], answer["reason"]


def test_data_that_only_look_singular_give_no_pass():
    # (x**3)**(1/3) is x on [0, 1]: the problem u'' = (x**3)**(1/3) - x is u'' = 0, smooth at 0
    looks = SINE_POISSON_1D.replace('lhs = "u_xx + pi**2*sin(pi*x)"',
                                    'lhs = "u_xx + pi**2*sin(pi*x) + (x**3)**(1/3) - x"')
    answer = verdict(looks, "sin(pi*x) + 10**-20*sqrt(x)*(1 - x)")
    assert answer["verdict"] == "not_exact" and "data are smooth" in answer["reason"], answer["reason"]


def test_a_derivative_imposed_at_the_branch_point_is_refused():
    neumann = NGUYEN8.replace('on = "x = 0"\nvalue = 0', 'on = "x = 0"\noperator = "u_x"\nvalue = 0')
    answer = verdict(neumann, "sqrt(x)")
    assert answer["verdict"] == "not_exact" and "not finite there" in answer["reason"], answer["reason"]


def test_positive_inside_names_the_faces_where_a_quantity_may_vanish():
    from desyr.verify.edges import positive_inside

    assert positive_inside(x * (4 - x), {x: (0.0, 4.0)}) == ("positive", frozenset({(x, 0), (x, 1)}))
    assert positive_inside(x + 1, {x: (0.0, 4.0)}) == ("positive", frozenset())
    assert positive_inside((x - 1) ** 2, {x: (0.0, 4.0)})[0] == "unknown"        # 0 inside
    assert positive_inside(x - 1, {x: (0.0, 4.0)})[0] == "changes"
    y = sp.Symbol("y", real=True)
    assert positive_inside(x * (1 + y), {x: (0.0, 1.0), y: (0.0, 1.0)}) == ("positive", frozenset({(x, 0)}))


@pytest.mark.slow
def test_nguyen8_on_0_4_runs_to_proved_with_default_settings(tmp_path):
    import json

    from desyr.cli.main import main

    config = Path(__file__).parent / "fixtures" / "nguyen8_0_4.toml"
    assert main(["run", str(config), "--out", str(tmp_path / "out"), "--quiet", "--budget", "120",
                 "--cache-dir", str(tmp_path / "cache")]) == 0
    result = json.loads((tmp_path / "out" / "result.json").read_text())
    assert result["verification"]["verdict"] == "proved", result["verification"]
