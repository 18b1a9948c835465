"""Field completion (a pressure from the velocity) and sympy's ``linear_part`` solver (issue 36)."""
from __future__ import annotations

import pytest
import sympy as sp
from desyr_sympy.methods.linear_part import LinearPart
from desyr_sympy.shared.forms import coordinates

from desyr.config.loading import problem_from_toml
from desyr.plugin import ExactSearcher, Proposals, SolverAttempt
from desyr.stages.completion import FREE_CONSTANT, completable, complete_fields
from desyr.stages.exact_search import propose_candidates

x, y, t = sp.symbols("x y t", real=True)

# steady Navier-Stokes, the stagnation-point flow u = x, v = -y: p = 1 - (x**2 + y**2)/2
STAGNATION = """
name = "stagnation"
fields = ["u", "v", "p"]
[domain]
x = [0, 1]
y = [0, 1]
[[equations]]
lhs = "u*u_x + v*u_y + p_x - (u_xx + u_yy)/7"
[[equations]]
lhs = "u*v_x + v*v_y + p_y - (v_xx + v_yy)/7"
[[equations]]
lhs = "u_x + v_y"
[[constraints]]
operator = "u"
on = "boundary"
value = "x"
[[constraints]]
operator = "p"
on = "x = 0, y = 0"
value = "1"
"""

# decaying Taylor-Green vortex of wave number 2, nu = 1/4, written here (not the handbook's)
TAYLOR_GREEN_2 = """
name = "tg2"
time = "t"
fields = ["u", "v", "p"]
[domain]
x = [0, 1]
y = [0, 1]
t = [0, 1]
[[equations]]
lhs = "u_t + u*u_x + v*u_y + p_x - (u_xx + u_yy)/4"
[[equations]]
lhs = "v_t + u*v_x + v*v_y + p_y - (v_xx + v_yy)/4"
[[equations]]
lhs = "u_x + v_y"
[[constraints]]
operator = "u"
on = "boundary"
value = "reference"
[[constraints]]
operator = "v"
on = "boundary"
value = "reference"
[[constraints]]
operator = "u"
on = "initial"
value = "cos(2*x)*sin(2*y)"
[[constraints]]
operator = "v"
on = "initial"
value = "-sin(2*x)*cos(2*y)"
[[constraints]]
operator = "p"
on = "x = 0, y = 0"
value = "-exp(-4*t)/2"
[reference]
u = "cos(2*x)*sin(2*y)*exp(-2*t)"
v = "-sin(2*x)*cos(2*y)*exp(-2*t)"
p = "-(cos(4*x) + cos(4*y))*exp(-4*t)/4"
"""

# solid-body rotation on a disk (steady NS): u = -y, v = x, p = (x**2 + y**2)/2; data on the rim only
ROTATION = """
name = "rotation"
fields = ["u", "v", "p"]
[domain]
shape = "disk(center=(0, 0), radius=1)"
[[equations]]
lhs = "u*u_x + v*u_y + p_x - (u_xx + u_yy)/5"
[[equations]]
lhs = "u*v_x + v*v_y + p_y - (v_xx + v_yy)/5"
[[equations]]
lhs = "u_x + v_y"
[[constraints]]
operator = "u"
on = "boundary"
value = "-y"
[[constraints]]
operator = "v"
on = "boundary"
value = "x"
[[constraints]]
operator = "p"
at = [[0, 0]]
value = "0"
"""


def problem(text):
    return problem_from_toml(text, "<test>")


def same(a, b):
    return sp.simplify(a - b) == 0


def test_a_pressure_is_the_potential_of_the_momentum_equations_anchored_by_its_data():
    p = problem(STAGNATION)
    assert completable(p) == {"p": "gradient"}
    done = complete_fields(p, {"u": x, "v": -y})
    assert done is not None and same(done["p"], 1 - (x**2 + y**2) / 2)


def test_the_free_function_of_time_comes_from_the_anchor_p_of_0_0_t():
    p = problem(TAYLOR_GREEN_2)
    u, v = sp.cos(2 * x) * sp.sin(2 * y) * sp.exp(-2 * t), -sp.sin(2 * x) * sp.cos(2 * y) * sp.exp(-2 * t)
    done = complete_fields(p, {"u": u, "v": v})
    assert done is not None
    assert same(done["p"], -(sp.cos(4 * x) + sp.cos(4 * y)) * sp.exp(-4 * t) / 4)


def test_without_data_the_free_part_is_one_constant_for_stage_b():
    p = problem(STAGNATION.replace('operator = "p"', 'operator = "u"').replace('value = "1"', 'value = "0"'))
    done = complete_fields(p, {"u": x, "v": -y})
    assert done is not None and same(done["p"], FREE_CONSTANT - (x**2 + y**2) / 2)


def test_a_float_candidate_is_completed_with_floats_for_stage_b():
    done = complete_fields(problem(STAGNATION), {"u": 1.5 * x, "v": -1.5 * y})
    assert done is not None and done["p"].atoms(sp.Float)
    assert abs(float(done["p"].subs({x: 1, y: 0})) - (1 - 1.125)) < 1e-12


def test_a_field_held_without_derivatives_is_solved_for():
    text = """
fields = ["u", "q"]
[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx - 2"
[[equations]]
lhs = "3*q - u_x**2"
[[constraints]]
operator = "u"
on = "x = 0"
value = "0"
"""
    p = problem(text)
    assert completable(p) == {"q": "algebraic"}
    done = complete_fields(p, {"u": x**2})
    assert done is not None and same(done["q"], 4 * x**2 / 3)


def test_declines_a_field_that_is_not_gradient_only():
    # p_xx and a product u*p_x: neither the potential nor the linear solve applies
    for lhs in ("u*u_x + p_xx - u_xx", "u*u_x + u*p_x - u_xx"):
        p = problem(STAGNATION.replace("u*u_x + v*u_y + p_x - (u_xx + u_yy)/7", lhs))
        assert "p" not in completable(p)
        assert complete_fields(p, {"u": x, "v": -y}) is None


def test_declines_when_the_momentum_equations_have_no_potential():
    # u = y, v = 0: p_x = -(u u_x + v u_y) + ... = 0 but p_y = -y*... is checked; here the forcing x*y
    # in one equation has a curl no potential can have
    p = problem(STAGNATION.replace("u*u_x + v*u_y + p_x - (u_xx + u_yy)/7", "p_x - x*y"))
    assert complete_fields(p, {"u": x, "v": -y}) is None


class PartialSearcher(ExactSearcher):
    """Proposes the velocity only: the core completes the pressure, or drops what it cannot complete."""

    name = "partial"

    def propose(self, problem, time_limit):
        return Proposals(({"u": x, "v": -y}, {"v": -y}), ("velocity", "half"),
                         (SolverAttempt("velocity", 0.0, "candidates: 2"),))


def test_stage_0_completes_a_proposal_that_leaves_out_the_pressure():
    solved = propose_candidates([PartialSearcher()], problem(STAGNATION), 5.0)
    (candidate,) = solved.pool
    assert same(candidate.search_expressions["p"], 1 - (x**2 + y**2) / 2)
    assert any(r.outcome == "dropped" and "u could not be completed" in r.detail for r in solved.records)


class UnreadableSearcher(ExactSearcher):
    """Proposes a field whose text the problem's reader refuses (an unknown function)."""

    name = "unreadable"

    def propose(self, problem, time_limit):
        return Proposals(({"u": sp.Function("mystery")(x), "v": -y, "p": x},), ("odd",),
                         (SolverAttempt("odd", 0.0, "candidates: 1"),))


def test_a_dropped_proposal_says_why_it_does_not_read_back():
    solved = propose_candidates([UnreadableSearcher()], problem(STAGNATION), 5.0)
    assert not solved.pool
    (record,) = [r for r in solved.records if r.outcome == "dropped"]
    assert record.detail.startswith("does not read back: ") and "mystery" in record.detail

# a uniform stream of speed 2 along y past a periodic row of eddies (a Kovasznay-type flow written here,
# nu = 1/10, k = pi): v - 2 and u solve Oseen's linearisation about the stream, their own products a gradient
LAMBDA = "(10 - sqrt(100 + pi**2))"
STREAM_Y = f"""
name = "stream_y"
fields = ["u", "v", "p"]
[domain]
x = [0, 1]
y = [0, 1]
[[equations]]
lhs = "u*u_x + v*u_y + p_x - (u_xx + u_yy)/10"
[[equations]]
lhs = "u*v_x + v*v_y + p_y - (v_xx + v_yy)/10"
[[equations]]
lhs = "u_x + v_y"
[[constraints]]
operator = "u"
on = "boundary"
value = "{LAMBDA}*exp({LAMBDA}*y)*sin(pi*x)/pi"
[[constraints]]
operator = "v"
on = "boundary"
value = "2 - exp({LAMBDA}*y)*cos(pi*x)"
[[constraints]]
operator = "p"
on = "x = 0, y = 0"
value = "0"
"""


@pytest.mark.slow
def test_linear_part_linearises_about_the_uniform_state_of_the_data():
    from desyr_sympy.shared.one_field import AboutState, uniform_state

    p = coordinates(problem(STREAM_Y))
    assert uniform_state(p, ["u", "v"]) == {"v": 2}          # u's data have no constant part
    about = AboutState(p, {"v": sp.Integer(2)})
    v_y = next(s for s in about.equations[1].residual.free_symbols if s.name == "v_y")
    assert about.equations[1].residual.coeff(v_y).has(2)     # 2*v_y: the stream carries the perturbation
    (first, *_) = LinearPart().solve(p)
    lam = sp.sympify(LAMBDA)
    assert same(first["v"], 2 - sp.exp(lam * y) * sp.cos(sp.pi * x))
    assert same(first["u"], lam * sp.exp(lam * y) * sp.sin(sp.pi * x) / sp.pi)
    done = complete_fields(problem(STREAM_Y), {f: problem(STREAM_Y).parse(str(e)) for f, e in first.items()})
    assert done is not None and same(done["p"].diff(y), -lam * sp.exp(2 * lam * y))


def test_linear_part_declines_where_it_does_not_apply():
    one = problem("fields = ['u']\n[domain]\nx = [0, 1]\ny = [0, 1]\n[[equations]]\nlhs = 'u_xx + u_yy'\n"
                  "[[constraints]]\noperator = 'u'\non = 'boundary'\nvalue = 'x'\n")
    assert LinearPart().applies(coordinates(one)) == "not a system"
    # Cauchy-Riemann: both fields only through their gradients, none left to solve
    pair = problem("fields = ['u', 'v']\n[domain]\nx = [0, 1]\ny = [0, 1]\n[[equations]]\nlhs = 'u_x - v_y'\n"
                   "[[equations]]\nlhs = 'u_y + v_x'\n[[constraints]]\noperator = 'u'\non = 'boundary'\nvalue = 'x'\n")
    assert LinearPart().applies(coordinates(pair)) != ""
    # a pressure times the velocity: nothing to complete
    coupled = problem(STAGNATION.replace("p_x", "u*p_x"))
    assert LinearPart().applies(coordinates(coupled)) != ""


def test_linear_part_solves_the_linear_part_and_fixes_the_amplitudes():
    (first, *_) = LinearPart().solve(coordinates(problem(TAYLOR_GREEN_2)))
    assert set(first) == {"u", "v"}
    assert same(first["u"], sp.cos(2 * x) * sp.sin(2 * y) * sp.exp(-2 * t))
    assert same(first["v"], -sp.sin(2 * x) * sp.cos(2 * y) * sp.exp(-2 * t))


@pytest.mark.slow
@pytest.mark.parametrize("text", [TAYLOR_GREEN_2, ROTATION, STREAM_Y], ids=["taylor_green_k2", "disk_rotation", "stream_y"])
def test_linear_part_candidates_are_proved(text):
    from desyr_sympy.plugin import SympySearcher

    from desyr.api import refine
    from desyr.extension.registry import load_registry

    p = problem(text)
    solved = propose_candidates([SympySearcher(solvers=["linear_part"])], p, 10.0)
    assert solved.pool and all(c.searcher == "sympy:linear_part" for c in solved.pool)
    texts = [{f: str(e) for f, e in c.search_expressions.items()} for c in solved.pool]
    assert refine(p, texts, registry=load_registry(), plots=False).verdict == "proved"


def test_a_proposal_too_large_to_integrate_in_time_is_not_completed():
    big = sum(sp.cos(k * x) * sp.exp(k * y) / (k + 1) for k in range(1, 40))
    assert complete_fields(problem(STAGNATION), {"u": big, "v": -y}) is None


def test_the_completion_bound_is_work_stretched_by_the_load(monkeypatch):
    import os

    from desyr.stages import completion

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.4, 0.0, 0.0))
    assert completion.wall_for(5.0) == 5.0                  # idle: the work's own seconds
    monkeypatch.setattr(os, "getloadavg", lambda: (6.0, 0.0, 0.0))
    assert completion.wall_for(5.0) == 15.0                 # three runnable jobs a core
    monkeypatch.setattr(os, "getloadavg", lambda: (90.0, 0.0, 0.0))
    assert completion.wall_for(5.0) == 5.0 * completion.MAX_STRETCH

    def none():
        raise OSError("no load average")

    monkeypatch.setattr(os, "getloadavg", none)
    assert completion.wall_for(5.0) == 5.0
