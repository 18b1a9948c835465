"""Stage 0's generalised separation (issue 36, item 5): ``u = f(x) + g(y)`` and ``u = f(x)*g(t)`` for
one nonlinear equation in two variables, and radial solutions of a nonlinear rotation-invariant
equation on a disk through a dilation with a shift (Liouville).  Each reduction's candidates solve the
equation for every value of their constants, the refit and the verifier prove them on problems
written here, and the solvers decline where they do not apply."""
from __future__ import annotations

import pytest
import sympy as sp
from desyr_sympy.methods.radial import Radial
from desyr_sympy.methods.separation import Separation
from desyr_sympy.shared import energy, lowering
from desyr_sympy.shared.ansatz import profile
from desyr_sympy.shared.candidates import free_constants, real_start
from desyr_sympy.shared.forms import coordinates

from desyr.api import refine
from desyr.extension.registry import load_registry
from desyr.plugin import problem_from_toml

#: the minimal surface equation, Scherk's surface at another scale: f''/(1 + f'**2) = 2 = -g''/(1 + g'**2)
ADDITIVE = """
name = "scherk_scaled"
[domain]
x = [-0.5, 0.5]
y = [-0.5, 0.5]
[[equations]]
lhs = "(1 + u_y**2)*u_xx - 2*u_x*u_y*u_xy + (1 + u_x**2)*u_yy"
[[constraints]]
on = "boundary"
value = "reference"
[reference]
u = "log(cos(2*y)/cos(2*x))/2"
"""

#: (x**2 + 1)/(6 - 2*t): g'/g**2 = f'' = 2
PRODUCT = """
name = "product_diffusion"
time = "t"
[domain]
x = [0, 1]
t = [0, 1]
[[equations]]
lhs = "u_t - u*u_xx"
[[constraints]]
on = "boundary"
value = "reference"
[[constraints]]
on = "initial"
value = "reference"
[reference]
u = "(x**2 + 1)/(6 - 2*t)"
"""

#: Liouville's other sign, Delta u = exp(u): log(16/(2 - r**2)**2) on the unit disk
LIOUVILLE = """
name = "liouville_plus"
[domain]
shape = "disk(center=(0, 0), radius=1)"
[[equations]]
lhs = "u_xx + u_yy - exp(u)"
[[constraints]]
on = "circle"
value = "log(16)"
[reference]
u = "log(16/(2 - x**2 - y**2)**2)"
"""

BURGERS = """
name = "burgers_like"
time = "t"
[domain]
x = [0, 1]
t = [0, 1]
[[equations]]
lhs = "u_t + u*u_x - u_xx/10"
[[constraints]]
on = "initial"
value = "sin(x)"
"""


def load(text: str):
    return coordinates(problem_from_toml(text, "test"))


def solves(problem, expr: sp.Expr) -> bool:
    """Whether ``expr`` (its constants at their starting floats) makes the equation's residual vanish
    at points of the domain's box, to rounding."""
    (x, y) = problem.symbols
    u = sp.Function("u")(x, y)
    residual = problem.equations[0].residual
    values = {problem.jet_symbol(j): u.diff(*[problem.vocabulary.var_symbols[v] for v in j.wrt]) if j.wrt else u
              for j in problem.jets()}
    check = residual.xreplace(values).subs(u, expr).doit()
    (lo, hi), (lo2, hi2) = problem.bounds
    points = [(lo + (hi - lo) * a, lo2 + (hi2 - lo2) * b) for a, b in ((0.3, 0.6), (0.7, 0.2), (0.55, 0.45))]
    return all(abs(complex(check.subs({x: px, y: py}).evalf())) < 1e-8 for px, py in points)


@pytest.mark.parametrize("text", [pytest.param(ADDITIVE, marks=pytest.mark.slow), PRODUCT])
def test_a_separable_equation_gives_a_family_that_solves_it(text):
    problem = load(text)
    assert Separation().applies(problem) == ""
    found = Separation().solve(problem)
    assert found and all(solves(problem, c["u"]) for c in found)


def test_the_separation_constant_and_the_integration_constants_stay_free():
    candidate = Separation().solve(load(PRODUCT))[0]["u"]
    # as floats Stage B refits: the separation constant and two of integration at least
    assert not candidate.free_symbols - set(load(PRODUCT).symbols)
    assert len({abs(f) for f in candidate.atoms(sp.Float)}) >= 3


def test_total_derivatives_and_missing_profiles_lower_the_order_without_dsolve():
    fs, x, c = profile("F"), sp.Symbol("x"), sp.Symbol("c")
    # (exp(f))'' = c: twice a total derivative, then algebraic
    (f,) = lowering.solve(sp.exp(fs[0]) * (fs[2] + fs[1]**2) - c, fs, x, lowering.Constants())
    assert sp.simplify(sp.exp(f).diff(x, 2) - c) == 0
    # atan(f')' = c: f = -log(cos(c*x + C1))/c + C2, in the form manual integration gives
    (g,) = lowering.solve(fs[2] / (1 + fs[1]**2) - c, fs, x, lowering.Constants())
    assert g.has(sp.cos) and not g.has(sp.tan)


def test_the_starting_constants_make_a_logarithm_real_on_the_domain():
    problem = load(PRODUCT)
    x, t = problem.symbols
    c1, c2 = sp.symbols("C1 C2")
    started = real_start(sp.log(-c1 * x - c2), problem)
    assert not started.free_symbols - {x, t}
    assert all(started.subs(x, v).is_real for v in (0, 0.5, 1))


def test_separation_declines_where_it_does_not_apply():
    assert "separates" in Separation().applies(load(BURGERS))
    assert "linear" in Separation().applies(load(ADDITIVE.replace("lhs = \"(1 + u_y**2)*u_xx", "lhs = \"u_xx")
                                                   .replace(" - 2*u_x*u_y*u_xy + (1 + u_x**2)*u_yy", " + u_yy")))
    assert Radial().applies(load(ADDITIVE)) == "not a disk or an annulus"


def test_the_shifted_dilation_of_liouville_and_its_regular_level():
    fs, r = profile("R"), sp.Symbol("r", positive=True)
    assert energy.shift_dilation(r * fs[2] + fs[1] + r * sp.exp(fs[0]), fs, r) == -2
    assert energy.shift_dilation(fs[2] + fs[0] * sp.exp(fs[0]), fs, r) is None     # u outside exp
    assert energy.shift_dilation(fs[2] + fs[1]**2, fs, r) is None                  # no exp: no shift


def test_radial_declines_angle_dependent_data_and_linear_equations():
    assert Radial().applies(load(LIOUVILLE.replace('value = "log(16)"', 'value = "x"'))) == "the data depend on the angle"
    assert "linear" in Radial().applies(load(LIOUVILLE.replace(" - exp(u)", " - 1")))


@pytest.mark.slow
def test_radial_gives_a_family_regular_at_the_centre_that_solves_liouville():
    problem = load(LIOUVILLE)
    assert Radial().applies(problem) == ""
    found = Radial().solve(problem)
    assert found and all(solves(problem, c["u"]) for c in found)


@pytest.fixture(scope="module")
def registry():
    return load_registry()


@pytest.mark.slow
@pytest.mark.parametrize(("text", "solver"), [(ADDITIVE, Separation().solve), (PRODUCT, Separation().solve),
                                              (LIOUVILLE, Radial().solve)])
def test_the_candidates_end_proved(text, solver, registry, tmp_path, monkeypatch):
    problem = problem_from_toml(text, "test")
    texts = [{f: str(e) for f, e in free_constants(c).items()} for c in solver(coordinates(problem))]
    monkeypatch.chdir(tmp_path)
    assert refine(problem, texts, registry=registry, plots=False).verdict == "proved"
