"""A series candidate through the pipeline: Stage B (nothing to refit, or float constants refit),
Stage C's cleaning (never inside a sum), the exact form (an exact series left alone), result.json,
the reports, the Python API and notebook views, and the verifier (Verified on numbers at best)."""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from desyr.api import load_result, refine  # the api's results show themselves in a notebook
from desyr.config.loading import problem_from_toml
from desyr.model.candidates import topology
from desyr.stages.refit import parse_candidate
from desyr.symbolic.parameterize import parameterize
from desyr.symbolic.series import series_index
from desyr.symbolic.simplify import cleaning_proposal

ROD = """
name = "rod"
title = "A rod with cold ends"
time = "t"

[domain]
x = [0, 1]
t = [0, 1]

[[equations]]
lhs = "u_t - u_xx"

[[constraints]]
on = "x = 0"
value = 0

[[constraints]]
on = "x = 1"
value = 0

[[constraints]]
on = "t = 0"
value = "x*(1 - x)"

[reference]
u = "Sum(8/(pi**3*(2*k - 1)**3)*sin((2*k - 1)*pi*x)*exp(-(2*k - 1)**2*pi**2*t), (k, 1, oo))"
"""
ANSWER = "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))"


@pytest.fixture(scope="module")
def rod():
    return problem_from_toml(ROD)


def test_a_series_candidate_is_read_and_its_constants_are_parameters(rod) -> None:
    u = parse_candidate(rod, "Sum(4.01*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-9.8*n**2*t), (n, 1, oo))")["u"]
    assert isinstance(u, sp.Sum)
    free = parameterize(u)
    assert sorted(free.values) == [-9.8, -4.01, 4.01] and isinstance(free.expression, sp.Sum)
    assert free.substitute() == u and isinstance(topology(u), sp.Sum)


def test_cleaning_never_drops_a_term_inside_a_sum(rod) -> None:
    n = series_index("n")
    x = rod.symbols[0]
    inside = sp.Sum((sp.Float(1e-14) * n**8 + 1) * sp.sin(n * x) / n**12, (n, 1, sp.oo))
    outside = sp.Float(1e-14) * x + inside
    assert cleaning_proposal(outside, 1e-10, 1e-12) == inside


@pytest.mark.slow
def test_an_exact_series_goes_through_refine_to_every_output(rod, tmp_path) -> None:
    result = refine(rod, [ANSWER], out=tmp_path, plots=False)
    assert result.verdict == "proved", result.verification.reason      # the four-part proof (docs/verify.md)
    assert result.candidates[0].status == "fixed"                       # nothing to refit
    assert result.exact_form is not None and result.exact_form.symbolic_match is True
    assert result.exact_form.expressions["u"] == result.expression["u"]     # left alone
    series = result.series.fields["u"]
    assert series.terms > 5 and series.tail_bound is not None and series.tail_bound < 1e-10
    assert series.bound_holds == "0 <= t <= 1, 0 <= x <= 1"
    stored = json.loads((tmp_path / "result.json").read_text())
    assert stored["series"]["fields"]["u"]["terms"] == series.terms
    again = load_result(tmp_path)
    assert isinstance(again.sympy(), sp.Sum) and again.series == result.series
    assert "\\sum_{n=1}^{\\infty}" in again._repr_latex_()
    assert "Series: u keeps" in (tmp_path / "report.md").read_text()
    assert "\\sum_{n=1}^{\\infty}" in (tmp_path / "report.md").read_text()
    X = np.array([[0.3, 0.1], [0.5, 0.0]])
    values = again.to_callable()(X)[:, 0]
    assert abs(values[1] - 0.25) < 1e-7        # u(1/2, 0) = x*(1 - x)


@pytest.mark.slow
def test_a_series_with_float_constants_is_refit_and_identified(rod, tmp_path) -> None:
    result = refine(rod, ["Sum(4.01*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-9.8*n**2*t), (n, 1, oo))"],
                    out=tmp_path, plots=False)
    assert result.candidates[0].status == "converged" and result.verdict == "verified"
    assert result.exact_form is not None
    assert rod.parse(result.exact_form.expressions["u"]) == rod.parse(ANSWER)


@pytest.mark.slow
def test_a_wrong_series_is_not_exact(rod, tmp_path) -> None:
    wrong = ANSWER.replace("exp(-n**2*pi**2*t)", "exp(-n**2*pi*t)")          # a wrong eigenvalue
    result = refine(rod, [wrong], out=tmp_path, plots=False)
    assert result.verdict == "not_exact"
