"""Stage 0's ``vanishing`` solver (issue 36, item 5): solutions of a nonlinear problem's linear part, with
the problem's own data, on which the nonlinear terms vanish.  Problems written here, not only a user's."""
from __future__ import annotations

import pytest
import sympy as sp
from desyr_sympy.methods import METHODS, vanishing
from desyr_sympy.propose import REDUCTIONS
from desyr_sympy.shared.forms import coordinates

from desyr.config.loading import problem_from_toml

x, y, t = sp.symbols("x y t", real=True)


def problem(equations: list[str], data: dict[str, str], domain: str, fields: tuple[str, ...] = ("u",)):
    text = f'name = "made"\ntime = "t"\nfields = {list(fields)}\n[domain]\n{domain}\n'
    text += "".join(f'[[equations]]\nlhs = "{e}"\n' for e in equations)
    for f in fields:
        text += f'[[constraints]]\noperator = "{f}"\non = "initial"\nvalue = "{data[f]}"\n'
        text += f'[[constraints]]\noperator = "{f}"\non = "boundary"\nvalue = "reference"\n'
    text += "[reference]\n" + "".join(f'{f} = "{data[f + "_exact"]}"\n' for f in fields)
    return coordinates(problem_from_toml(text, "<test>"))


#: a user's coupled Burgers system (Esipov; Wazwaz): the products cancel where u = v
COUPLED_BURGERS = problem(["u_t - u_xx - 2*u*u_x + u_x*v + u*v_x", "v_t - v_xx - 2*v*v_x + u_x*v + u*v_x"],
                          {"u": "sin(x)", "v": "sin(x)", "u_exact": "exp(-t)*sin(x)", "v_exact": "exp(-t)*sin(x)"},
                          "x = [0, 3.141592653589793]\nt = [0, 1]", ("u", "v"))
#: written here: another pair whose products vanish where u = v, its linear parts with other rates
SYMMETRIC_PAIR = problem(["u_t - u_xx/2 + u*v_x - v*u_x", "v_t - v_xx/2 + (u - v)*u_x"],
                         {"u": "cos(x)", "v": "cos(x)", "u_exact": "exp(-t/2)*cos(x)", "v_exact": "exp(-t/2)*cos(x)"},
                         "x = [0, 2]\nt = [0, 1]", ("u", "v"))
#: written here: a nonlinear heat equation whose term u**2*(u_xx + u_yy + 2*u) is zero on a product mode
PRODUCT_MODE = problem(["u_t - u_xx - u_yy - u**2*(u_xx + u_yy + 2*u)"],
                       {"u": "sin(x)*sin(y)", "u_exact": "exp(-2*t)*sin(x)*sin(y)"},
                       "x = [0, 3.141592653589793]\ny = [0, 3.141592653589793]\nt = [0, 1]")
#: written here: a KdV-type u*u_x that vanishes where u is constant in x
KDV_DAMPED = problem(["u_t + u*u_x + u_xxx + u"], {"u": "3", "u_exact": "3*exp(-t)"}, "x = [-1, 1]\nt = [0, 1]")

#: written here: linear parts that tie the fields (u_t - v_xx), one equation each once u = v = w
CROSSED = problem(["u_t - v_xx + u*u_x - v*v_x", "v_t - u_xx + (u - v)**2"],
                  {"u": "sin(x)", "v": "sin(x)", "u_exact": "exp(-t)*sin(x)", "v_exact": "exp(-t)*sin(x)"},
                  "x = [0, 3.141592653589793]\nt = [0, 1]", ("u", "v"))


def exact(made, candidate: dict[str, sp.Expr]) -> bool:
    return all(sp.simplify(made.apply(e.residual, candidate)) == 0 for e in made.equations)


@pytest.mark.parametrize("made, fields", [(COUPLED_BURGERS, ("u", "v")), (SYMMETRIC_PAIR, ("u", "v")),
                                          (PRODUCT_MODE, ("u",)), (KDV_DAMPED, ("u",))],
                         ids=["coupled_burgers", "symmetric_pair", "product_mode", "kdv_damped"])
def test_the_first_candidate_solves_the_nonlinear_problem(made, fields):
    assert vanishing.Vanishing().applies(made) == ""
    first, *_ = vanishing.Vanishing().solve(made)
    assert set(first) == set(fields) and exact(made, first)
    assert not any(e.atoms(sp.Float) for e in first.values())     # the data fixed every amplitude


def test_the_linear_part_and_the_products_are_apart():
    parts = vanishing.split(COUPLED_BURGERS)
    assert parts is not None and parts.same == ()
    assert {f: {str(a) for a in sp.Add.make_args(e)} for f, e in parts.own.items()} == \
        {"u": {"u_t", "-u_xx"}, "v": {"v_t", "-v_xx"}}
    assert {str(a) for a in sp.Add.make_args(parts.remainders[0])} == {"-2*u*u_x", "u*v_x", "u_x*v"}


@pytest.mark.parametrize("equation, initial, why", [
    ("u_t - u_xx - u + u**3", "sin(x)", "vanishes only where a field is"),  # Allen-Cahn: u**3 zero where u is
    ("u_t - u_xx - x*u**2 + u**3", "sin(x)", "do not vanish on the data"),  # zero only where u = x
    ("u_t - u_xx + u*u_x", "sin(x)", "do not vanish on the data"),          # Burgers: u*u_x on sin(x)
    ("u_t - u_xx - x*u**5", "sin(x)", "vanishes only where a field is"),    # zero only where u is
    ("u_t - u_xx - exp(u)", "sin(x)", "vanishes only where a field is"),    # never zero
    ("u_t - u_xx + u_x", "sin(x)", "linear"),                               # nothing nonlinear to drop
])
def test_it_declines_where_the_nonlinear_terms_cannot_vanish(equation, initial, why):
    made = problem([equation], {"u": initial, "u_exact": initial}, "x = [0, 3]\nt = [0, 1]")
    assert why in vanishing.Vanishing().applies(made)


def test_a_flow_with_a_pressure_is_left_to_linear_part():
    flow = problem(["u_t + u*u_x + v*u_y + p_x - u_xx - u_yy", "v_t + u*v_x + v*v_y + p_y - v_xx - v_yy",
                    "u_x + v_y"], {f: "0" for f in ("u", "v", "p", "u_exact", "v_exact", "p_exact")},
                   "x = [0, 1]\ny = [0, 1]\nt = [0, 1]", ("u", "v", "p"))
    assert "linear_part" in vanishing.Vanishing().applies(flow)


def test_no_solution_of_the_linear_part_that_meets_the_data_no_candidate():
    # the products vanish on the heat modes only where u = v; data with u != v give none
    apart = problem(["u_t - u_xx - 2*u*u_x + u_x*v + u*v_x", "v_t - v_xx - 2*v*v_x + u_x*v + u*v_x"],
                    {"u": "sin(x)", "v": "sin(2*x)", "u_exact": "exp(-t)*sin(x)", "v_exact": "exp(-4*t)*sin(2*x)"},
                    "x = [0, 3.141592653589793]\nt = [0, 1]", ("u", "v"))
    with pytest.raises(NotImplementedError):
        vanishing.Vanishing().solve(apart)


def test_registered_as_a_reduction():
    assert "vanishing" in REDUCTIONS and any(m.name == "vanishing" for m in METHODS)


@pytest.mark.slow
@pytest.mark.parametrize("made", [COUPLED_BURGERS, SYMMETRIC_PAIR, PRODUCT_MODE, KDV_DAMPED, CROSSED],
                         ids=["coupled_burgers", "symmetric_pair", "product_mode", "kdv_damped", "crossed"])
def test_stage_0_proposals_are_proved(made):
    from desyr_sympy.plugin import SympySearcher

    from desyr.api import refine
    from desyr.extension.registry import load_registry
    from desyr.stages.exact_search import propose_candidates

    solved = propose_candidates([SympySearcher(solvers=["vanishing"])], made._problem, 10.0)
    assert solved.pool and all(c.searcher == "sympy:vanishing" for c in solved.pool)
    texts = [{f: str(e) for f, e in c.search_expressions.items()} for c in solved.pool]
    assert refine(made._problem, texts, registry=load_registry(), plots=False).verdict == "proved"


def test_linear_parts_that_tie_the_fields_are_solved_with_the_fields_one():
    parts = vanishing.split(CROSSED)
    assert parts is not None and parts.same == ("v",) and set(parts.own) == {"u"}
    first, *_ = vanishing.Vanishing().solve(CROSSED)
    assert first["u"] == first["v"] and exact(CROSSED, first)


def test_the_fields_are_one_only_where_their_data_are():
    apart = problem(["u_t - v_xx + u*u_x - v*v_x", "v_t - u_xx + (u - v)**2"],
                    {"u": "sin(x)", "v": "sin(2*x)", "u_exact": "0", "v_exact": "0"},
                    "x = [0, 3.141592653589793]\nt = [0, 1]", ("u", "v"))
    assert vanishing.split(apart) is None and vanishing.Vanishing().applies(apart) != ""


def test_a_family_is_checked_at_one_value_of_its_parameter():
    # u*u_x on the shock's data is nonzero for every nu: no solution of the heat equation solves it
    text = ('name = "family"\ntime = "t"\n[domain]\nx = [-1, 1]\nt = [0, 1]\n[parameters]\nnu = [0.05, 0.2]\n'
            '[[equations]]\nlhs = "u_t + u*u_x - nu*u_xx"\n[[constraints]]\non = "t = 0"\nvalue = "reference"\n'
            '[reference]\nu = "1/2 - tanh((x - t/2)/(4*nu))/2"\n')
    assert "do not vanish on the data" in vanishing.Vanishing().applies(coordinates(problem_from_toml(text, "<test>")))


def test_terms_without_derivatives_in_two_fields_may_vanish_where_they_are_equal():
    pair = problem(["u_t - u_xx + (u - v)**2", "v_t - v_xx - (u - v)**3"],
                   {"u": "sin(x)", "v": "sin(x)", "u_exact": "exp(-t)*sin(x)", "v_exact": "exp(-t)*sin(x)"},
                   "x = [0, 3.141592653589793]\nt = [0, 1]", ("u", "v"))
    assert vanishing.Vanishing().applies(pair) == ""
    first, *_ = vanishing.Vanishing().solve(pair)
    assert exact(pair, first)
