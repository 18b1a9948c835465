"""Stage C's cleaning with a refit (``desyr.symbolic.degenerate``, ``desyr.stages.select.reduce_degenerate``)
and kinks: a DiracDelta never evaluates to 0.

The two conspiracies are from an outside review: both were "Verified" with residuals at round-off,
and neither was the solution's true form.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from desyr.api import load_problem, refine, run
from desyr.config.settings import METHOD
from desyr.extension.registry import load_registry
from desyr.model.candidates import Candidate
from desyr.plugin import ParetoMember, Searcher, hookimpl
from desyr.runtime.progress import Progress
from desyr.stages.measure import clean, measure
from desyr.symbolic.degenerate import near_degenerate_parts, reduce
from desyr.symbolic.numeric import evaluate
from desyr.testing import SINE_POISSON_1D, make_context, make_problem

FIXTURES = Path(__file__).parent / "fixtures"
QUIET = Progress(verbose=False)

#: 1-D Poisson, solution x + x**2 + ... + x**6: exp's Taylor terms absorbed by the coefficients
POLY_CONSPIRACY = ("(x + x**4)*(1.0000051451505796*x + 0.9999999999867727*x**2 "
                   "+ exp(-5.145150579633083e-06*x))")


def _ode_conspiracy(gap: float) -> str:
    """u = a*sin(w1*t) + b*sin(w2*t) with a + b = 1 and a*(w1 - 1) + b*(w2 - 1) = 0 (so u' = v to
    first order), v likewise with cos: the review's pair, with w2 - 1 = gap."""
    a, b = 1.157178797390821, -0.15717879739082105
    w1, w2 = 1 - b * gap / a, 1 + gap
    return (f"u = {a!r}*sin({w1!r}*t) - {-b!r}*sin({w2!r}*t); "
            f"v = {a!r}*cos({w1!r}*t) - {-b!r}*cos({w2!r}*t)")


# the review's values: the rates differ by 7e-10, which the refit's parameterization already ties
REVIEW_ODE = ("u = 1.157178797390821*sin(1.000000000114658*t) - 0.15717879739082105*sin(1.0000000008441339*t); "
              "v = 1.157178797390821*cos(1.000000000114658*t) - 0.15717879739082105*cos(1.0000000008441339*t)")


# ------------------------------------------------------------------ the two review cases
@pytest.mark.slow
def test_poly_poisson_conspiracy_becomes_the_polynomial():
    problem = load_problem(str(FIXTURES / "poly_poisson.toml"))
    result = refine(problem, [POLY_CONSPIRACY], progress=QUIET)
    x = problem.symbols[0]
    assert result.exact is True and result.verdict == "proved", result.verification
    form = result.sympy()
    assert not form.atoms(sp.Float), form
    assert sp.expand(form - sum(x ** k for k in range(1, 7))) == 0
    assert result.exact_form is not None and result.exact_form.symbolic_match is True
    note = result.to_dict()["candidates"][0]["cleaning"]
    assert "cleaned with a refit" in note and "vanishing argument exp(" in note


@pytest.mark.slow
@pytest.mark.parametrize("candidate", [_ode_conspiracy(1e-8), REVIEW_ODE], ids=["gap-1e-8", "review"])
def test_ode_system_like_terms_merge_to_sin_and_cos(candidate):
    problem = load_problem(str(FIXTURES / "ode_system.toml"))
    result = refine(problem, [candidate], progress=QUIET)
    t = problem.symbols[0]
    assert result.exact is True and result.verdict == "proved", result.verification
    assert result.sympy("u") == sp.sin(t) and result.sympy("v") == sp.cos(t)
    assert result.exact_form is not None and result.exact_form.symbolic_match is True


@pytest.mark.slow
def test_cleaning_note_reaches_result_json_and_report(tmp_path):
    problem = load_problem(str(FIXTURES / "ode_system.toml"))
    refine(problem, [_ode_conspiracy(1e-8)], progress=QUIET, out=tmp_path, plots=False)
    import json

    record = json.loads((tmp_path / "result.json").read_text())["candidates"][0]
    assert record["cleaned"] is True and "u: like terms" in record["cleaning"]
    assert "cleaned with a refit" in (tmp_path / "report.md").read_text()


# ------------------------------------------------------------------ detection
def _parts(text: str, toml: str = SINE_POISSON_1D):
    problem = make_problem(toml)
    ctx = make_context(problem)
    X = np.vstack([ctx.points.refine] + list(ctx.points.constraints))
    exprs = {"u": problem.parse(text)}
    return problem, exprs, near_degenerate_parts(exprs, problem.symbols, X, METHOD)


def test_each_kind_is_found_and_reduced():
    problem, exprs, parts = _parts("2.5*exp(3e-6*x)*x + 0.3*sin(2e-7*x) + cos(1.2 + 4e-5*x) + 0.9999999*x**2")
    x = problem.symbols[0]
    found = {(p.kind, p.after) for p in parts}
    assert found == {("near integer", 1), ("vanishing argument", 1), ("vanishing argument", sp.Float(2e-7) * x),
                     ("vanishing argument", sp.cos(sp.Float(1.2)))}
    reduced, applied = reduce(exprs, parts)
    assert len(applied) == 4
    assert reduced["u"] == sp.Float(2.5) * x + sp.Float(0.3) * sp.Float(2e-7) * x + sp.cos(sp.Float(1.2)) + x ** 2


def test_like_terms_merge_only_when_nearly_equal():
    problem, exprs, parts = _parts("1.2*sin(3.0000001*x) - 0.2*sin(3.0000002*x) + 0.5*sin(3.1*x)")
    x = problem.symbols[0]
    (part,) = [p for p in parts if p.kind == "like terms"]
    assert part.after == sp.Float(1.0) * sp.sin(sp.Float(3.0000001) * x) + sp.Float(0.5) * sp.sin(sp.Float(3.1) * x)


def test_an_ordinary_tree_has_no_part_and_costs_no_refit():
    problem = make_problem()
    ctx = make_context(problem)
    cand = Candidate("c", {"u": problem.parse("sin(3.141592653589793*x) + 0.5*exp(2.0*x)")})
    cand.expressions = dict(cand.search_expressions)
    measure(cand, ctx)

    def refit(exprs):
        raise AssertionError("refit called without a near-degenerate part")

    clean(cand, ctx, refit)
    assert not cand.cleaned and cand.cleaning_note is None


@pytest.mark.slow
def test_a_rate_that_matters_is_kept():
    """exp(-0.0005*x) solves u' + 0.0005 u = 0: its argument is below the tolerance, but removing it
    breaks the equation, so the acceptance check refuses the reduced tree."""
    toml = """
[domain]
x = [0, 1]
[[equations]]
lhs = "u_x + 0.0005*u"
[[constraints]]
on = "x = 0"
value = 1
[points]
refine = 200
verify = 200
search = 50
validate = 50
"""
    problem = make_problem(toml)
    result = refine(problem, ["exp(-0.0005*x)"], progress=QUIET)
    assert result.exact is True and result.expression == {"u": "exp(-0.0005*x)"}
    assert "none kept" in result.to_dict()["candidates"][0]["cleaning"]


def test_a_refit_that_raises_is_a_rejected_proposal():
    problem = load_problem(str(FIXTURES / "poly_poisson.toml"))
    ctx = make_context(problem)
    cand = Candidate("c", {"u": problem.parse(POLY_CONSPIRACY)})
    cand.expressions = dict(cand.search_expressions)
    measure(cand, ctx)
    before = dict(cand.expressions)

    def refit(exprs):
        raise RuntimeError("refiner broke")

    clean(cand, ctx, refit)
    assert cand.expressions == before and "none kept" in cand.cleaning_note


# ------------------------------------------------------------------ kinks
def test_dirac_delta_evaluates_to_nan():
    x = sp.Symbol("x", real=True)
    X = np.linspace(-1, 1, 5)[:, None]
    assert np.all(np.isnan(evaluate(sp.DiracDelta(x - sp.Rational(1, 2)), [x], X)))
    assert np.all(np.isnan(evaluate(sp.diff(sp.Abs(x), x, 2) + 1, [x], X)))
    assert np.array_equal(evaluate(sp.Heaviside(x), [x], X), [0, 0, 0.5, 1, 1])


@pytest.mark.parametrize("candidate", ["sin(pi*x) + abs(x - 1/2) - 1/2", "sin(3.1*x) + abs(x - 0.5) - 0.5"])
def test_kinked_candidate_is_not_exact(candidate):
    result = refine(load_problem("paper:sine_poisson_1d"), [candidate], progress=QUIET)
    assert result.exact is False
    (record,) = result.to_dict()["candidates"]
    assert record["status"] == "failed" and record["converged"] is False


class KinkedSearcher(Searcher):
    """Proposes the kinked expression (and a fitted variant) whatever the samples say."""

    name = "s_kinked"
    supported_binary = frozenset({"+", "-", "*"})
    supported_unary = frozenset({"sin", "abs"})

    def search(self, task):
        x = sp.Symbol("x")
        half = sp.Rational(1, 2)
        return [ParetoMember(sp.sin(sp.pi * x) + sp.Abs(x - half) - half, 8, 0.0),
                ParetoMember(sp.sin(sp.Float(3.1) * x) + sp.Abs(x - sp.Float(0.5)) - sp.Float(0.5), 8, 1e-3)]


class KinkedPlugin:
    @hookimpl
    def desyr_register_searchers(self):
        return [KinkedSearcher]


def test_searcher_returning_a_kink_ends_not_exact(tmp_path):
    X = np.linspace(0, 1, 101)[:, None]
    np.savez(tmp_path / "samples.npz", X=X, Y=np.sin(np.pi * X[:, 0]) + np.abs(X[:, 0] - 0.5) - 0.5)
    toml = SINE_POISSON_1D + f"""
[teacher]
plugin = "samples"
[teacher.options]
path = "{tmp_path / 'samples.npz'}"
[search]
plugin = "s_kinked"
binary = ["+", "-", "*"]
unary = ["sin", "abs"]
runs = 1
"""
    registry = load_registry(extra_plugins=[KinkedPlugin()])
    result = run(make_problem(toml), registry=registry, progress=QUIET, cache_dir=tmp_path / "cache")
    assert result.exact is False
    statuses = [c["status"] for c in result.to_dict()["candidates"]]
    assert statuses and all(s == "failed" for s in statuses)
