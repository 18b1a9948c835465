"""Stage 0's tanh / exp-function method (issue 36, item 5): fronts polynomial in ``1/(1 + exp(xi))``
for equations whose profile ODE has a first-derivative term (Fisher-KPP, Nagumo, Burgers-type), on a
line, in the plane along a free direction, and for systems; strict ``applies`` elsewhere."""
from __future__ import annotations

import pytest
import sympy as sp
from desyr_sympy import propose
from desyr_sympy.methods.fronts import Fronts
from desyr_sympy.shared.forms import coordinates, jet_symbols, residuals

from desyr.api import run
from desyr.extension.registry import load_registry
from desyr.plugin import problem_from_toml

#: the profile ODE of a front: u = 1/(1 + 2*exp(-x)) solves it (u' = u(1 - u))
ODE = '''name = "ode_front"
[domain]
x = [-2, 2]
[[equations]]
lhs = "u_xx - 3*u_x + 2*u - 2*u**3"
[[constraints]]
on = ["x = -2", "x = 2"]
value = "reference"
[reference]
u = "1/(1 + 2*exp(-x))"
'''

#: Burgers-Fisher u_t + u u_x = u_xx + u (1 - u): the front 1/(1 + exp(x/2 - 5 t/4))
BURGERS_FISHER = '''name = "burgers_fisher"
time = "t"
[domain]
x = [-2, 2]
t = [0, 1]
[[equations]]
lhs = "u_t + u*u_x - u_xx - u*(1 - u)"
[[constraints]]
on = "boundary"
value = "reference"
[[constraints]]
on = "initial"
value = "1/(1 + exp(x/2))"
[reference]
u = "1/(1 + exp(x/2 - 5*t/4))"
'''

#: Fisher-KPP in the plane: an oblique front 1/(1 + exp(...))**2 along a direction the algebra leaves free
FISHER_PLANE = '''name = "fisher_plane"
time = "t"
[domain]
x = [0, 1]
y = [0, 1]
t = [0, 1]
[[equations]]
lhs = "u_t - u_xx - u_yy - 6*u*(1 - u)"
[[constraints]]
on = "initial"
value = "1/(1 + exp((4*x - 3*y)/5))**2"
'''

ONLY_FRONTS = '\n[solvers.options.sympy]\nsolvers = ["fronts"]\n'


def problem(text: str):
    return coordinates(problem_from_toml(text, "front"))


def residual_of(text: str, candidate: dict[str, sp.Expr]) -> list[sp.Expr]:
    """Each equation with the candidate put in, its free constants kept symbolic."""
    p = problem(text)
    names = p.vocabulary.var_symbols
    values = {s: sp.diff(candidate[j.field], *(names[v] for v in j.wrt)) if j.wrt else candidate[j.field]
              for s, j in jet_symbols(p).items()}
    return [sp.simplify(r.xreplace(values)) for r in residuals(p)]


@pytest.mark.parametrize("text", [ODE, BURGERS_FISHER])
def test_every_candidate_solves_the_equation_for_all_its_constants(text):
    found = Fronts().solve(problem(text))
    assert found
    for candidate in found:
        assert residual_of(text, candidate) == [0], candidate
        assert sp.Symbol("C1") in candidate["u"].free_symbols      # the shift, free for Stage B


def test_the_ode_front_is_the_logistic_profile():
    p = problem(ODE)
    found = Fronts().solve(p)
    (x,), shift = p.symbols, sp.Symbol("C1")
    assert any(sp.simplify(c["u"] - 1 / (1 + sp.exp(shift - x))) == 0 for c in found), found


def test_a_mirror_image_is_not_proposed_twice():
    found = Fronts().solve(problem(BURGERS_FISHER))   # 1/(1 + exp(xi)) and 1 - 1/(1 + exp(-xi)): one front
    assert len(found) == 1


@pytest.mark.slow
def test_an_oblique_front_keeps_its_direction_free_and_real():
    found = Fronts().solve(problem(FISHER_PLANE))
    assert found
    for candidate in found:
        assert residual_of(FISHER_PLANE, candidate) == [0]
        assert not candidate["u"].has(sp.sqrt(-1)) and not any(
            p.exp == sp.S.Half for p in candidate["u"].atoms(sp.Pow) if p.base.has(sp.Symbol("C2")))
    variables = set(problem(FISHER_PLANE).symbols)
    assert any(len(c["u"].free_symbols - variables) == 2 for c in found)   # shift, direction


@pytest.mark.parametrize(("lhs", "why"), [
    ("u_t - u_xx", "linear"),
    ("u_t + 6*u*u_x + u_xxx", "reversible"),                 # KdV: the energy integral's, via waves
    ("u_t - u_xx - sin(u)", "not polynomial"),
    ("u_t - u_xx - x*u*(1 - u)", "depends on the variables"),
])
def test_it_declines_what_it_cannot_help(lhs, why):
    text = f'name = "n"\ntime = "t"\n[domain]\nx = [-1, 1]\nt = [0, 1]\n[[equations]]\nlhs = "{lhs}"\n'
    assert why in Fronts().applies(problem(text))


def test_it_declines_a_first_order_ode_and_data_no_front_takes():
    logistic = 'name = "l"\ntime = "t"\n[domain]\nt = [0, 4]\n[[equations]]\nlhs = "u_t - u*(1 - u)"\n'
    assert "first-order" in Fronts().applies(problem(logistic))
    sine = BURGERS_FISHER.replace('value = "1/(1 + exp(x/2))"', 'value = "sin(pi*x)"')
    assert "no front takes" in Fronts().applies(problem(sine))
    assert Fronts().applies(problem(BURGERS_FISHER)) == ""


def test_it_is_a_reduction_the_off_switch_leaves_out():
    found = propose(problem_from_toml(BURGERS_FISHER, "bf"), time_limit=10.0, reductions=False,
                    solvers=["fronts", "travelling"])
    assert [a.solver for a in found.attempts] == ["travelling"]


@pytest.fixture(scope="module")
def registry():
    return load_registry()


@pytest.mark.slow
@pytest.mark.parametrize("text", [ODE, BURGERS_FISHER])
def test_its_front_alone_ends_proved_at_stage_0(text, registry, tmp_path):
    result = run(problem_from_toml(text + ONLY_FRONTS, "front"), registry=registry, out=tmp_path / "r", plots=False)
    assert result.verdict == "proved" and result.teacher is None
    assert result.attempts[0].searchers == "sympy:fronts"
