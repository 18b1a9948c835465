"""A config's numbers are the digits typed (issue 35, third red team, F2 and F5): a decimal with more
digits than a double holds is refused with one line, never read as the double's shortest print, which
is another number (0.2999999999999999999999 would be 3/10, and a false Proved on [0.2999..., 1.3])."""
from __future__ import annotations

import json

import pytest
from test_fuzz import assert_contract, cli

from desyr.config.loading import load_problem_file, problem_from_toml
from desyr.errors import ConfigError
from desyr.model.nesting import DigitsError, typed_float
from desyr.verify.proof import prove
from desyr.verify.verdict import read_problem

#: Nguyen-8 moved to 3/10; sqrt(x - 3/10) is not real on [lower, 3/10) when lower < 3/10
N8 = """name = "n8"
[domain]
x = [{lower}, 1.3]
[[equations]]
lhs = "u_xx"
rhs = "-1/(4*(x - 3/10)**(3/2))"
[[constraints]]
on = "x = 1.3"
value = 1
"""
#: 2*u*u_x = -1 on [0, upper]: sqrt(pi - x) is real there when upper <= pi
PI = 'name = "p"\n[domain]\nx = [0, {upper}]\n[[equations]]\nlhs = "2*u*u_x"\nrhs = "-1"\n'
OVER = ["0.2999999999999999999999", "0.29999999999999999", "0.30000000000000001"]


@pytest.mark.parametrize("lower", OVER)
def test_a_bound_with_more_digits_than_a_float_is_refused(lower):
    with pytest.raises(ConfigError, match=f"the number {lower} has more digits than a float holds"):
        problem_from_toml(N8.format(lower=lower))


@pytest.mark.parametrize("upper", ["3.14159265358979311", "3.1415926535897931"])
def test_a_bound_just_below_pi_is_not_read_as_pi(upper):
    with pytest.raises(ConfigError, match=f"{upper} has more digits than a float holds.*3.141592653589793"):
        problem_from_toml(PI.format(upper=upper))


def test_pi_printed_to_the_last_digit_still_means_pi():
    problem = problem_from_toml(PI.format(upper="3.141592653589793"))
    assert prove(problem, {"u": problem.parse("sqrt(pi - x)")}).proved


@pytest.mark.parametrize("lower", ["0.3", "0.30", "3e-1", "0.300_000", "30.0e-2"])
def test_digits_a_float_holds_are_read_as_written(lower):
    problem = problem_from_toml(N8.format(lower=lower))
    assert prove(problem, {"u": problem.parse("sqrt(x - 3/10)")}).proved


def test_the_cli_refuses_it_with_one_line(tmp_path):
    path = tmp_path / "n8c.toml"
    path.write_text(N8.format(lower=OVER[0]), encoding="utf-8")
    rc, out, err = cli("verify", str(path), "--candidate", "sqrt(x - 3/10)")
    assert rc == 2 and "Proved" not in out
    assert_contract(rc, out, err, "verify")
    assert "0.2999999999999999999999 has more digits than a float holds" in err
    with pytest.raises(ConfigError, match="more digits"):
        load_problem_file(path)


def test_a_base_config_with_too_many_digits_is_refused_through_extends(tmp_path):
    (tmp_path / "base.toml").write_text(N8.format(lower=OVER[0]), encoding="utf-8")
    child = tmp_path / "child.toml"
    child.write_text('extends = "base.toml"\nname = "child"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="more digits than a float holds"):
        load_problem_file(child)


def test_a_json_config_reads_its_digits_as_typed():
    text = json.dumps({"domain": {"x": [0, 1.3]}, "equations": [{"lhs": "u_xx", "rhs": "-1/(4*(x - 3/10)**(3/2))"}],
                       "constraints": [{"on": "x = 1.3", "value": 1}]}).replace("[0, 1.3]", f"[{OVER[0]}, 1.3]")
    with pytest.raises(ConfigError, match=f"{OVER[0]} has more digits"):
        read_problem({"format": "json", "text": text})
    fine = read_problem({"format": "json", "text": text.replace(OVER[0], "0.3")})
    assert prove(fine, {"u": fine.parse("sqrt(x - 3/10)")}).proved


def test_the_verifier_reads_a_toml_config_the_same_way():
    with pytest.raises(ConfigError, match="more digits"):
        read_problem({"format": "toml", "text": PI.format(upper="3.14159265358979311")})


@pytest.mark.parametrize("text, value", [("0.1", 0.1), ("1e-3", 0.001), ("1_000.5", 1000.5), ("-2.5E+3", -2500.0),
                                         ("5e-324", 5e-324), ("1.0000000000000002", 1.0000000000000002)])
def test_typed_float_keeps_what_a_float_holds(text, value):
    assert typed_float(text) == value


@pytest.mark.parametrize("text", ["1e400", "1e-400", "4.9e-324", "0." + "1" * 5000, "1.00000000000000001"])
def test_typed_float_refuses_what_a_float_cannot_hold(text):
    with pytest.raises(DigitsError):
        typed_float(text)
