import os

import pytest
import sympy as sp

from desyr.symbolic.expressions import ExpressionError, Jet, Vocabulary, complexity, expression_text, parse_expression

V = Vocabulary(["x", "t"], ["u", "v"])


def test_attack_string_is_refused_and_runs_nothing(tmp_path):
    target = "/tmp/desyr_pwned"
    if os.path.exists(target):
        os.remove(target)
    with pytest.raises(ExpressionError, match="attribute access '.system'|function '__import__'"):
        parse_expression('__import__("os").system("touch /tmp/desyr_pwned")', V)
    assert not os.path.exists(target)


@pytest.mark.parametrize("text, fragment", [
    ("x.real", "attribute access"),
    ("[x]", "List"),
    ("lambda: 1", "Lambda"),
    ("x ^ 2", "write \\*\\* for powers"),
    ("eval('1')", "function 'eval' is not allowed"),
    ("sin(x, t)", "exactly one"),
    ("'abc'", "literal"),
    ("y + 1", "unknown name 'y'"),
])
def test_disallowed_constructs_are_named(text, fragment):
    with pytest.raises(ExpressionError, match=fragment):
        parse_expression(text, V)


def test_arithmetic_and_functions():
    x, t = V.var_symbols["x"], V.var_symbols["t"]
    e = parse_expression("-2*x**3/t + sin(pi*x) - exp(-t) + sqrt(x)", V)
    assert sp.simplify(e - (-2 * x**3 / t + sp.sin(sp.pi * x) - sp.exp(-t) + sp.sqrt(x))) == 0


def test_derivative_names_are_canonical():
    assert V.parse_jet("u_xx") == Jet("u", ("x", "x"))
    assert V.parse_jet("u_tx") == V.parse_jet("u_xt") == Jet("u", ("x", "t"))
    assert V.parse_jet("u_xxxx").order == 4
    assert V.parse_jet("u_y") is None
    e = parse_expression("u_t + u*u_x - 0.05*u_xx + v", V)
    assert {V.jet_of(s).name for s in e.free_symbols if V.jet_of(s)} == {"u_t", "u", "u_x", "u_xx", "v"}


def test_complexity_is_node_count():
    x = sp.Symbol("x")
    assert complexity(sp.sin(sp.Float(3.14) * x)) == 4
    assert complexity(-sp.Float(0.1) * x + sp.sin(sp.Float(0.7) * x) + sp.cos(sp.Float(1.5) * x)) == 12


def test_expression_text_round_trips_doubles():
    value = 3.141592653589793
    e = sp.Float(value) * V.var_symbols["x"]
    back = parse_expression(expression_text(e), V)
    assert float(back.as_coeff_Mul()[0]) == value
