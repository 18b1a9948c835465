"""Elliptic equations reducible to linear ones (Polyanin & Zaitsev), solved on the data's functions
(issue 36, item 5): ``u = a*log(phi)`` or ``u = exp(phi)`` makes the equation Laplace's for ``phi``;
``phi``'s boundary values, carried back, give the trial functions of undetermined coefficients, the
combinations that are harmonic are kept, and the data fix their coefficients exactly.  The same
matching serves plain linear problems whose data are written as a formula.  Problems written here."""
from __future__ import annotations

import time

import pytest
import sympy as sp
from desyr_sympy import propose
from desyr_sympy.methods.linearise import Linearise
from desyr_sympy.methods.undetermined import Undetermined
from desyr_sympy.shared import linear_families
from desyr_sympy.shared.forms import coordinates
from desyr_sympy.shared.linearise import substitutions

from desyr.plugin import problem_from_toml
from desyr.verify.request import make_request
from desyr.verify.verdict import decide

applies = Linearise().applies


def problem(lhs: str, value: str, rhs: str = "0", domain: str = "x = [0, 1]\ny = [0, 1]"):
    text = (f'name = "made"\n[domain]\n{domain}\n[[equations]]\nlhs = "{lhs}"\nrhs = "{rhs}"\n'
            f'[[constraints]]\non = "boundary"\nvalue = "{value}"\n')
    return problem_from_toml(text, "made")


def proved(made, candidate: dict[str, sp.Expr]) -> bool:
    answer = decide(make_request(made, {f: str(e) for f, e in candidate.items()}, None, 4))
    return answer["verdict"] == "proved"


def same(made, expr: sp.Expr, text: str) -> bool:
    return sp.simplify(expr - sp.sympify(text, locals={s.name: s for s in made.symbols})) == 0


#: (equation, the field's boundary values as a formula): each linearised to Laplace's equation for phi
REDUCIBLE = [
    # the outside user's problem: u = -log(phi), phi = 3 + exp(x)*cos(y)
    ("u_xx + u_yy - u_x**2 - u_y**2", "-log(3 + exp(x)*cos(y))"),
    # u = -log(phi)/2, another harmonic function inside: sin(x)*cosh(y)
    ("u_xx + u_yy - 2*(u_x**2 + u_y**2)", "-log(2 + sin(x)*cosh(y))/2"),
    # log(u) harmonic: u = exp(phi), phi = x*y + x
    ("u*(u_xx + u_yy) - u_x**2 - u_y**2", "exp(x*y + x)"),
    # log(u - 1) harmonic: u = 1 + exp(phi), phi = exp(y)*sin(x) with a level shift beta = 1
    ("(u - 1)*(u_xx + u_yy) - u_x**2 - u_y**2", "1 + exp(exp(y)*sin(x))"),
]


@pytest.mark.parametrize("lhs, value", REDUCIBLE)
def test_the_reducible_elliptic_equations_are_solved_exactly_and_proved(lhs, value):
    made = coordinates(problem(lhs, value))
    assert applies(made) == ""
    (candidate,) = Linearise().solve(made)
    assert same(made, candidate["u"], value) and not candidate["u"].atoms(sp.Float)
    assert proved(made, candidate)


def test_log_of_u_harmonic_is_the_exp_substitution():
    (found,) = substitutions(coordinates(problem("u*(u_xx + u_yy) - u_x**2 - u_y**2", "exp(x)")))
    # a multiple of a harmonic phi is harmonic: alpha is 1, and phi's equation is Laplace's
    assert (found.kind, found.alpha, found.beta) == ("exp", 1, 0)
    assert found.operator == {(2, 0): 1, (0, 2): 1}


def test_the_carried_back_data_give_the_trial_functions_and_the_faces_fix_them():
    made = coordinates(problem(*REDUCIBLE[0]))
    (found,) = substitutions(made)
    (phi,) = linear_families.from_faces(made, found)
    x, y = made.symbols
    assert sp.expand(phi - 3 - sp.exp(x) * sp.cos(y)) == 0


def test_data_the_harmonic_functions_do_not_meet_leave_free_constants_for_stage_b():
    """phi = exp(x*y) on the boundary is not harmonic: no exact match, the harmonic combinations of
    the trial functions come back with free constants (the polynomial families otherwise)."""
    made = coordinates(problem("u_xx + u_yy - u_x**2 - u_y**2", "-x*y"))
    (found,) = substitutions(made)
    (phi,) = linear_families.from_faces(made, found)
    assert {s.name for s in phi.free_symbols} - {"x", "y"}


@pytest.mark.parametrize("lhs, value, rhs, answer", [
    ("u_xx + u_yy", "3 + exp(x)*cos(y)", "0", "3 + exp(x)*cos(y)"),
    ("u_xx + u_yy", "sinh(x)*sin(y) + x*y", "0", "sinh(x)*sin(y) + x*y"),
    # a source and a formula: the source gives x**2, the data the harmonic part
    ("u_xx + u_yy", "x**2 + exp(2*y)*sin(2*x)", "2", "x**2 + exp(2*y)*sin(2*x)"),
])
def test_plain_linear_problems_with_data_as_a_formula(lhs, value, rhs, answer):
    made = coordinates(problem(lhs, value, rhs))
    assert Undetermined().applies(made) == ""
    (candidate,) = Undetermined().solve(made)
    assert same(made, candidate["u"], answer) and proved(made, candidate)


def test_the_linearised_problem_proposes_through_stage_0():
    made = problem(*REDUCIBLE[2])
    found = propose(made, time_limit=30.0, solvers=["linearise"])
    assert found.origins == ["linearise"], found.attempts
    assert proved(made, found.candidates[0])


@pytest.mark.parametrize("lhs, value, why", [
    # no member of the family makes it linear: a cubic source term
    ("u*(u_xx + u_yy) - u_x**2 - u_y**2 - u**3", "exp(x)", "no substitution"),
    ("u_xx + u_yy - u_x**2 - u_y**2 - x", "x", "depend on the variables"),
])
def test_linearise_declines_what_it_cannot_linearise(lhs, value, why):
    made = coordinates(problem(lhs, value))
    began = time.process_time()
    assert why in applies(made)
    assert time.process_time() - began < 1.0


def test_undetermined_declines_source_free_data_given_face_by_face():
    """Values given on each face in its own free variable hold no formula for the domain: no trial
    function to build on (separation of variables is another solver's)."""
    text = ('name = "faces"\n[domain]\nx = [0, 1]\ny = [0, 1]\n[[equations]]\nlhs = "u_xx + u_yy"\n'
            '[[constraints]]\non = "x = 0"\nvalue = "sin(pi*y)"\n[[constraints]]\non = "x = 1"\nvalue = 0\n'
            '[[constraints]]\non = "y = 0"\nvalue = 0\n[[constraints]]\non = "y = 1"\nvalue = 0\n')
    assert "no source term and no data written as a formula" in Undetermined().applies(
        coordinates(problem_from_toml(text, "faces")))
