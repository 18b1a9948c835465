"""Degenerate limits before identification (issue 36, item 4): constants that ran off to huge values
while the tree stayed moderate are taken to the limit they point to, the limit tree is refit with the
physics and identification names what the refit could only approach."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from desyr_scipy.refiner import ScipyRefiner

from desyr.api import refine
from desyr.config.loading import load_problem
from desyr.model.points import make_verification_points
from desyr.model.problem import Problem
from desyr.stages.closed_form import identify
from desyr.symbolic.limits import diverging, limit_tree
from desyr.testing import make_candidate, make_context, refit_pool

FIXTURES = Path(__file__).parent / "fixtures" / "limits"
x = sp.Symbol("x")
F = sp.Float
X13 = np.linspace(1.0, 3.0, 60)[:, None]


@pytest.mark.parametrize("values, expected", [
    ([-143254104.04, 143254103.66], [0, 1]),
    ([2.3e9, 0.3, 1.15e9], [0, 2]),
    ([3e4, 1.5e4], []),                 # large, but within the gap of the tree's exact numbers
    ([1e-9, 0.5], []),                  # small constants are no divergence
    ([1e16, 1e8, 0.5], [0, 1]),         # two rates, both diverging
])
def test_diverging_constants_lie_above_a_gap(values: list[float], expected: list[int]) -> None:
    assert diverging(values) == expected


@pytest.mark.parametrize("expr, limit", [
    (F(-143254104.04094148) / (1 + F(143254103.65679413) * x), -1 / x),              # the p01 refit
    (F(2.3e9) / (1 + F(0.3) * x + F(1.15e9) * x ** 2), 2 / x ** 2),                  # two terms drop
    (F(-2e8) / (1 + F(1e8) * sp.exp(x)), -2 * sp.exp(-x)),                            # logistic -> exp
    (F(0.5) * sp.sin(x) + F(3e8) / (1 + F(1.5e8) * x), sp.sin(x) / 2 + 2 / x),        # one term of a sum
    ((F(2e8) * x + 1) / (F(1e8) + x), 2 * x),                                         # a numerator term drops
])
def test_the_limit_divides_through_and_drops_the_vanishing_terms(expr: sp.Expr, limit: sp.Expr) -> None:
    out = limit_tree(expr, [x], X13)
    assert out is not None
    values = [complex(out.subs(x, v) - limit.subs(x, v)) for v in (1.0, 1.7, 2.9)]
    assert max(abs(v) for v in values) <= 1e-7


@pytest.mark.parametrize("expr", [
    F(1.5) * x + F(2.5),                                       # nothing large
    F(3e4) / (1 + F(1.5e4) * x),                               # large, not diverging
    F(2e8) * x - F(2e8) * x + F(0.5) * sp.exp(x),              # folded by sympy: nothing left
    F(1e8) * sp.sin(F(1e-8) * x),                              # a diverging constant inside sin: not rational
    F(2e8) * x + F(1e8),                                       # the tree itself diverges
])
def test_no_limit_where_nothing_diverges_to_a_finite_tree(expr: sp.Expr) -> None:
    assert limit_tree(expr, [x], X13) is None


def test_a_huge_constant_the_solution_needs_is_kept() -> None:
    # 1/(1 + 1e6*x) on [0, 1] is near 1 at x = 0: its limit 1e-6/x is not the same function there
    X01 = np.linspace(0.0, 1.0, 60)[:, None]
    assert limit_tree(1 / (1 + F(1e6) * x), [x], X01) is None


# moderate starts: the refit itself pushes the constants off (p01's is the search's tree of an actual run)
LIMITS = [
    ("painleve2_rational.toml", "-260.649671599797/(1 + 260.0590227798675*x)", "-1/x"),
    ("inverse_square.toml", "5.0/(1 + 0.3*x + 4.0*x**2)", "x**(-2)"),
    ("logistic_limit.toml", "3.0/(1 + 0.5*exp(x))", "2*exp(-x)"),
]


def _refit(config: str, candidate: str) -> tuple[Problem, dict[str, sp.Expr], str]:
    problem = load_problem(str(FIXTURES / config))
    cand = make_candidate(problem, candidate)
    refit_pool([cand], ScipyRefiner(starts=1), make_context(problem))
    assert cand.expressions is not None
    return problem, dict(cand.expressions), cand.cleaning_note or ""


@pytest.mark.parametrize("config, candidate, reference", LIMITS)
def test_stage_b_takes_the_limit_and_identification_names_it(config: str, candidate: str, reference: str) -> None:
    problem, exprs, note = _refit(config, candidate)
    assert "degenerate limit taken" in note and "rejected" not in note
    form = identify(problem, exprs, make_verification_points(problem, 0))
    assert form.symbolic_match is True
    exact = problem.parse(form.expressions["u"])
    assert not exact.has(sp.Float) and sp.simplify(exact - problem.parse(reference)) == 0


def test_moderate_constants_are_left_as_they_are() -> None:
    problem, exprs, note = _refit("moderate_rational.toml", "1.9/(1 + 2.8*x)")
    assert "degenerate limit" not in note
    form = identify(problem, exprs, make_verification_points(problem, 0))
    assert form.symbolic_match is True


@pytest.mark.slow
def test_painleve2_candidate_ends_proved() -> None:
    problem = load_problem(str(FIXTURES / "painleve2_rational.toml"))
    result = refine(problem, ["-143254104.04/(1 + 143254103.66*x)"], plots=False)
    assert result.verdict == "proved", result.verification
    exact = result.solution(exact=True)
    assert exact is not None and sp.simplify(exact["u"] + 1 / problem.symbols[0]) == 0
