"""The reductions' methods (issue 36, item 5): the branch of the energy quadrature read from the data,
its level from the data or free, ``a(f) f'' = F(f, f'^2)`` through ``q = f'^2``, a dilation that makes
an Emden-Fowler ODE autonomous, similarity in a moving frame and the separated power-law form.
Each checks that a candidate *is* the known solution for some value of its free constants."""
import math

import pytest
import sympy as sp
from desyr_sympy.methods import similarity
from desyr_sympy.methods.energy import Energy
from desyr_sympy.shared import energy
from desyr_sympy.shared.forms import coordinates

from desyr.config.loading import load_problem
from desyr.plugin import problem_from_toml

X = sp.Symbol("x")


def ode(lhs, constraints, domain="[-3, 3]"):
    text = f'name = "p"\n[domain]\nx = {domain}\n[[equations]]\nlhs = "{lhs}"\n{constraints}'
    return problem_from_toml(text, "p")


def matches(candidates, field, reference, constants, points=(0.1, 0.4, 0.9, 1.3)):
    """True when some candidate equals ``reference`` at the points for the constants given."""
    def at(expr, point):      # by name: the solvers' variables carry assumptions the test's do not
        names = {s.name: v for s, v in point.items()} | constants
        return complex(sp.N(expr.xreplace({s: names[s.name] for s in expr.free_symbols if s.name in names})))

    for candidate in candidates:
        try:
            if all(abs(at(candidate[field], p) - at(reference, p)) < 1e-9 for p in points):
                return True
        except (TypeError, ValueError):
            continue
    return False


def value(at, v):
    return f'[[constraints]]\non = "x = {at}"\nvalue = "{v}"\n'


@pytest.mark.slow
def test_the_kink_between_two_saddles_is_tanh_not_coth():
    # u'' = 2u^3 - 2u: the data lie between the equilibria -1 and 1, where the orbit is tanh
    problem = ode("u_xx - 2*u**3 + 2*u", value(-3, "-tanh(3)") + value(3, "tanh(3)"))
    found = Energy().solve(problem)
    assert matches(found, "u", sp.tanh(X), {"C1": 0}, [{X: p} for p in (0.1, 0.4, 0.9)])


@pytest.mark.slow
def test_the_level_comes_from_a_value_and_a_slope_at_one_point():
    # Ermakov-Pinney u'' + u = u^-3 with u(0) = 1/sqrt(2), u'(0) = 0: no saddle, E = 5/4 from the data
    problem = ode("u_xx + u - 1/u**3", value(0, "1/sqrt(2)") + '[[constraints]]\noperator = "u_x"\non = "x = 0"\nvalue = 0\n',
                  "[0, 3]")
    reference = sp.sqrt(sp.cos(X) ** 2 / 2 + 2 * sp.sin(X) ** 2)
    assert matches(Energy().solve(problem), "u", reference, {"C1": -sp.pi / 4}, [{X: p} for p in (0.1, 0.4, 0.9)])


@pytest.mark.slow
def test_a_free_level_is_left_to_stage_b_when_no_level_is_known():
    # Bratu u'' + 2 e^u = 0 with symmetric values only: the level (here 4) stays a free constant C2
    problem = ode("u_xx + 2*exp(u)", '[[constraints]]\non = ["x = -1", "x = 1"]\nvalue = "-2*log(cosh(1))"\n', "[-1, 1]")
    reference = -2 * sp.log(sp.cosh(X))
    assert matches(Energy().solve(problem), "u", reference, {"C1": sp.log(8), "C2": 4}, [{X: p} for p in (0.1, 0.4, 0.9)])


@pytest.mark.slow
def test_a_dilation_makes_lane_emden_autonomous():
    # x u'' + 2u' + x u^5 = 0 keeps its form under x -> l x, u -> u/sqrt(l): u = x**(-1/2) w(log x)
    problem = ode("x*u_xx + 2*u_x + x*u**5", value(0, 1) + '[[constraints]]\noperator = "u_x"\non = "x = 0"\nvalue = 0\n',
                  "[0, 2]")
    assert Energy().applies(problem) == ""
    assert energy.dilation(sp.Symbol("F2") * X + 2 * sp.Symbol("F1") + X * sp.Symbol("F0") ** 5,
                           sp.symbols("F0 F1 F2"), X) == sp.Rational(-1, 2)
    reference = 1 / sp.sqrt(1 + X**2 / 3)
    assert matches(Energy().solve(problem), "u", reference, {"C1": -math.log(3) / 2}, [{X: p} for p in (0.1, 0.4, 0.9)])


FS = sp.symbols("F0:7")


@pytest.mark.slow
def test_f_times_f_second_plus_squared_slope_goes_through_q():
    # f f'' + f'^2 + f = 0 (the porous medium's separated profile): q = C/f^2 - 2f/3
    u, level = sp.Symbol("u"), sp.Symbol("E")
    q = energy.squared_slope(FS[0] * FS[2] + FS[1] ** 2 + FS[0], FS, u, level)
    assert sp.simplify(q - (level / u**2 - 2 * u / 3)) == 0


def test_an_odd_power_of_the_slope_is_not_taken():
    assert energy.squared_slope(FS[2] + FS[1] + FS[0] ** 2, FS, sp.Symbol("u"), sp.Symbol("E")) is None


@pytest.mark.slow
def test_the_separated_profile_is_a_parabola():
    fs = FS
    found = [{"u": e} for e in energy.profiles(fs[0] * fs[2] + fs[1] ** 2 + fs[0], fs, X)]
    assert matches(found, "u", -X**2 / 6, {"C1": 0}, [{X: p} for p in (0.1, 0.4, 0.9)])


@pytest.fixture(scope="module")
def handbook(registry):
    return lambda name: coordinates(load_problem(f"handbook:{name}", registry))


def test_advection_scales_in_a_moving_frame_and_the_porous_medium_without_x(handbook):
    assert similarity.exponents(handbook("advection_gaussian"))[0] == (sp.Rational(-1, 2), sp.Rational(1, 2), True)
    assert (-1, 0, False) in similarity.exponents(handbook("porous_medium"))


@pytest.mark.slow
def test_a_moving_frame_gives_the_spreading_gaussian(handbook):
    # u_t + u_x = u_xx/10: no scaling, but in the frame x - t the heat equation's similarity form
    problem = handbook("advection_gaussian")
    t = sp.Symbol("t")
    reference = sp.exp(-5 * (X - t) ** 2 / (2 * (t + 1))) / sp.sqrt(t + 1)
    points = [{X: a, t: b} for a, b in ((0.1, 0.2), (0.7, 0.5), (-0.4, 0.9))]
    assert matches(similarity.Similarity().solve(problem), "u", reference, {"C1": 1, "C2": 1, "C3": -1}, points)


@pytest.mark.slow
def test_the_initial_data_fix_a_shift_past_the_blow_up(handbook):
    # u_t = (u u_x)_x: the separated (t + t0)**-1 X(x) with t0 = -2 lies across the singularity from
    # any start a refit could take; the data at t = 0 give t0 and the offset exactly
    t = sp.Symbol("t")
    found = [c for c in similarity.Similarity().solve(handbook("porous_medium")) if not {"C1", "C2"} & {s.name for s in c["u"].free_symbols}]
    points = [{X: a, t: b} for a, b in ((0.1, 0.2), (0.7, 0.5), (-0.4, 0.9))]
    assert matches(found, "u", X**2 / (6 * (2 - t)), {}, points)
