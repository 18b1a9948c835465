"""What Proved means for a series (docs/verify.md): the textbook series are proved, with the sense of
each part said, and none of the red team's wrong series is (issue 46, acceptance 3)."""
from __future__ import annotations

import pytest
from series_cases import SOLVER_FORMS, TEXTBOOK, WRONG, answer, problem

from desyr.verify.series_proof import prove_series

pytestmark = pytest.mark.slow


def proof(fixture: str, text: str):
    p = problem(fixture)
    return prove_series(p, {"u": answer(p, text)})


@pytest.mark.parametrize("name", sorted(TEXTBOOK))
def test_a_textbook_series_is_proved(name):
    fixture, text = TEXTBOOK[name]
    found = proof(fixture, text)
    assert found.proved, found.reason
    assert set(found.parts) == {"terms", "coefficients", "family", "differentiation"}
    assert any(name in found.parts["family"] for name in ("Sturm-Liouville", "trigonometric system", "Fourier-Bessel"))


@pytest.mark.parametrize("name", sorted(SOLVER_FORMS))
def test_the_solvers_forms_are_proved(name):
    found = proof(*SOLVER_FORMS[name])
    assert found.proved, found.reason


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_series_is_not_proved_and_says_where(name):
    fixture, text, where = WRONG[name]
    found = proof(fixture, text)
    assert not found.proved
    assert where in found.reason, found.reason


def test_the_senses_are_said_where_termwise_differentiation_stops():
    rod = proof(*TEXTBOOK["rod"])
    assert "closed domain" in rod.reason and "holds classically" in rod.reason and "pointwise on its set" in rod.reason
    cold = proof(*TEXTBOOK["cold_ends"])        # data that disagree with the ends: L2 at t = 0 only
    assert "every compact part of the open domain" in cold.reason
    assert "initial, at t = 0 in the L2 sense of the expansion theorem" in cold.reason
    assert "holds classically" in cold.reason
    string = proof(*TEXTBOOK["string"])         # x(1 - x): coefficients ~ n**-3, second derivatives ~ 1/n
    assert "in the sense of distributions" in string.reason


def test_the_zero_mode_and_the_periodic_pair_are_named_in_the_family():
    neumann = proof(*TEXTBOOK["neumann_rod"])
    assert "cos(j >= 0)" in neumann.parts["family"]
    ring = proof(*TEXTBOOK["ring"])
    assert "cos(j >= 0), sin(j >= 1)" in ring.parts["family"]
