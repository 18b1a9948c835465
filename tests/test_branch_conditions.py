"""The equations' own branch conditions (issue 35, docs/verify.md "What Proved means"): what sqrt, log,
asin, powers and divisions of a config's equations and constraints need of their arguments, as written,
holds for a Proved candidate; SymPy's evaluation (sqrt(u)**2 -> u, log(-1) -> I*pi) cannot drop it."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import sympy as sp

from desyr.symbolic.expressions import Vocabulary, parse_expression
from desyr.testing import make_problem
from desyr.verify import make_request
from desyr.verify.verdict import decide

DATA = Path(__file__).parent / "fixtures" / "branch_conditions"


def verdict(toml: str, candidate: dict[str, str]) -> dict:
    return decide(make_request(make_problem(toml), candidate, None, 0))


def fixture(name: str, old: str = "", new: str = "") -> str:
    return (DATA / name).read_text().replace(old, new)


@pytest.mark.parametrize("name, candidate, why", [
    ("inverse_log_c.toml", {"u": "exp(pi**2*x)", "c": "-1"}, "log(c) needs c > 0"),
    ("log_field.toml", {"u": "-1"}, "log(u) needs u > 0 in equation 1"),
    ("log_constraint.toml", {"u": "-1"}, "log(u) needs u > 0 in constraint"),
    ("sqrt_squared.toml", {"u": "-exp(x)"}, "sqrt(u) needs u >= 0"),
    ("sin_asin.toml", {"u": "exp(x)"}, "asin(u) needs 1 - u**2 >= 0"),
])
def test_a_formula_for_which_the_equation_as_written_is_undefined_is_not_exact(name, candidate, why):
    out = verdict(fixture(name), candidate)
    assert out["verdict"] == "not_exact"
    assert why in out["reason"] and "not finite on the domain" in out["reason"]


@pytest.mark.parametrize("name, old, new, candidate", [
    ("inverse_log_c.toml", "c = [-2, -0.5]", "c = [0.5, 2]", {"u": "exp(-log(2)**2*x)", "c": "2"}),
    ("log_field.toml", 'rhs = "-pi**2"\n', 'rhs = "exp(x) + x**2"\n', {"u": "exp(x)"}),
    ("log_constraint.toml", 'value = "-pi**2"', 'value = "log(3)**2"', {"u": "3"}),
    ("sqrt_squared.toml", "value = -1", "value = 1", {"u": "exp(x)"}),
    ("sin_asin.toml", "value = 1", 'value = "1/4"', {"u": "exp(x)/4"}),
])
def test_true_solutions_of_the_same_problems_stay_proved(name, old, new, candidate):
    toml = fixture(name, old, new)
    if name == "inverse_log_c.toml":
        toml = toml.replace('u = "exp(pi**2*x)"', 'u = "exp(-log(2)**2*x)"')
    if name == "log_field.toml":
        toml = toml.replace("value = -1", "value = 1")
    out = verdict(toml, candidate)
    assert out["verdict"] == "proved", out["reason"]


LOG_X = """
name = "log_x"
fields = ["u"]
[domain]
x = [LO, 1]
[[equations]]
lhs = "u_x + log(u)"
rhs = "1 + log(x)"
[[constraints]]
on = "x = 1"
value = 1
"""


def test_a_condition_may_fail_on_the_boundary_only_as_the_equation_holds_inside():
    # u = x: log(u) is log(x), which the equation's own data have too; 0 only on the face x = 0
    assert verdict(LOG_X.replace("LO", "0"), {"u": "x"})["verdict"] == "proved"
    out = verdict(LOG_X.replace("LO", "-1"), {"u": "x"})     # u < 0 inside: not real there
    assert out["verdict"] == "not_exact" and "log(u) needs u > 0" in out["reason"]


def test_the_parser_records_conditions_before_sympy_drops_them():
    vocabulary = Vocabulary(["x"], ["u"])
    notes: list = []
    expr = parse_expression("sqrt(u)**2 + sin(asin(u)) + tan(x) + x**(3/2) + 1/(u - 1) + log(2)", vocabulary,
                            written=True, conditions=notes)
    u = vocabulary.resolve("u")
    assert not expr.has(sp.sqrt(u), sp.asin(u))              # gone from the expression ...
    found = {(str(c.quantity), c.need, c.written) for c in notes}
    assert found >= {("u", "nonnegative", "sqrt(u)"), ("1 - u**2", "nonnegative", "asin(u)"),
                     ("cos(x)", "nonzero", "tan(x)"), ("x", "nonnegative", "x**(3/2)"),
                     ("u - 1", "nonzero", "1/(u - 1)")}      # ... but recorded as written
    assert all(c.quantity.free_symbols for c in notes)      # log(2) is the parser's: a number
    assert parse_expression("sqrt(u)**2", vocabulary) == u  # the run's own expressions are unchanged


def test_the_problem_keeps_the_conditions_of_equations_and_constraints():
    problem = make_problem(fixture("log_constraint.toml"))
    assert problem.equations[0].conditions == ()
    (condition,) = problem.constraints[0].conditions
    assert condition.written == "log(u)" and condition.need == "positive"
    with pytest.raises(dataclasses.FrozenInstanceError):
        condition.need = "nonzero"                              # frozen


def test_nguyen8_stays_proved_with_its_singular_source():
    toml = (Path(__file__).parent / "fixtures" / "nguyen8_0_4.toml").read_text()
    assert verdict(toml, {"u": "sqrt(x)"})["verdict"] == "proved"
