"""Derivative names cannot mean two things (issue 35, route 5): with variables x and xx, ``u_xx`` would be
d2u/dx2 and du/dxx; the builder wrote the one and the loader read the other, so a formula was Proved for
another problem. Names that make a derivative suffix split two ways are refused with one line, and the
builder compares the equations it reads back with those it was given."""
from __future__ import annotations

import pytest
import sympy as sp

from desyr.api import sympy_problem
from desyr.config import builder
from desyr.config.loading import problem_from_toml
from desyr.errors import ConfigError
from desyr.symbolic.expressions import ExpressionError, Vocabulary


def toml(variables: list[str], lhs: str) -> str:
    domain = "\n".join(f"{v} = [0, 1]" for v in variables)
    return f'name = "t"\n[domain]\n{domain}\n[[equations]]\nlhs = "{lhs}"\n'


@pytest.mark.parametrize(("variables", "lhs"), [(["x", "xx"], "u_xx"), (["a", "b", "ab"], "u_ab"),
                                                (["ab", "ba", "a"], "u_aba + u")])
def test_a_config_whose_names_make_a_derivative_ambiguous_is_refused(variables, lhs):
    with pytest.raises(ConfigError, match="derivative name ambiguous") as info:
        problem_from_toml(toml(variables, lhs), "t.toml")
    assert "\n" not in str(info.value)


def test_the_refusal_names_both_readings():
    with pytest.raises(ExpressionError, match=r"u_xx is the derivative by x, x and by xx"):
        Vocabulary(["x", "xx"], ["u"])


@pytest.mark.parametrize(("variables", "name", "wrt"), [
    (["x", "x1"], "u_x1x", ("x", "x1")),          # a prefix that leaves no name is no ambiguity
    (["a", "ab", "bc"], "u_abc", ("a", "bc")),   # a greedy split (ab, then c) would find no reading
    (["x", "y", "t"], "u_xxt", ("x", "x", "t")),
])
def test_unambiguous_names_are_read_by_their_one_split(variables, name, wrt):
    assert Vocabulary(variables, ["u"]).parse_jet(name).wrt == wrt


def test_the_builder_refuses_variables_x_and_xx():
    x, xx = sp.symbols("x xx")
    u = sp.Function("u")
    with pytest.raises(ConfigError, match="derivative name ambiguous"):
        sympy_problem(sp.Eq(u(x, xx).diff(x, 2), 2), {x: (0, 1), xx: (0, 1)})


def test_the_builder_compares_what_it_reads_back():
    x, y = sp.symbols("x y")
    u = sp.Function("u")
    problem = sympy_problem(sp.Eq(u(x, y).diff(x, 2) + u(x, y).diff(y, 2), 1), {x: (0, 1), y: (0, 1)})
    builder._compare(problem, [sp.Eq(u(x, y).diff(x, 2) + u(x, y).diff(y, 2), 1)], [x, y], "<sympy>")
    with pytest.raises(ConfigError, match=r"equations\[0\] reads back as .*not as given") as info:
        builder._compare(problem, [sp.Eq(u(x, y).diff(x, y) + u(x, y).diff(y, 2), 1)], [x, y], "<sympy>")
    assert "\n" not in str(info.value)
