"""The `dictionary` searcher's log: a factor log(v) of a positive variable, the outer functions
log(s) and exp(s) (fits of exp(u) and log|u|), and float powers snapped to simple fractions."""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from desyr_dictionary.basis import build_dictionary
from desyr_dictionary.plugin import DictionarySearcher
from test_search_dictionary import rel_l2_on_fresh_points, task, x

SSDE_UNARY = ["sin", "cos", "log", "exp"]


def _log_members(result):
    return [m for m in result.front if isinstance(m.expression, sp.log)]


@pytest.mark.slow
def test_log_of_a_polynomial_through_the_outer_log():
    """SSDE's Nguyen-7, log(x + 1) + log(x**2 + 1) on [0, 2], is log of the cubic (x + 1)(x**2 + 1):
    no sum of separable terms holds it, the dictionary's fit of exp(u) does."""
    f = lambda X: np.log(X[:, 0] + 1) + np.log(X[:, 0] ** 2 + 1)     # noqa: E731
    result = DictionarySearcher().search(task(f, ["x"], SSDE_UNARY, noise=1e-4))
    logs = _log_members(result)
    assert logs, [m.expression for m in result.front]
    polynomial = [m.expression.args[0] for m in logs if m.expression.args[0].is_polynomial(x)]
    assert polynomial, [m.expression for m in logs]
    inner = sp.Poly(polynomial[0], x)
    assert inner.degree() == 3 and np.allclose([float(c) for c in inner.all_coeffs()], 1.0, atol=1e-2)
    assert "changes sign" not in result.info["outer"]["log"]
    # without log in the operator set there is no outer log
    plain = DictionarySearcher().search(task(f, ["x"], ["sin", "cos", "exp"], noise=1e-4))
    assert not _log_members(plain) and "log" not in plain.info["outer"]


@pytest.mark.slow
def test_a_power_through_the_outer_exp_and_the_log_factor():
    """SSDE's Nguyen-8, sqrt(x) on [0.5, 1.5], with the operators + - * / sin cos log exp: exp of
    c + log(x)/2, its exponent snapped to 1/2 (Stage B refits no exponent)."""
    f = lambda X: np.sqrt(X[:, 0])     # noqa: E731
    result = DictionarySearcher().search(task(f, ["x"], SSDE_UNARY, noise=1e-4, low=0.5))
    powers = [m for m in result.front if sp.sqrt(x) in m.expression.atoms(sp.Pow)]
    assert powers and rel_l2_on_fresh_points(powers[0].expression, [x], f, 1) < 1e-3
    assert powers[0].complexity <= 5


def test_outer_functions_say_why_they_do_not_apply():
    sine = lambda X: np.sin(np.pi * X[:, 0])     # noqa: E731   (zero at both ends)
    info = DictionarySearcher(max_terms=2).search(task(sine, ["x"], SSDE_UNARY)).info
    assert "changes sign" in info["outer"]["exp"] or "of zero" in info["outer"]["exp"]
    big = lambda X: 40 * X[:, 0] + 1     # noqa: E731
    info = DictionarySearcher(max_terms=2).search(task(big, ["x"], SSDE_UNARY)).info
    assert "would overflow" in info["outer"]["log"]


def test_log_factor_only_for_a_positive_variable():
    ops = frozenset({"log"})
    X = np.random.default_rng(0).uniform(0.5, 1.5, (50, 2))
    X[:, 1] -= 1.0          # the second variable crosses zero
    dic = build_dictionary(X, X[:, 0], ["x", "y"], ops, 2, 2, [], 0, 100)
    logs = {i for term in dic.terms for i, f in enumerate(term.factors) if f is not None and f.op == "log"}
    assert logs == {0}
    assert all(dic.windows[f.param][0] == dic.windows[f.param][1] == 1.0
               for term in dic.terms for f in term.factors if f is not None)


@pytest.mark.parametrize("exponent, snapped", [(0.50002, sp.Rational(1, 2)), (-1.4996, sp.Rational(-3, 2)),
                                               (0.3336, sp.Rational(1, 3)), (0.123, None)])
def test_float_powers_near_a_simple_fraction_are_snapped(exponent, snapped):
    from desyr_dictionary.plugin import snapped_powers

    expr = 2.5 * x ** sp.Float(exponent) + sp.Float(0.7)
    out = snapped_powers(expr)
    assert out == (expr if snapped is None else 2.5 * x ** snapped + sp.Float(0.7))
