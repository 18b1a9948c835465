"""Stage 0's overdetermined linear pair (issue 36, item 5): ``u = alpha*phi_x/phi + beta`` with ``phi``
solving ``phi_t = A*phi_xx + B*phi_x`` and ``phi_xxx = C2*phi_xx + C1*phi_x + C0*phi`` gives the
merging fronts of reaction-diffusion equations with a cubic source.  Problems written here (each
reference checked symbolically below), and the bundled Allen-Cahn one."""
from __future__ import annotations

import pytest
import sympy as sp
from desyr_sympy.methods import pair
from desyr_sympy.propose import propose
from desyr_sympy.shared.forms import coordinates, residuals
from helpers import line_problem

from desyr.api import refine
from desyr.extension.registry import load_registry

PAIR = pair.Pair()

problem = line_problem


#: Newell-Whitehead: alpha = sqrt(2), phi = 1 + 2*exp(3*t/2)*cosh(x/sqrt(2)), two fronts that merge
NEWELL_WHITEHEAD = problem("u_t - u_xx - u + u**3", "sinh(sqrt(2)*x/2)/(cosh(sqrt(2)*x/2) + 1)",
                           "sinh(sqrt(2)*x/2)/(cosh(sqrt(2)*x/2) + exp(-3*t/2))")
#: Nagumo with a = 1/4: phi = 1 + exp(x + t/2) + exp(x/4 - 7*t/16), a front to 1/4 and one to 1
NAGUMO = problem("u_t - u_xx - 2*u*(1 - u)*(u - 1/4)", "(exp(x) + exp(x/4)/4)/(1 + exp(x) + exp(x/4))",
                 "(exp(x + t/2) + exp(x/4 - 7*t/16)/4)/(1 + exp(x + t/2) + exp(x/4 - 7*t/16))")
#: no data at a fixed time: phi = 1 + exp(2*t - x) + exp(5*t/4 + x/2), its constants left to Stage B
BISTABLE = problem("u_t - u_xx - 2*u*(1 - u)*(u + 1/2)", None,
                   "(exp(2*t - x) - exp(5*t/4 + x/2)/2)/(1 + exp(2*t - x) + exp(5*t/4 + x/2))")


def exact(made, candidate: dict[str, sp.Expr]) -> bool:
    residual = residuals(made)[0]
    jets = {made.jet_symbol(j): j for j in made.jets()}
    names = made.vocabulary.var_symbols
    values = {s: sp.diff(candidate["u"], *[names[v] for v in j.wrt]) if j.wrt else candidate["u"]
              for s, j in jets.items()}
    return sp.simplify(residual.xreplace(values)) == 0


@pytest.mark.parametrize("made", [NEWELL_WHITEHEAD, NAGUMO, BISTABLE])
def test_the_references_solve_their_equations(made):
    assert exact(made, {"u": made.reference["u"]})


def test_allen_cahn_gives_the_handbook_pair():
    made = problem("u_t - u_xx - 2*u + 2*u**3", None, "0")
    laws = {s.alpha: (s.operator, modes) for s, modes in pair.pairs(coordinates(made))}
    operator, modes = laws[1]
    # phi_t = 3*phi_xx and phi_xxx = phi_x: phi = c0 + c1*exp(x + 3*t) + c2*exp(-x + 3*t)
    assert operator == {(0, 1): 1, (2, 0): -3}
    x, t = coordinates(made).symbols
    assert set(modes) == {sp.Integer(1), sp.exp(x + 3 * t), sp.exp(-x + 3 * t)}


@pytest.mark.parametrize("made", [NEWELL_WHITEHEAD, NAGUMO])
def test_data_at_the_start_give_the_exact_candidate(made):
    found = PAIR.solve(coordinates(made))
    assert len(found) == 1 and exact(made, found[0])


def test_without_data_the_modes_have_free_constants():
    found = PAIR.solve(coordinates(BISTABLE))
    assert len(found) == 2          # two laws (x -> -x), every coefficient of phi free
    (law, modes), _ = pair.pairs(coordinates(BISTABLE))
    (phi,) = pair._families(modes)
    assert all(phi.coeff(m).is_Float for m in modes if m != 1) and len(phi.atoms(sp.Float)) == 3


@pytest.mark.parametrize(("equation", "why"), [
    ("u_t - u_xx - u*(1 - u)", "not cubic"),                  # Fisher: a quadratic source never balances
    ("u_t - u_xx - u*u_x + u**3", "derivative in a nonlinear term"),
    ("u_t - u_xx - x*u**3", "depend on the variables"),
    ("u_tt - u_xx - u + u**3", "beyond u_t, u_x, u_xx"),
    ("u_t - u_xxxx - u + u**3", "beyond u_t, u_x, u_xx"),
])
def test_it_declines_where_it_does_not_apply(equation, why):
    assert why in PAIR.applies(coordinates(problem(equation, None, "0")))


def test_no_real_pair_gives_no_candidate():
    # u_t = u_xx + u**3: the balance of phi_x**3/phi**3 needs alpha**2 = -2
    made = coordinates(problem("u_t - u_xx - u**3", None, "0"))
    assert PAIR.applies(made) == "" and pair.pairs(made) == []
    with pytest.raises(NotImplementedError):
        PAIR.solve(made)


def test_propose_names_it_and_the_off_switch_leaves_it_out():
    found = propose(NAGUMO, time_limit=30.0, solvers=["pair"])
    assert found.origins == ["pair"], found.attempts
    assert not propose(NAGUMO, time_limit=30.0, solvers=["pair"], reductions=False).attempts


def _handbook():
    from desyr.config.loading import load_problem
    return load_problem("handbook:allen_cahn_merge", load_registry())


@pytest.mark.slow
@pytest.mark.parametrize("made", [NEWELL_WHITEHEAD, NAGUMO, BISTABLE, "handbook"])
def test_the_verifier_proves_the_candidates(made):
    made = _handbook() if made == "handbook" else made
    found = propose(made, time_limit=30.0, solvers=["pair"])
    texts = [{f: str(e) for f, e in c.items()} for c in found.candidates]
    assert refine(made, texts, registry=load_registry(), plots=False).verdict == "proved"
