"""Series in the expression language: Sum(term, (n, a, oo)), its index rules, realness of (-1)**n,
factorial, the named eigenvalue functions, printing round trips, and the config's precheck."""
from __future__ import annotations

import pytest
import sympy as sp

from desyr.config.early import _Names, _problem_of
from desyr.symbolic.eigenvalues import besseljpzero, besseljzero, dinizero, robinroot
from desyr.symbolic.expressions import ExpressionError, Vocabulary, expression_text, parse_expression
from desyr.symbolic.series import has_series, not_finite, series_index

VOCAB = Vocabulary(["x", "t"], ["u"], {"h": sp.Symbol("h", real=True)})
ROD = "Sum(8/(pi**3*(2*k - 1)**3)*sin((2*k - 1)*pi*x)*exp(-(2*k - 1)**2*pi**2*t), (k, 1, oo))"

ROUND_TRIPS = [
    ROD,
    "x*(1 - x)/2 + Sum(2*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))",
    "Sum(Sum(sin(n*pi*x)*sin(m*pi*t)/(n**2 + m**2)**2, (m, 1, oo)), (n, 1, oo))",
    "Sum(x**n/factorial(n), (n, 0, oo))",
    "Sum(besselj(0, besseljzero(0, k)*x)*exp(-besseljzero(0, k)**2*t)/besselj(1, besseljzero(0, k)), (k, 1, oo))",
    "Sum(cos(robinroot(k, 1, 0, 1)*x)/k**2, (k, 1, oo))",
    "Sum(besselj(0, dinizero(0, 1/2, k)*x)/k**2, (k, 1, oo))",
    "Sum(1.5*sin(n*x)/n**2, (n, 1, oo)) + besseljpzero(2, 3)*t",
    "Sum(sin(n*x)/(n - 2)**2, (n, 3, oo))",
]


@pytest.mark.parametrize("text", ROUND_TRIPS)
def test_a_series_parses_and_prints_back_to_the_same_object(text: str) -> None:
    expr = parse_expression(text, VOCAB)
    assert has_series(expr) or expr.has(besseljpzero)
    assert parse_expression(str(expression_text(expr)), VOCAB) == expr
    assert not not_finite(expr)


def test_the_index_is_the_shared_symbol_and_nested_sums_are_sympys_double_sum() -> None:
    expr = parse_expression(ROD, VOCAB)
    assert isinstance(expr, sp.Sum) and expr.limits[0] == (series_index("k", 1), 1, sp.oo)
    double = parse_expression(ROUND_TRIPS[2], VOCAB)
    assert [lim[0] for lim in double.limits] == [series_index("m"), series_index("n")]
    x = VOCAB.resolve("x")
    assert parse_expression("Sum(x**n, (n, 0, 3))", VOCAB) == 1 + x + x**2 + x**3      # a finite sum, expanded


REFUSED = {
    "Sum(sin(x*t), (x, 1, oo))": "already a variable",
    "Sum(sin(n*x), (u, 1, oo))": "already a field",
    "Sum(sin(h*x), (h, 1, oo))": "parameter or unknown",
    "Sum(Sum(1/(n*n), (n, 1, oo)), (n, 1, oo))": "enclosing sum",
    "Sum(sin(n*x), (sin, 1, oo))": "reserved",
    "Sum(sin(n*x), (n, 0.5, oo))": "integer literals",
    "Sum(sin(n*x), (n, 1, x))": "integer literals",
    "Sum(sin(n*x), n)": "a range",
    "Sum(sin(n*x), (n, 1, 1000))": "finite sum of 1000 terms",
    "Sum(x, (n, 1, oo))": "does not depend on its index",
    "Sum(Sum(Sum(Sum(1/(n*m*k*j)**2, (j, 1, oo)), (k, 1, oo)), (m, 1, oo)), (n, 1, oo))": "more than 3 deep",
    "(-1)**x": "not real where x is not an integer",
    "(-1)**h*x": "not real where h is not an integer",
    "Sum((-1)**(n/2)*sin(n*x), (n, 1, oo))": "not an integer",
    "Sum(sin(n*x)/(n - 2), (n, 1, oo))": "undefined at the index n = 2",
    "Sum(log(x - n), (n, 1, oo))": "mixes a sum's index and the variables",
    "factorial(x)": "must be an integer",
    "factorial(10**6)": "from 0 to 170",
    "Sum(factorial(n - 1)*x**n, (n, 0, oo))": "must be an integer of at least 0",
    "robinroot(1, 0.5, 1, 1)": "exact real numbers",
    "Sum(2**(2**n)*x, (n, 990, 1000))": "degree at most 2",
    "Sum(sin(n*x)/n**(n**3), (n, 1, oo))": "base free of the index",
    "Sum(x**n/factorial(factorial(n)), (n, 1, oo))": "degree 1",
    "Sum(sin(n*x)/(10**300)**(n**2), (n, 999, 1000))": "grows too fast",
    "Sum(x**2/2**(n**2), (n, 998, 1000))": "grows too fast",
    "robinroot(1, 0, 0, 0)": "all 0",
    "dinizero(1, -1, 1)": "a root is not real",
    "dinizero(0, 0.5, 1)": "exact real number",
    "dinizero(x, 1, 1)": "constant integer",
    "besseljzero(x, 1)": "constant integer",
    "besseljzero(0, 0)": "from 1 to",
    "besseljzero(0, n)": "unknown name 'n'",
    "oo": "unknown name 'oo'",
}


@pytest.mark.parametrize("text", sorted(REFUSED))
def test_a_wrong_series_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ExpressionError, match=REFUSED[text].replace("(", r"\(").replace(")", r"\)")) as caught:
        parse_expression(text, VOCAB)
    assert "\n" not in str(caught.value)


def test_minus_one_to_an_integer_index_is_real_and_keeps_no_condition() -> None:
    notes: list = []
    expr = parse_expression("Sum((-1)**n*sin(n*pi*x)/n**2, (n, 1, oo))", VOCAB, conditions=notes)
    assert notes == [] and expr.has(sp.Pow(-1, series_index("n")))
    # a condition on the variables inside a term goes on to the verifier as before
    parse_expression("Sum(sqrt(x)*sin(n*x)/n**2, (n, 1, oo))", VOCAB, conditions=notes)
    assert [c.quantity for c in notes] == [VOCAB.resolve("x")]


def test_the_precheck_knows_the_index_and_the_new_functions() -> None:
    names = _Names(["x", "t"], ["u"], [])
    assert _problem_of(ROD, names, False) is None
    assert _problem_of("Sum(Sum(sin(n*m*x), (m, 1, oo)), (n, 1, oo)) + robinroot(1, 1, 1, 1)", names, False) is None
    assert "unknown name 'y'" in str(_problem_of("Sum(sin(n*y), (n, 1, oo))", names, False))
    assert "unknown name 'n'" in str(_problem_of("n*x", names, False))


def test_named_eigenvalues_evaluate_to_any_precision_and_solve_their_equation() -> None:
    s = sp.Symbol("s")
    for value in (besseljzero(0, 3), besseljzero(2, 1), besseljpzero(0, 1), besseljpzero(1, 2),
                  robinroot(3, 1, 0, 1), robinroot(2, 2, 3, -1), dinizero(0, 2, 3), dinizero(2, -1, 1)):
        fifty = value.evalf(50)
        assert abs(value.defining_equation(s).subs(s, fifty).evalf(50)) < 1e-45
        assert value.is_real and value.is_positive
    assert abs(besseljpzero(0, 1).evalf(30) - besseljzero(1, 1).evalf(30)) < 1e-28     # J0' = -J1, 0 not counted
    assert dinizero(2, 0, 3) == besseljpzero(2, 3) and dinizero(0, 0, 1) == besseljpzero(0, 1)
    k = series_index("k")
    assert robinroot(k, 1, 0, 0) == k * sp.pi and robinroot(k, 0, 0, 2) == (k - sp.Rational(1, 2)) * sp.pi
    assert sp.latex(besseljzero(0, k)) == "j_{0,k}"
    # a power of one: SymPy's printer passes the exponent (a disk's exp(-j**2*t) broke the run's report)
    assert sp.latex(besseljzero(0, k)**2) == "\\left(j_{0,k}\\right)^{2}"
    for value in (besseljpzero(1, k), robinroot(k, 1, 0, 1)):
        assert sp.latex(sp.exp(-value**2) / value**3).count("\\right)^{") == 2
