"""Checked constant identification (desyr.exact): proposals, acceptance and refusals on real problems."""
import math

import pytest
import sympy as sp

from desyr.config.loading import problem_from_dict
from desyr.exact import Acceptance, exact_form, propose
from desyr.model.points import make_point_sets
from desyr.model.residuals import verify
from desyr.symbolic.expressions import expression_text

POINTS = {"refine": 200, "verify": 300, "search": 50, "validate": 50}


def checked(data):
    problem = problem_from_dict({**data, "points": POINTS})
    points = make_point_sets(problem, 3)

    def check(exprs):
        v = verify(problem, exprs, points)
        return v.R_eq, v.R_con
    return problem, check


SINE = {"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx + pi**2*sin(pi*x)"}],
        "constraints": [{"on": ["x = 0", "x = 1"], "value": 0}], "reference": {"u": "sin(pi*x)"}}
KLEIN_GORDON = {"domain": {"x": [0, 1], "t": [0, 1]}, "time": "t",
                "equations": [{"lhs": "u_tt - u_xx + u**3", "rhs": "from_reference"}],
                "constraints": [{"on": "boundary", "value": "reference", "points": 60},
                                {"on": "t = 0", "value": "reference", "points": 60},
                                {"operator": "u_t", "on": "t = 0", "value": 0, "points": 60}],
                "reference": {"u": "x*cos(5*pi*t) + x**3*t**3"}}


@pytest.mark.parametrize("value, form", [
    (3.141592653589793, sp.pi), (15.707963267948966, 5 * sp.pi), (0.9869604401089358, sp.pi ** 2 / 10),
    (7.0710678118654755, 5 * sp.sqrt(2)), (0.4999999999999099, sp.Rational(1, 2)),
    (2.0833333333333333e-06, sp.Rational(1, 480000)), (0.6931471805599453, sp.log(2)),
    (2.718281828459045, sp.E), (0.8660254037844386, sp.sqrt(3) / 2), (-0.88, -sp.Rational(22, 25)),
    (0.3183098861837907, 1 / sp.pi)])
def test_proposals_include_the_closed_form(value, form):
    assert propose(value)[0] == form


@pytest.mark.parametrize("value", [0.123456789, -0.4958634101007472, 3.7e-7, math.nan])
def test_no_proposal_for_unremarkable_numbers(value):
    assert propose(value) == []


@pytest.mark.parametrize("value", [1.2345678901234567e-20, -8.7e-12, 1e-8])
def test_a_constant_below_the_exact_tolerance_is_proposed_as_zero(value):
    # issue 47: an Allen-Cahn front kept a shift of 8.7e-12; the residual check decides whether 0 holds
    assert propose(value) == [0]


def test_proposals_are_few():
    for k in range(200):
        assert len(propose(1.0 + k * 0.0137)) <= 3


def test_sine_poisson_float_becomes_pi():
    problem, check = checked(SINE)
    form = exact_form(problem, {"u": problem.parse("sin(3.141592653589793*x)")}, check)
    assert form.expressions["u"] == sp.sin(sp.pi * problem.symbols[0])
    (decision,) = form.constants
    assert decision.accepted and decision.proposed == sp.pi and decision.value == 3.141592653589793
    assert max(decision.residuals_after) <= 1e-12
    assert form.complexity == 4 and form.latex["u"] == r"\sin{\left(\pi x \right)}"
    data = form.to_dict()
    assert data["expressions"] == {"u": "sin(pi*x)"} and data["constants"][0]["accepted"] is True
    import json
    json.dumps(data)


@pytest.mark.slow
def test_klein_gordon_gets_5_pi():
    problem, check = checked(KLEIN_GORDON)
    form = exact_form(problem, {"u": problem.parse("1.0*x*(t**3*x**2 + cos(15.707963267948966*t))")}, check)
    x, t = problem.symbols
    assert sp.expand(form.expressions["u"] - (x * sp.cos(5 * sp.pi * t) + t ** 3 * x ** 3)) == 0
    assert expression_text(form.expressions["u"]) == "x*cos(5*pi*t) + t**3*x**3"
    assert all(d.accepted for d in form.constants)
    assert form.residuals_exact[0] <= form.residuals_numeric[0]


def test_a_pi_lookalike_that_matters_stays_a_number():
    """The true constant is 3.14159265358 (in the equation); pi passes the float pre-check
    (3e-12 apart) but raises the residuals far above round-off, so it is refused; the config's own
    number, read as written, is what is accepted."""
    c = "3.14159265358"
    problem, check = checked({"domain": {"x": [0, 1]}, "equations": [{"lhs": f"u_xx + {c}**2*sin({c}*x)"}],
                              "constraints": [{"on": "x = 0", "value": 0}, {"on": "x = 1", "value": f"sin({c})"}]})
    numeric = {"u": problem.parse(f"sin({c}*x)")}
    assert propose(3.14159265358) == [sp.pi]
    form = exact_form(problem, numeric, check)
    assert form.expressions["u"] == sp.sin(sp.Rational(c) * problem.symbols[0])
    refused = [d for d in form.constants if d.proposed == sp.pi]
    assert refused and not any(d.accepted for d in refused)
    assert refused[-1].residuals_after[0] > 10 * max(refused[-1].residuals_before[0], 1e-12)


def test_joint_failure_falls_back_to_one_at_a_time():
    """exp(-1.0000000000000002*t) is -1 and 3.14159265358 is not pi: the joint try fails, then -1 is
    accepted and pi refused alone; the config's own 3.14159265358 (read as written) is accepted last."""
    c = "3.14159265358"
    problem, check = checked({"domain": {"x": [0, 1], "t": [0, 1]}, "time": "t",
                              "equations": [{"lhs": "u_t - u_xx", "rhs": f"({c}**2 - 1)*exp(-t)*sin({c}*x)"}],
                              "constraints": [{"on": "x = 0", "value": 0}, {"on": "t = 0", "value": f"sin({c}*x)"}]})
    form = exact_form(problem, {"u": problem.parse(f"exp(-1.0000000000000002*t)*sin({c}*x)")}, check)
    by_value = {d.value: d for d in form.constants if d.accepted}
    assert by_value[-1.0000000000000002].proposed == -1 and by_value[3.14159265358].proposed == sp.Rational(c)
    assert not form.expressions["u"].atoms(sp.Float)
    assert any(d.reason == "residuals change beyond round-off" for d in form.constants)


def test_acceptance_rule():
    rule = Acceptance()
    assert rule.accepts((1e-14, 1e-15), (9e-14, 1e-12))          # within 10x or the 1e-12 floor
    assert not rule.accepts((1e-14, 1e-15), (2e-12, 0.0))
    assert rule.accepts((0.0, None), (5e-13, None))
    assert not rule.accepts((1e-14, 1e-15), (float("nan"), 0.0))
    assert not rule.accepts((1e-14, None), (1e-14, 1e-14))       # a constraint appeared from nowhere
    assert not rule.accepts((1e-3, 0.0), (2e-3, 0.0))            # not at round-off: no worsening allowed
    assert rule.accepts((1e-3, 0.0), (1e-3, 1e-13))


@pytest.mark.slow
def test_identification_is_cheap_compared_to_a_run():
    """Well under a second on typical expressions (a run takes 5-500 s)."""
    problem, check = checked(KLEIN_GORDON)
    form = exact_form(problem, {"u": problem.parse("1.0*x*(t**3*x**2 + cos(15.707963267948966*t))")}, check)
    assert form.seconds < 1.0


def test_boundary_layer_normaliser_comes_from_the_expression():
    from desyr.exact.identify import context_bases

    x = sp.Symbol("x", real=True)
    c = 1 / (math.exp(5) - 1)
    expr = -sp.Float(c) + sp.Float(c) * sp.exp(sp.Float(5.0) * x)
    bases = context_bases({"u": expr}, {x: (0.0, 1.0)})
    assert 1 / (sp.exp(5) - 1) in bases
    from desyr.exact.identify import BASES, propose
    assert propose(c, bases=tuple(BASES) + tuple(bases))[0] == 1 / (sp.exp(5) - 1)
    assert propose(c) == [] or propose(c)[0] != 1 / (sp.exp(5) - 1)    # not among the generic bases


def test_a_phase_is_named_by_its_tangent_on_any_quarter_turn():
    import sympy as sp

    from desyr.exact.identify import propose

    phase = sp.atan(sp.sqrt(7) / 21)
    assert propose(float(-phase))[0] == -phase
    # a cosine written as a sine by a search: three quarter turns back
    assert propose(float(-3 * sp.pi / 2 - phase))[0] == -3 * sp.pi / 2 - phase
    assert propose(0.5) == [sp.Rational(1, 2)]       # plain numbers keep their plain forms first
