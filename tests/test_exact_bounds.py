"""The regularity rule works on the domain as written (issue 35, second red team, F1-F3).

A config's ``x = [0.1, 1]`` starts at 1/10, not at the float 3602879701896397/36028797018963968 above
it: a field whose branch point sits at the float instead of the exact end is not real on a segment of
the domain (F1, false Proved), and one whose branch point sits at the exact end is a true solution
(F2, wrongly refused).  A derivative a constraint imposes must be finite itself, whatever SymPy makes
of the constraint once it combined the powers (F3)."""
from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from desyr.testing import make_problem
from desyr.verify import make_request
from desyr.verify.verdict import decide

x, y, nu = sp.symbols("x y nu", real=True)
FLOAT_TENTH = "3602879701896397/36028797018963968"       # float(0.1), above 1/10
NGUYEN8 = (Path(__file__).parent / "fixtures" / "nguyen8_0_4.toml").read_text()

BIG = """
[domain]
x = [10000000000000003, 10000000100000000]
[[equations]]
lhs = "2*(x - 10000000000000004)*u_x - u + sqrt(abs(x - 10000000000000004))*(u**2 - x + 10000000000000004)"
rhs = 0
[[constraints]]
on = "x = 10000000100000000"
value = "sqrt(99999996)"
"""
TENTH = f"""
[domain]
x = [0.1, 1]
[[equations]]
lhs = "2*(x - {FLOAT_TENTH})*u_x - u + sqrt(x - 1/10)*(u**2 - x + {FLOAT_TENTH})"
rhs = 0
[[constraints]]
on = "x = 1"
value = "sqrt(1 - {FLOAT_TENTH})"
"""
FAMILY = """
[domain]
x = [0, 1]
[parameters]
nu = [{lo}, 1]
[[equations]]
lhs = "u_x + sqrt(nu - {branch})*(u**2 - nu + {shift})"
rhs = 0
[[constraints]]
on = "x = 0"
value = "sqrt(nu - {shift})"
"""
SHIFTED_NGUYEN8 = """
[domain]
x = [0.3, 1.3]
[[equations]]
lhs = "u_xx"
rhs = "-1/(4*(x - 3/10)**(3/2))"
[[constraints]]
on = "x = 0.3"
value = 0
[[constraints]]
on = "x = 1.3"
value = 1
"""


def verdict(toml: str, candidate: str) -> dict:
    return decide(make_request(make_problem(toml), {"u": candidate}, None, 0))


# ------------------------------------------------------------------ F1: a branch point at a bound's float
@pytest.mark.parametrize("toml, candidate", [
    (BIG, "sqrt(x - 10000000000000004)"),                 # u(10000000000000003) = i
    (TENTH, f"sqrt(x - {FLOAT_TENTH})"),                    # not real on [1/10, float(0.1))
    (FAMILY.format(lo=0.1, branch="1/10", shift=FLOAT_TENTH), f"sqrt(nu - {FLOAT_TENTH})"),
])
def test_a_field_not_real_next_to_a_written_bound_is_not_proved(toml, candidate):
    answer = verdict(toml, candidate)
    assert answer["verdict"] == "not_exact", answer["reason"]
    assert "could not be shown to keep its sign" in answer["reason"], answer["reason"]


# ------------------------------------------------------------------ F2: a branch point at the exact bound
@pytest.mark.parametrize("toml, candidate", [
    (SHIFTED_NGUYEN8, "sqrt(x - 3/10)"),                  # float(0.3) is below 3/10
    (FAMILY.format(lo=0.3, branch="3/10", shift="3/10"), "sqrt(nu - 3/10)"),   # on a parameter's face
])
def test_a_branch_point_on_a_non_binary_bound_is_proved(toml, candidate):
    answer = verdict(toml, candidate)
    assert answer["verdict"] == "proved", answer["reason"]


def test_nguyen8_on_0_4_stays_proved():
    answer = verdict(NGUYEN8, "sqrt(x)")
    assert answer["verdict"] == "proved", answer["reason"]


# ------------------------------------------------------------------ F3: each imposed derivative finite
@pytest.mark.parametrize("operator", ["u*u_x", "sqrt(x)*u_x"])
def test_a_derivative_combined_into_a_finite_constraint_is_still_refused(operator):
    # u*u_x and sqrt(x)*u_x are 1/2 for sqrt(x) once SymPy combines them, but u_x is infinite at 0
    toml = NGUYEN8.replace('on = "x = 0"\nvalue = 0', f'on = "x = 0"\noperator = "{operator}"\nvalue = 0.5')
    assert toml != NGUYEN8
    answer = verdict(toml, "sqrt(x)")
    assert answer["verdict"] == "not_exact", answer["reason"]
    assert "its u_x is not finite there" in answer["reason"], answer["reason"]


def test_a_finite_derivative_at_the_branch_point_is_allowed():
    # u = x**(3/2): u'' = 3/(4 sqrt(x)) is singular at 0, and u_x(0) = 0 is finite
    toml = """
[domain]
x = [0, 4]
[[equations]]
lhs = "u_xx"
rhs = "3/(4*sqrt(x))"
[[constraints]]
on = "x = 0"
operator = "u_x"
value = 0
[[constraints]]
on = "x = 4"
value = 8
"""
    answer = verdict(toml, "x**(3/2)")
    assert answer["verdict"] == "proved", answer["reason"]


def test_a_derivative_infinite_at_a_corner_of_another_face_is_refused():
    # the branch point is on x = 0; u_x is imposed on y = 0, whose corner (0, 0) it does not reach finitely
    toml = """
[domain]
x = [0, 1]
y = [0, 1]
[[equations]]
lhs = "u_xx + u_yy"
rhs = "-exp(y)/(4*x*sqrt(x)) + sqrt(x)*exp(y)"
[[constraints]]
on = "y = 0"
operator = "u_x"
value = "1/(2*sqrt(x))"
[[constraints]]
on = "x = 1"
value = "exp(y)"
"""
    answer = verdict(toml, "sqrt(x)*exp(y)")
    assert answer["verdict"] == "not_exact", answer["reason"]
    assert "u_x" in answer["reason"], answer["reason"]


# ------------------------------------------------------------------ the pieces
def test_the_first_box_encloses_the_exact_bounds():
    from desyr.verify.intervals import box_of
    box = box_of({x: (sp.Rational(1, 10), sp.Integer(10000000000000003))})[x]
    assert box.a < sp.Rational(1, 10) and box.b >= 10000000000000003     # outward, never the float
    assert box_of({x: (0.1, 1.0)})[x].a == 0.1                            # a float bound is its own value


def test_positive_inside_proves_faces_at_exact_non_binary_ends():
    from desyr.verify.edges import positive_inside
    tenth = sp.Rational(1, 10)
    assert positive_inside(x - tenth, {x: (tenth, sp.Integer(1))}) == ("positive", frozenset({(x, 0)}))
    assert positive_inside(nu - tenth, {x: (sp.Integer(0), sp.Integer(1)), nu: (tenth, sp.Integer(1))}) \
        == ("positive", frozenset({(nu, 0)}))
    assert positive_inside(x - sp.Rational(FLOAT_TENTH), {x: (tenth, sp.Integer(1))})[0] != "positive"


def test_a_shapes_box_holds_the_exact_shape():
    from desyr.verify.regions import domain_bounds
    problem = make_problem('[domain]\nshape = "disk(center=(0.1, 0.2), radius=0.3)"\n'
                           '[[equations]]\nlhs = "u_xx + u_yy"\n[[constraints]]\non = "boundary"\nvalue = 0\n')
    bounds = {str(s): b for s, b in domain_bounds(problem).items()}
    assert bounds["x"][0] < sp.Rational(1, 10) - sp.Rational(3, 10) and bounds["x"][1] > sp.Rational(4, 10)
    assert bounds["y"][0] < sp.Rational(-1, 10) and bounds["y"][1] > sp.Rational(5, 10)
