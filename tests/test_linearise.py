"""Stage 0's linearising substitutions (issue 36, item 5): the Cole-Hopf family makes Burgers-type,
potential-Burgers-type and power-type equations linear; the linear equation's solutions, evolved
from the data or free for Stage B, are mapped back.  Problems written here, not only bundled ones."""
from __future__ import annotations

import pytest
import sympy as sp
from desyr_sympy import propose
from desyr_sympy.methods.linearise import Linearise
from desyr_sympy.shared.forms import coordinates, residuals
from desyr_sympy.shared.linear_families import families, from_data
from desyr_sympy.shared.linearise import substitutions
from helpers import line_problem

from desyr.api import refine
from desyr.extension.registry import load_registry

applies, solve = Linearise().applies, Linearise().solve

x, t, y = sp.symbols("x t y", real=True)


problem = line_problem


#: u = -(2/3)*phi_x/phi, phi_t + phi_x = phi_xx/3, phi = 1 + exp(2*x - 2*t/3): a front carried along
ADVECTED = problem("u_t + u*u_x + u_x - u_xx/3", "-4*exp(2*x)/(3*(1 + exp(2*x)))",
                   "-4*exp(2*x - 2*t/3)/(3*(1 + exp(2*x - 2*t/3)))")
#: u = log(phi)/3, phi_t = phi_xx, phi = x**2 + 2*t + 1: a heat polynomial
LOGARITHMIC = problem("u_t - u_xx - 3*u_x**2", "log(x**2 + 1)/3", "log(x**2 + 2*t + 1)/3")
#: u = sqrt(phi), phi_t = phi_xx, phi = 2 + exp(-t)*cos(x)
POWER = problem("u_t - u_xx - u_x**2/u", "sqrt(2 + cos(x))", "sqrt(2 + exp(-t)*cos(x))")
#: u = log(phi) with phi harmonic: no time, no data line, the polynomial families
HARMONIC = problem("u_xx + u_yy + u_x**2 + u_y**2", None, "log(x**2 - y**2 + 3)",
                   domain="x = [0, 1]\ny = [0, 1]", time=False)


def exact(made, candidate: dict[str, sp.Expr]) -> bool:
    """Whether the candidate satisfies the equation identically (a symbolic check, fast)."""
    residual = residuals(made)[0]
    jets = {made.jet_symbol(j): j for j in made.jets()}
    names = made.vocabulary.var_symbols
    values = {s: sp.diff(candidate["u"], *[names[v] for v in j.wrt]) if j.wrt else candidate["u"]
              for s, j in jets.items()}
    return sp.simplify(residual.xreplace(values)) == 0


def test_burgers_with_advection_is_linearised_by_the_gradient_of_a_logarithm():
    (found,) = substitutions(coordinates(ADVECTED))
    # -3*phi_t + phi_xx - 3*phi_x = 0 up to a factor: phi_t + phi_x = phi_xx/3
    assert found.kind == "gradient" and found.alpha == sp.Rational(-2, 3) and found.beta == 0
    ratio = {k: sp.simplify(c / found.operator[(0, 1)]) for k, c in found.operator.items()}
    assert ratio == {(0, 1): 1, (1, 0): 1, (2, 0): sp.Rational(-1, 3)}


def test_the_data_evolve_to_an_exact_candidate():
    made = coordinates(ADVECTED)
    (found,) = substitutions(made)
    (phi,) = from_data(made, found)
    assert sp.simplify(phi / phi.subs(t, 0) - (1 + sp.exp(2 * x - 2 * t / 3)) / (1 + sp.exp(2 * x))) == 0
    (candidate,) = solve(made)
    assert exact(made, candidate)


@pytest.mark.parametrize("made, kind, alpha", [(LOGARITHMIC, "log", sp.Rational(1, 3)),
                                               (POWER, "power", sp.Rational(1, 2))])
def test_logarithm_and_power_substitutions(made, kind, alpha):
    made = coordinates(made)
    (found,) = substitutions(made)
    assert (found.kind, found.alpha) == (kind, alpha) and applies(made) == ""
    (candidate,) = solve(made)
    assert exact(made, candidate) and not candidate["u"].atoms(sp.Float)


def test_without_a_data_line_the_families_have_free_constants_and_one_fixed():
    made = coordinates(HARMONIC)
    (found,) = substitutions(made)
    assert found.kind == "log" and from_data(made, found) == []
    linear, quadratic = families(made, found)
    # C0 + C*x + C'*y and a harmonic quadratic: log(phi) sees phi's factor, so the constant term
    # is free too (log(x**2 - y**2 + 3) is log(3) + log(1 + (x**2 - y**2)/3), and beta is 0)
    assert sp.Poly(quadratic, x, y).total_degree() == 2 and sp.Poly(linear, x, y).total_degree() == 1
    assert all(isinstance(p.as_coefficients_dict()[1], sp.Float) for p in (linear, quadratic))
    assert len({abs(f) for f in quadratic.atoms(sp.Float)}) == 5        # 1, x, y, x**2 - y**2, x*y
    assert all(sp.simplify(sp.diff(p, x, 2) + sp.diff(p, y, 2)) == 0 for p in (linear, quadratic))
    assert all(float(p.subs({x: a, y: b})) > 0 for p in (linear, quadratic) for a in (0, 1) for b in (0, 1))


def test_heat_families_hold_a_heat_polynomial_and_two_modes():
    made = coordinates(LOGARITHMIC)
    (found,) = substitutions(made)
    *_, modes = families(made, found)
    for phi in families(made, found):
        assert sp.simplify(sp.diff(phi, t) - sp.diff(phi, x, 2)) == 0
    assert len(modes.atoms(sp.exp)) == 2


def test_through_a_gradient_the_scale_gauge_fixes_the_constant_term_to_1():
    """u = alpha*phi_x/phi does not see phi's factor: one coefficient fixed, or Stage B has a free
    direction; the constant term, since a fixed leading coefficient would leave out every solution
    without that term."""
    made = coordinates(ADVECTED)
    (found,) = substitutions(made)
    linear, quadratic, modes = families(made, found)
    for phi in (linear, quadratic, modes):
        constant = phi.as_coefficients_dict()[1]
        assert constant == 1 and isinstance(constant, sp.Integer)
        image = -3 * sp.diff(phi, t) - 3 * sp.diff(phi, x) + sp.diff(phi, x, 2)
        assert all(abs(float(image.subs({x: a, t: b}))) < 1e-12 for a in (-1, 0.3) for b in (0, 0.7))


@pytest.mark.parametrize("equation, why", [
    ("u_t - u_xx - 2*u + 2*u**3", "no substitution"),        # Allen-Cahn: alpha**2 = -1 or no linear form
    ("u_t + 6*u*u_x + u_xxx", "no substitution"),             # KdV: bilinear (Hirota), not linear
    ("u_t - exp(u)*(u_xx + u_x**2)", "not rational"),      # exponential diffusivity
    ("u_t - u_xx", "linear"),
    ("u_t + u*u_x - x*u_xx", "depend on the variables"),
    ("u_t + u*u_x - u_xxxxx", "beyond order 4"),
])
def test_it_declines_where_it_does_not_apply(equation, why):
    assert why in applies(coordinates(problem(equation, "tanh(x)", "tanh(x)")))


def test_propose_names_it_and_the_off_switch_leaves_it_out():
    found = propose(ADVECTED, time_limit=30.0, solvers=["linearise"])
    assert found.origins == ["linearise"], found.attempts
    assert not propose(ADVECTED, time_limit=30.0, solvers=["linearise"], reductions=False).attempts


@pytest.mark.slow
@pytest.mark.parametrize("made", [ADVECTED, LOGARITHMIC, POWER, HARMONIC])
def test_the_verifier_proves_the_candidates(made):
    found = propose(made, time_limit=30.0, solvers=["linearise"])
    texts = [{f: str(e) for f, e in c.items()} for c in found.candidates]
    assert refine(made, texts, registry=load_registry(), plots=False).verdict == "proved"
