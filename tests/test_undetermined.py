"""Stage 0 by undetermined coefficients (issue 36): a linear equation whose source is a closed form is
solved in a basis built from the source's own functions (its terms, their derivatives, the
antiderivatives of their factors, times low-degree monomials), the coefficients fitted exactly.  The
issue's -Delta u = 2 pi**2 sin(pi x) sin(pi y) and problems written here are Proved; the solver declines
where there is no source or the equation is not linear."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
import sympy as sp
from desyr_sympy import propose
from desyr_sympy.methods.undetermined import Undetermined
from desyr_sympy.plugin import SOLVER_NAMES
from desyr_sympy.shared.coefficients import MAX_BASIS, stand_ins, trial_basis
from desyr_sympy.shared.forms import coordinates

from desyr.api import refine
from desyr.extension.registry import load_registry
from desyr.plugin import problem_from_toml
from desyr.verify.request import make_request
from desyr.verify.verdict import decide

applies, solve = Undetermined().applies, Undetermined().solve
ROOT = Path(__file__).resolve().parents[1]


#: the issue's example: the source names sin, the answer is its product of sines, zero on the square
SINES = """
name = "poisson_sines"
[domain]
x = [-1, 1]
y = [-1, 1]
[[equations]]
lhs = "-(u_xx + u_yy)"
rhs = "2*pi**2*sin(pi*x)*sin(pi*y)"
[[constraints]]
on = "boundary"
value = 0
[reference]
u = "sin(pi*x)*sin(pi*y)"
"""

#: a Helmholtz-type equation whose source holds a rational term that only log(1 + x**2 + y**2) produces
RATIONAL_LOG = """
name = "helmholtz_log"
[domain]
x = [0, 1]
y = [0, 1]
[[equations]]
lhs = "u_xx + u_yy + u"
rhs = "4/(1 + x**2 + y**2)**2 + log(1 + x**2 + y**2)"
[[constraints]]
on = "boundary"
value = "reference"
[reference]
u = "log(1 + x**2 + y**2)"
"""

#: three variables, a variable coefficient and a product of three atoms
DRIFT = """
name = "drift_3d"
time = "t"
[domain]
x = [0, 1]
y = [0, 1]
t = [0, 1]
[[equations]]
lhs = "u_t - u_xx - u_yy + x*u_x"
rhs = "x*exp(y - 2*t)*cos(x) - 2*exp(y - 2*t)*sin(x)"
[[constraints]]
on = "boundary"
value = "reference"
[reference]
u = "exp(y - 2*t)*sin(x)"
"""

#: resonance: the source is a solution of the homogeneous equation, the answer carries a factor x; the
#: data need a homogeneous part, cos(x)
RESONANT = """
name = "resonant"
[domain]
x = [0, 3]
[[equations]]
lhs = "u_xx + u"
rhs = "2*cos(x)"
[[constraints]]
on = "x = 0"
value = 1
[[constraints]]
on = "x = 0"
operator = "u_x"
value = 0
[reference]
u = "cos(x) + x*sin(x)"
"""


def load(text: str, lhs: str | None = None, rhs: str | None = None):
    lines = text.splitlines()
    if lhs is not None:
        lines = [f'lhs = "{lhs}"' if line.startswith("lhs =") else line for line in lines]
    if rhs is not None:
        lines = [f'rhs = "{rhs}"' if line.startswith("rhs =") else line for line in lines]
    return problem_from_toml("\n".join(lines), "test")


def proved(problem, candidate) -> bool:
    answer = decide(make_request(problem, {f: str(e) for f, e in candidate.items()}, None, 4))
    return answer["verdict"] == "proved"


@pytest.mark.parametrize("text, answer", [
    pytest.param(SINES, "sin(pi*x)*sin(pi*y)", id="sines"),
    pytest.param(RATIONAL_LOG, "log(1 + x**2 + y**2)", id="rational_log", marks=pytest.mark.slow),
    pytest.param(DRIFT, "exp(y - 2*t)*sin(x)", id="drift"),
])
def test_the_particular_solution_is_the_manufactured_one_and_is_proved(text, answer):
    problem = load(text)
    candidates = solve(coordinates(problem))
    assert sp.simplify(candidates[0]["u"] - sp.sympify(answer, locals={s.name: s for s in problem.symbols})) == 0
    assert proved(problem, candidates[0])


def test_resonance_gets_a_monomial_factor_and_the_data_fix_the_homogeneous_part():
    problem = load(RESONANT)
    x = problem.symbols[0]
    # cos(x) and sin(x) span the homogeneous solutions inside the basis; the two conditions at x = 0 fix them
    (answer,) = solve(coordinates(problem))
    assert sp.simplify(answer["u"] - (sp.cos(x) + x * sp.sin(x))) == 0 and proved(problem, answer)
    # one condition fixes one combination: the other stays a free constant for Stage B
    particular, general = solve(coordinates(load(RESONANT.split('[[constraints]]\non = "x = 0"\noperator')[0])))
    assert particular["u"] == x * sp.sin(x) and not proved(problem, particular)
    assert {s.name for s in general["u"].free_symbols} == {"x", "C2"} and general["u"].has(sp.cos(x))


@pytest.mark.slow
def test_the_data_fix_the_homogeneous_part_through_stage_0(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # refine's cache folder
    problem = load(RESONANT)
    candidates = propose(problem, solvers=["undetermined"]).candidates
    assert len(candidates) == 1
    result = refine(problem, [{f: str(e) for f, e in c.items()} for c in candidates], registry=load_registry(), plots=False)
    assert result.verdict == "proved"


def test_a_particular_solution_that_meets_the_data_comes_alone():
    assert len(solve(coordinates(load(SINES)))) == 1
    # the constant 1 is a homogeneous solution in the basis, matched to the data exactly
    ((shifted,),) = [[c["u"] for c in solve(coordinates(load(SINES.replace("value = 0", "value = 1"))))]]
    x, y = sp.symbols("x y", real=True)
    assert sp.simplify(shifted - sp.sin(sp.pi * x) * sp.sin(sp.pi * y) - 1) == 0


def test_the_log_comes_from_integrating_the_rational_term_of_the_source():
    x, y = sp.symbols("x y")
    basis = trial_basis(2 / (2 + x + y)**2 - (x**2 + y**2) * sp.exp(x * y), [x, y], 2)
    assert sp.log(x + y + 2) in basis and sp.exp(x * y) in basis and 1 / (x + y + 2) in basis
    assert len(basis) <= MAX_BASIS


def test_exponentials_of_one_rate_share_their_symbol():
    x, t = sp.symbols("x t")
    found = stand_ins(sp.exp(-t) + sp.exp(t) + sp.exp(x / 2 + t) + sp.exp(x), {x, t})
    e_t = found[sp.exp(t)]
    assert found[sp.exp(-t)] == 1 / e_t and found[sp.exp(x)] == found[sp.exp(x / 2 + t)].as_independent(e_t)[0] ** 2


def test_a_source_no_basis_function_answers_is_declined():
    problem = coordinates(load(SINES, rhs="exp(x**2)"))
    with pytest.raises(NotImplementedError, match="no combination"):
        solve(problem)


@pytest.mark.parametrize("lhs, rhs, why", [
    ("-(u_xx + u_yy)", "0", "no source"),
    ("-(u_xx + u_yy) + u**2", "sin(pi*x)", "not linear"),
    ("-(u_xx + u_yy) + u_x*u", "1", "not linear"),
])
def test_it_does_not_apply_without_a_source_or_to_a_nonlinear_equation(lhs, rhs, why):
    problem = coordinates(load(SINES, lhs=lhs, rhs=rhs))
    began = time.process_time()
    assert why in applies(problem)
    assert time.process_time() - began < 0.5


@pytest.mark.slow
def test_it_is_registered_as_a_reduction_and_proposes_through_stage_0():
    problem = load(RATIONAL_LOG)
    found = propose(problem, solvers=["undetermined"])
    assert found.origins and set(found.origins) == {"undetermined"}, found.attempts
    assert proved(problem, found.candidates[0])
    assert not propose(problem, solvers=["undetermined"], reductions=False).attempts
    assert "undetermined" in SOLVER_NAMES      # a config may name it in [solvers.options.sympy] solvers


ODE = """
name = "ode"
[domain]
x = [1, 2]
[[equations]]
lhs = "u_xx"
rhs = "1/x**2"
[[constraints]]
on = "x = 1"
value = 0
"""


@pytest.mark.parametrize("rhs, answer", [("1/x**2", "-log(x)"), ("sqrt(x)", "4*x**(5/2)/15"), ("x**(-3/2)", "-4*sqrt(x)")])
def test_powers_of_a_variable_integrate_and_share_their_root(rhs, answer):
    problem = coordinates(load(ODE, rhs=rhs))
    particular = solve(problem)[0]["u"]
    assert sp.simplify(particular - sp.sympify(answer, locals={"x": problem.symbols[0]})) == 0


def test_a_polynomial_source_gets_a_basis_of_its_degree_plus_the_operators_order():
    # issue 47: SSDE's Jin-1, u_xx + u_yy = 30*x**2 - 7.8*x + 1; the basis stopped at degree 3 and stage 0
    # proposed only a wrong separable form
    x, y = sp.symbols("x y", real=True)
    assert x**4 in trial_basis(30 * x**2 - sp.Rational(39, 5) * x + 1, [x, y], 2)
    found = solve(coordinates(problem_from_toml((ROOT / "bench/peers/ssde/jin1_poisson2d.toml").read_text(), "jin1")))
    assert any(sp.expand(c["u"] - (sp.Rational(5, 2) * x**4 - sp.Rational(13, 10) * x**3 + y**2 / 2
                                   - sp.Rational(17, 10) * y)) == 0 for c in found)
    # three variables: a degree whose monomials pass the basis's size is lowered, never dropped
    z = sp.Symbol("z", real=True)
    assert len(trial_basis(x**4 * y + z, [x, y, z], 2)) <= MAX_BASIS and trial_basis(x**4 * y + z, [x, y, z], 2)
