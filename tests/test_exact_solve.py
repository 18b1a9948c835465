"""Constants solved from the physics (desyr.exact.solved_constants): algebraic rates no short closed form names."""
import math
import time
from pathlib import Path

import pytest
import sympy as sp
from test_exact_identify import checked

from desyr.config.loading import problem_from_toml
from desyr.exact import exact_form, propose, symbolic_match
from desyr.exact.solved_constants import coefficients, link_constants, solve_coefficients
from desyr.model.points import make_point_sets
from desyr.model.residuals import verify

GOLDEN = (1 + math.sqrt(5)) / 2
# u'' - u' - u = 0: exp(c*x) solves it for c**2 - c - 1 = 0, c = (1 +- sqrt(5))/2
GOLDEN_ODE = {"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx - u_x - u"}],
              "constraints": [{"on": "x = 0", "value": 1}], "reference": {"u": "exp((1 + sqrt(5))/2*x)"}}



def test_golden_rate_is_solved_from_the_equation():
    problem, check = checked(GOLDEN_ODE)
    x = problem.symbols[0]
    assert propose(GOLDEN) == []                       # not a short rational times a base
    form = exact_form(problem, {"u": sp.exp(sp.Float(GOLDEN) * x)}, check)
    assert not form.expressions["u"].atoms(sp.Float)
    assert sp.simplify(form.expressions["u"] - sp.exp((1 + sp.sqrt(5)) / 2 * x)) == 0
    (solved,) = [d for d in form.constants if d.accepted]
    assert solved.reason == "solved from the equations" and solved.value == GOLDEN
    assert symbolic_match(form.expressions, problem.reference, problem.symbols)
    assert form.seconds < 5.0


def test_the_other_root_is_picked_by_the_float():
    problem, check = checked({**GOLDEN_ODE, "reference": {"u": "exp((1 - sqrt(5))/2*x)"}})
    x = problem.symbols[0]
    form = exact_form(problem, {"u": sp.exp(sp.Float(1 - GOLDEN) * x)}, check)
    assert sp.simplify(form.expressions["u"] - sp.exp((1 - sp.sqrt(5)) / 2 * x)) == 0


def test_an_amplitude_left_free_by_the_equation_comes_from_a_constraint():
    """The equation fixes the rate and leaves the amplitude free; u(0) = 1 + sqrt(2)/3 fixes it."""
    amplitude = 1 + math.sqrt(2) / 3
    problem, check = checked({**GOLDEN_ODE, "constraints": [{"on": "x = 0", "value": "1 + sqrt(2)/3"}],
                              "reference": {"u": "(1 + sqrt(2)/3)*exp((1 + sqrt(5))/2*x)"}})
    assert propose(amplitude) == []
    x = problem.symbols[0]
    form = exact_form(problem, {"u": sp.Float(amplitude) * sp.exp(sp.Float(GOLDEN) * x)}, check)
    assert not form.expressions["u"].atoms(sp.Float)
    assert symbolic_match(form.expressions, problem.reference, problem.symbols)


def test_nothing_is_solved_away_from_roundoff():
    """A float 1e-6 off is no exact solution: no attempt, no decision, the float stays."""
    problem, check = checked(GOLDEN_ODE)
    x = problem.symbols[0]
    expr = sp.exp(sp.Float(GOLDEN + 1e-6) * x)
    form = exact_form(problem, {"u": expr}, check)
    assert form.expressions["u"] == expr
    assert not any("solved" in d.reason for d in form.constants)


def test_shared_rates_get_one_symbol():
    rate, x, y = -1.8100981200139667, *sp.symbols("x y")
    floats = [sp.Float(2 * rate), sp.Float(rate), sp.Float(rate / (2 * math.pi))]
    exprs = {"u": 1 - sp.exp(floats[1] * x) * sp.cos(2 * sp.pi * y),
             "v": floats[2] * sp.exp(floats[1] * x) * sp.sin(2 * sp.pi * y), "p": 1 - sp.exp(floats[0] * x)}
    forms = link_constants(floats, exprs)
    c0 = sp.Symbol("c0")
    assert forms == {floats[0]: 2 * c0, floats[1]: c0, floats[2]: c0 / (2 * sp.pi)}


def test_coefficients_separate_the_functions_of_the_variables():
    """cos**2 + sin**2 meet through the exponential rewrite; exp(c*x) and exp(2*c*x) stay apart."""
    c, x, y = sp.symbols("c x y")
    residual = (c - 1) * sp.exp(c * x) * (sp.cos(y) ** 2 + sp.sin(y) ** 2) + (c ** 2 - 4) * sp.exp(2 * c * x)
    assert solve_coefficients([residual], [x, y], [c]) == []            # c = 1 and c = +-2 disagree
    assert solve_coefficients([residual.subs(c ** 2 - 4, c - 1)], [x, y], [c]) == [{c: 1}]
    assert len(coefficients(sp.tanh(c * x) - sp.tanh(x), [x])) >= 2     # quotient: its numerator's terms


def test_an_unknown_the_equations_do_not_fix_is_not_guessed():
    a, b, x = sp.symbols("a b x")
    assert solve_coefficients([(a - 1) * sp.exp(x)], [x], [a, b]) is None


KOVASZNAY = Path(__file__).resolve().parents[1] / "plugins/desyr_paper/problems/14_kovasznay.toml"
RATE = 10 - math.sqrt(100 + 4 * math.pi ** 2)       # -1.8100981200139667 at Re = 20


@pytest.mark.slow
def test_kovasznay_rate_is_solved_and_proved():
    from desyr.verify import make_request
    from desyr.verify.verdict import decide

    problem = problem_from_toml(KOVASZNAY.read_text(), source=str(KOVASZNAY))
    points = make_point_sets(problem, 3)

    def check(exprs):
        v = verify(problem, exprs, points)
        return v.R_eq, v.R_con
    numeric = {"u": f"1 - exp({RATE!r}*x)*cos(6.283185307179586*y)",
               "v": f"{RATE / (2 * math.pi)!r}*exp({RATE!r}*x)*sin(6.283185307179586*y)",
               "p": f"0.5 - 0.5*exp({2 * RATE!r}*x)"}
    start = time.perf_counter()
    form = exact_form(problem, {f: problem.parse(t) for f, t in numeric.items()}, check)
    assert time.perf_counter() - start < 20.0
    assert not any(e.atoms(sp.Float) for e in form.expressions.values())
    assert symbolic_match(form.expressions, problem.reference, problem.symbols,
                          bounds=[(v.lo, v.hi) for v in problem.variables])
    solved = [d for d in form.constants if d.reason == "solved from the equations"]
    assert len(solved) == 3 and all(d.accepted for d in solved)
    x = problem.symbols[0]

    def rate(field):
        (growth,) = form.expressions[field].atoms(sp.exp)
        return sp.expand(growth.args[0] / x)
    assert sp.expand(rate("v") - rate("u")) == 0 and sp.expand(rate("p") - 2 * rate("u")) == 0   # one shared rate
    texts = {f: str(e) for f, e in form.expressions.items()}
    answer = decide(make_request(problem, numeric, texts, 0))
    assert answer["verdict"] == "proved", answer["reason"]


def test_sympy_time_is_bounded(monkeypatch):
    import desyr.exact.solved_constants as solve

    monkeypatch.setattr(solve, "SOLVE_SECONDS", 1e-3)
    problem, check = checked(GOLDEN_ODE)
    expr = sp.exp(sp.Float(GOLDEN) * problem.symbols[0])
    # SymPy's cache, warm from an earlier test of the same worker, answered within the 1 ms (a flaky failure)
    sp.core.cache.clear_cache()
    form = exact_form(problem, {"u": expr}, check)
    assert form.expressions["u"] == expr
    assert [d.reason for d in form.constants if "solved" in d.reason] == \
        ["not solved from the equations: SymPy ran out of time"]


def test_more_unknowns_than_allowed_are_not_attempted():
    problem, check = checked({"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx - u_x - u"}]})
    x = problem.symbols[0]
    values = [GOLDEN * (1 + math.sqrt(k) / 1e3) for k in (2, 3, 5, 7)]     # 4 unrelated floats
    expr = sum(sp.Float(v) * x ** k for k, v in enumerate(values))
    exprs = {"u": expr}
    from desyr.exact.solved_constants import solve_constants
    same, decisions = solve_constants(problem, exprs, check, (0.0, None))
    assert same == exprs and {d.reason for d in decisions} == \
        {"not solved from the equations: 4 unknowns (at most 3)"}


def test_a_sympy_failure_is_a_refusal_not_a_crash(monkeypatch):
    import desyr.exact.solved_constants as solve

    def broken(*args):
        raise ValueError("unusual tree")
    monkeypatch.setattr(solve, "coefficients", broken)
    problem, check = checked(GOLDEN_ODE)
    expr = sp.exp(sp.Float(GOLDEN) * problem.symbols[0])
    form = exact_form(problem, {"u": expr}, check)
    assert form.expressions["u"] == expr
    assert any(d.reason == "not solved from the equations: SymPy failed (ValueError)" for d in form.constants)
