"""Stage 0 for linear parabolic equations (issue 38, acceptance 1): a Cauchy-Euler substitution, a
gauge to the heat equation and the heat equation's erf family, with rates read from the data, solve
the Black-Scholes call and a put of another rate and volatility in the price variable, and a
drift-diffusion front, each Proved before any teacher is trained."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest
import sympy as sp
from desyr_sympy import propose
from desyr_sympy.methods.parabolic import (
    Parabolic,
    ParabolicForm,
    euler_coefficients,
    gauge,
    heat_terms,
    parabolic,
    rates,
)
from desyr_sympy.shared.forms import coordinates

from desyr.api import run
from desyr.extension.registry import load_registry
from desyr.plugin import problem_from_toml

applies, solve = Parabolic().applies, Parabolic().solve
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "linear_parabolic"
CALL = Path(__file__).resolve().parents[1] / "plugins" / "desyr_paper" / "special" / "08_black_scholes_call.toml"


def load(name: str, equation: str | None = None, domain: str | None = None):
    text = (CALL if name == "call" else FIXTURES / f"{name}.toml").read_text()
    if equation is not None:
        text = "\n".join(f'lhs = "{equation}"' if line.startswith("lhs =") else line for line in text.splitlines())
    if domain is not None:
        text = "\n".join(domain if line.startswith("s = [") else line for line in text.splitlines())
    return problem_from_toml(text, name)


@functools.cache
def form(name: str) -> ParabolicForm:
    found = parabolic(coordinates(load(name)))
    assert isinstance(found, ParabolicForm), found
    return found


def test_the_call_becomes_constant_coefficients_in_log_s():
    found = form("call")
    # s**2*V_ss = V_xx - V_x and s*V_s = V_x in x = log(s): V_tau = V_xx/8 - V_x/40 - V/10
    assert found.euler and (found.a, found.b, found.c) == (sp.Rational(1, 8), sp.Rational(-1, 40), sp.Rational(-1, 10))


def test_a_constant_coefficient_equation_keeps_its_variable():
    found = form("drift")
    assert not found.euler and (found.a, found.b, found.c) == (sp.Rational(1, 2), 1, 0)


def test_the_euler_detection_refuses_a_term_that_is_not_equidimensional():
    s = sp.Symbol("s", real=True)
    assert euler_coefficients({2: s**2 / 8, 1: s / 10, 0: sp.Rational(-1, 10)}, s) == {
        2: sp.Rational(1, 8), 1: sp.Rational(1, 10), 0: sp.Rational(-1, 10)}
    assert euler_coefficients({2: s**2 / 8, 1: sp.Integer(1)}, s) is None
    assert euler_coefficients({2: s**2 / 8, 0: s}, s) is None
    why = parabolic(coordinates(load("call", equation="V_tau - s**2*V_ss/8 - V_s/10 + V/10")))
    assert isinstance(why, str) and "equidimensional" in why


def test_the_substitution_needs_a_positive_variable():
    why = parabolic(coordinates(load("call", domain="s = [-1, 2]")))
    assert isinstance(why, str) and "positive" in why


def test_the_gauge_constants_turn_the_equation_into_the_heat_equation():
    assert gauge(sp.Rational(1, 8), sp.Rational(-1, 40), sp.Rational(-1, 10)) == (sp.Rational(1, 10), sp.Rational(-81, 800))
    a = sp.Symbol("a", positive=True)
    b, c, x, t = sp.symbols("b c x t", real=True)
    w = sp.Function("w")(x, t)
    alpha, beta = gauge(a, b, c)
    u = sp.exp(alpha * x + beta * t) * w
    left = sp.diff(u, t) - a * sp.diff(u, x, 2) - b * sp.diff(u, x) - c * u
    assert sp.simplify(left / sp.exp(alpha * x + beta * t) - (sp.diff(w, t) - a * sp.diff(w, x, 2))) == 0


def test_every_member_of_the_heat_family_solves_the_heat_equation():
    a, x, t = sp.Rational(1, 3), sp.Symbol("x", real=True), sp.Symbol("t", real=True)
    values = {sp.Symbol("C1"): sp.Rational(1, 5), sp.Symbol("C2"): 2, sp.Symbol("C3"): 3,
              sp.Symbol("C4"): 5, sp.Symbol("C5"): 7, sp.Symbol("C6"): 11, sp.Symbol("C7"): 13}
    for rate, profile in heat_terms(a, [sp.Rational(2, 5), sp.Integer(0), sp.Integer(-1)], x, t, t + sp.Rational(1, 2)):
        assert profile.has(sp.erf) and sp.Symbol("C1") in profile.free_symbols      # the shared jump point
        w = sp.exp(rate * x + a * rate**2 * t) * profile.xreplace(values)
        residual = sp.diff(w, t) - a * sp.diff(w, x, 2)
        for point in ((0.3, 0.7), (-1.1, 0.2), (2.0, 1.5)):
            assert abs(complex(residual.subs({x: point[0], t: point[1]}).evalf())) < 1e-12


def test_the_rates_come_from_the_data():
    assert rates(coordinates(load("put")), form("put")) == [0, 1]        # s and 1 in the put's data
    assert rates(coordinates(load("drift")), form("drift")) == [0]


def test_a_forced_or_nonlinear_equation_does_not_apply():
    assert "homogeneous" in parabolic(coordinates(load("drift", equation="u_t - u_xx/2 - u_x - x")))
    assert "homogeneous" in parabolic(coordinates(load("drift", equation="u_t - u_xx/2 - u*u_x")))
    assert "positive diffusion" in parabolic(coordinates(load("drift", equation="u_t + u_xx/2")))


def test_data_without_erf_leave_it_to_the_separable_solver():
    """``u_t = u_xx + u_x`` with ``u = x + t`` (the paper's Fokker-Planck 1): the family would only
    add candidates that Stage B spends seconds failing to fit."""
    text = (FIXTURES / "drift.toml").read_text().replace("(1 + erf((x + t)/sqrt(2*t + 2)))/2", "x + t")
    assert applies(problem_from_toml(text.replace("u_t - u_xx/2 - u_x", "u_t - u_xx - u_x"), "plain")) \
        == "no erf or erfc in the data"
    assert applies(load("drift")) == ""


def test_a_domain_that_holds_t_0_gets_only_the_shifted_start():
    (candidate,) = solve(coordinates(load("drift")))
    assert candidate["u"].has(sp.erf) and sp.Symbol("C4") in candidate["u"].free_symbols


def test_the_call_is_proposed_in_erf_of_log_s():
    found = propose(load("call"), time_limit=30.0, solvers=["parabolic"])
    assert found.origins == ["parabolic", "parabolic"], found.attempts
    assert all(c["V"].has(sp.erf) and c["V"].has(sp.log) for c in found.candidates)


def test_the_off_switch_leaves_it_out():
    found = propose(load("call"), time_limit=30.0, solvers=["parabolic"], reductions=False)
    assert not found.attempts and not found.candidates


@pytest.fixture(scope="module")
def registry():
    return load_registry()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["call", "put", "drift"])
def test_each_ends_proved_at_stage_0(name, registry, tmp_path):
    result = run(load(name), registry=registry, out=tmp_path / "r", plots=False)
    assert result.verdict == "proved" and result.teacher is None
    assert result.attempts[0].searchers == "sympy:parabolic"
