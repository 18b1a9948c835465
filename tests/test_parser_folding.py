"""Every node the parser builds is checked as it is built, before SymPy folds it away.

Issue 35, third red team: ``abs((-1)**u)`` folds to 1 and ``(-1)**u*(-1)**(-u)`` to 1, so ``u = x`` was
Proved for ``u_x = abs((-1)**u)``, an equation with no real solution; ``0*log(-1)``, ``acos(2)**0`` and
``asin(2) - asin(2)`` fold to real numbers, so configs and candidates held non-real numbers that the
check of the finished expression never saw.
"""
from __future__ import annotations

import re

import pytest
import sympy as sp

from desyr.cli.main import main
from desyr.errors import ConfigError
from desyr.symbolic.conditions import of_call, of_power
from desyr.symbolic.expressions import ExpressionError, Vocabulary, parse_expression
from desyr.testing import make_problem
from desyr.verify import make_request
from desyr.verify.conditions import _fails
from desyr.verify.verdict import decide

ODE = """
name = "folded"
[domain]
x = [0, 1]
[[equations]]
lhs = "u_x"
rhs = "{rhs}"
[[constraints]]
on = "x = 0"
value = {start}
[points]
verify = 200
[solvers]
enabled = false
"""
V = Vocabulary(["x"], ["u"])


@pytest.mark.parametrize("rhs, said", [
    ("abs((-1)**u)", "not real where u is not an integer"),            # a1: x was Proved
    ("(-1)**u*(-1)**(-u)", "not real where u is not an integer"),      # a2
    ("abs((-2)**u)/2**u", "not real where u is not an integer"),
    ("abs(sqrt(-1)**u)", "non-real number I"),
    ("0**u + 1", "undefined where u <= 0"),
    ("1 + 0*log(-1)", "non-real number I"),                             # a3's three forms
    ("acos(2)**0", "non-real number acos(2)"),
    ("1 + asin(2) - asin(2)", "non-real number asin(2)"),
])
def test_a_config_with_a_number_folded_away_is_refused(rhs, said):
    with pytest.raises(ConfigError, match=re.escape(said)) as caught:
        make_problem(ODE.format(rhs=rhs, start=0))
    assert "\n" not in str(caught.value)


def test_the_red_team_file_is_one_error_line_not_proved(tmp_path, capsys):
    path = tmp_path / "a1.toml"
    path.write_text(ODE.format(rhs="abs((-1)**u)", start=0))
    assert main(["verify", str(path), "--candidate", "x"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("desyr: error:") and "(-1)**u" in err


@pytest.mark.parametrize("text", ["sin(pi*x) + 0*sqrt(-1)", "sin(pi*x) + 0*cos(sqrt(-1)*x)", "x + 0*log(-1)",
                                  "x*acos(2)**0", "x + asin(2) - asin(2)", "x*abs((-1)**x)", "x*(-1)**x*(-1)**(-x)",
                                  "x*abs((-2.0)**x)/2**x", "0**x*x"])
def test_a_candidate_with_a_number_folded_away_is_refused(text):
    with pytest.raises(ExpressionError, match="not real|non-real|undefined"):
        parse_expression(text, V)


@pytest.mark.parametrize("text, value", [("(-1)**2*x", "x"), ("0**(1/2) + x", "x"), ("2**x", "2**x"),
                                         ("(sqrt(2) - 1)**x", "(-1 + sqrt(2))**x"), ("sqrt(pi - 3)*x", None),
                                         ("exp(-x)*(-1)**3", "-exp(-x)"), ("asin(1)*x", "pi*x/2")])
def test_real_numbers_and_positive_bases_still_parse(text, value):
    got = parse_expression(text, V, written=True, conditions=[])
    assert value is None or got == sp.sympify(value, locals={"x": V.var_symbols["x"]})


def test_a_condition_inside_a_product_with_zero_is_kept_and_proved():
    toml = ODE.format(rhs="1 + 0*log(u)", start=-1)
    problem = make_problem(toml)
    assert [str(c.quantity) for c in problem.equations[0].conditions] == ["u"]
    got = decide(make_request(problem, {"u": "x - 1"}, None, 0))      # log(x - 1) is undefined on (0, 1)
    assert got["verdict"] != "proved" and "log(u)" in got["reason"]
    assert decide(make_request(make_problem(ODE.format(rhs="1 + 0*log(u)", start=1)), {"u": "x + 1"}, None, 0)
                  )["verdict"] == "proved"


def test_a_condition_on_a_number_is_decided_where_it_is_made():
    assert of_call("log", sp.Integer(2), "log(2)") is None                # holds: dropped
    assert of_call("log", sp.Integer(-1), "log(-1)").broken()             # fails: the parser refuses
    assert of_call("sqrt", sp.Integer(0), "sqrt(0)") is None
    assert of_power(sp.Integer(0), sp.Integer(-1), "0**-1").broken()
    undecided = of_call("log", sp.Pow(-1, sp.pi), "log((-1)**pi)")        # SymPy cannot tell: kept, not dropped
    assert undecided is not None and not undecided.broken()
    x = sp.Symbol("x", real=True)                                         # ... and the verifier refuses it
    assert "could not be shown" in _fails(undecided.quantity, undecided.need, {x: (0.0, 1.0)}, None)


def test_a_number_not_shown_real_is_refused():
    with pytest.raises(ExpressionError, match="cannot be shown to be real|non-real"):
        parse_expression("(-1)**pi*x", V)


@pytest.mark.parametrize("text", ["sin(pi*x) + 1e-400", "sin(pi*x) + 0." + "0" * 400 + "1", "1e-400*x"])
@pytest.mark.parametrize("written", [False, True])
def test_a_literal_a_double_makes_0_is_refused(text, written):
    """Sixth red team, F1: ``1e-400`` became 0 and the term vanished unseen (a config's forcing of 1e-400
    was Proved for the unforced problem's solution)."""
    with pytest.raises(ExpressionError, match="beyond what DeSyR reads"):
        parse_expression(text, Vocabulary(["x"], ["u"]), written=written)


def test_small_literals_that_a_double_holds_still_parse():
    assert parse_expression("1e-300*x", Vocabulary(["x"], ["u"])) != 0
