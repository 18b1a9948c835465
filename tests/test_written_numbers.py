"""A config's numbers keep the value they were written with (1/3 is one third, 1.397 is 1397/1000), in
the equations, the sets and the shape's text, so that proofs use them; and identification looks for
constants built from them (issue 35, items 8 and 9)."""
from __future__ import annotations

import math

import pytest
import sympy as sp

from desyr.config.loading import problem_from_dict
from desyr.errors import ConfigError
from desyr.exact import exact_form, propose
from desyr.exact.identify import BASES, problem_bases
from desyr.model.points import make_point_sets
from desyr.model.residuals import verify
from desyr.verify.proof import prove

POINTS = {"refine": 200, "verify": 300, "search": 50, "validate": 50}
DECIMAL = {"domain": {"x": [0, 1.397]},
           "equations": [{"lhs": "u_xx", "rhs": "-(3*pi/1.397)**2*sin(3*pi*x/1.397)"}],
           "constraints": [{"on": "boundary", "value": 0}], "points": POINTS}


def disk(shape: str, value: str = "0", on: str = "circle") -> dict:
    return {"domain": {"shape": shape}, "equations": [{"lhs": "u_xx + u_yy", "rhs": 4}],
            "constraints": [{"on": on, "value": value}], "points": POINTS}


def proved(data: dict, text: str) -> bool:
    problem = problem_from_dict(data)
    return prove(problem, {"u": problem.parse(text)}).proved


# ------------------------------------------------------------------ numbers as written
def test_decimals_in_equations_are_their_rationals():
    problem = problem_from_dict(DECIMAL)
    residual = problem.equations[0].residual
    assert not residual.atoms(sp.Float)
    assert sp.Rational(3000, 1397) in residual.atoms(sp.Rational)
    assert proved(DECIMAL, "sin(3000*pi*x/1397)")


def test_a_searchers_decimals_stay_floats():
    problem = problem_from_dict(DECIMAL)
    assert problem.parse("0.5*x").atoms(sp.Float)


def test_shape_text_one_third_is_one_third():
    data = disk("disk(center=(0, 0), radius=1/3)")
    assert proved(data, "x**2 + y**2 - 1/9")
    assert not proved(data, "x**2 + y**2 - 3333333333333333**2/10**32")


def test_shape_text_decimal_with_many_digits_is_exact():
    data = disk("disk(center=(0.12345678, 0), radius=0.7)")
    assert proved(data, "(x - 12345678/10**8)**2 + y**2 - 49/100")


def test_neumann_normal_uses_the_written_radius():
    # u = r**2 on a disk of radius 1/3: u_n = 2*r = 2/3 on the circle, exactly
    data = disk("disk(center=(0, 0), radius=1/3)", value="2/3")
    data["constraints"][0]["operator"] = "u_n"
    assert proved(data, "x**2 + y**2")


@pytest.mark.parametrize("on", ["x = 0.1234567", "x = 1/3"])
def test_a_face_written_with_many_digits_or_as_a_fraction_is_proved(on):
    data = {"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx"}],
            "constraints": [{"on": on, "value": 0}, {"on": "x = 1", "value": 1}], "points": POINTS}
    at = on.split("=")[1].strip()
    assert proved(data, f"(x - {at})/(1 - {at})".replace("0.1234567", "(1234567/10**7)"))


def test_a_point_written_with_many_digits_is_proved():
    data = {"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx"}],
            "constraints": [{"at": [[0.1234567]], "value": 0}, {"on": "x = 1", "value": 1}], "points": POINTS}
    assert proved(data, "(x - 1234567/10**7)/(1 - 1234567/10**7)")


@pytest.mark.parametrize("data", [
    disk("disk(center=(0, 0), radius=1/3) - disk(center=(0.5, 0), radius=0.33333333333333331)", on="boundary"),
    {"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx"}],
     "constraints": [{"on": "x = 1/3", "value": 0}, {"on": "x = 0.33333333333333331", "value": 0}], "points": POINTS}])
def test_one_float_written_two_ways_is_refused(data):
    with pytest.raises(ConfigError, match="both as"):
        problem_from_dict(data)


@pytest.mark.parametrize("printed, meant", [("0.3333333333333333", sp.Rational(1, 3)), ("2.718281828459045", sp.E)])
def test_a_double_printed_to_its_last_digit_stands_for_the_exact_number_beside_it(printed, meant):
    # TOML cannot write e or 1/3: a range written as the double's print and a set written exactly are one number
    data = {"domain": {"x": [0, float(printed)]}, "equations": [{"lhs": "u_xx"}],
            "constraints": [{"on": f"x = {meant}", "value": 1}, {"on": "x = 0", "value": 0}], "points": POINTS}
    problem = problem_from_dict(data)
    assert problem.numbers[float(printed)] == meant
    assert proved(data, f"x/({meant})")


# ------------------------------------------------------------------ identification
def test_reciprocals_of_small_logs_are_proposed():
    assert propose(0.7213475204444817)[0] == 1 / (2 * sp.log(2))       # the annulus between radii 1 and 2
    assert propose(1 / math.log(3))[0] == 1 / sp.log(3)
    assert propose(math.log(2) / 3)[0] == sp.log(2) / 3


def test_bases_from_the_configs_own_numbers():
    problem = problem_from_dict(DECIMAL)
    bases = tuple(BASES) + tuple(problem_bases(problem))
    assert propose(3 * math.pi / 1.397, bases=bases)[0] == 3000 * sp.pi / 1397
    assert propose(3 * math.pi / 1.397) == []          # without them: too many digits for a base


def test_an_annulus_between_other_radii_gives_its_log():
    data = {"domain": {"shape": "annulus(center=(0, 0), inner=1, outer=1.5)"}, "equations": [{"lhs": "u_xx + u_yy"}],
            "constraints": [{"on": "inner", "value": 0}, {"on": "outer", "value": 1}], "points": POINTS}
    problem = problem_from_dict(data)
    bases = tuple(BASES) + tuple(problem_bases(problem))
    assert propose(1 / (2 * math.log(1.5)), bases=bases)[0] == 1 / (2 * sp.log(sp.Rational(3, 2)))


def test_random_floats_rarely_match_the_wider_bases():
    problem = problem_from_dict(DECIMAL)
    bases = tuple(BASES) + tuple(problem_bases(problem))
    rng = __import__("random").Random(0)
    hits = sum(bool(propose(rng.uniform(-10, 10), bases=bases)) for _ in range(100))
    assert hits <= 1


def test_exact_form_names_the_decimal_problems_constant():
    problem = problem_from_dict(DECIMAL)
    points = make_point_sets(problem, 3)

    def check(exprs):
        v = verify(problem, exprs, points)
        return v.R_eq, v.R_con
    form = exact_form(problem, {"u": problem.parse(f"sin({3 * math.pi / 1.397!r}*x)")}, check)
    assert form.expressions["u"] == sp.sin(3000 * sp.pi * problem.symbols[0] / 1397)
