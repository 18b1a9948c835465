"""Stage 0 with special functions (issue 38, item 3): dsolve's Airy and Bessel answers are kept,
the heat equation's similarity profile gives erf, and radial modes on disks and annuli give Bessel
functions; each ends Proved before any teacher is trained."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest
import sympy as sp
from budgets import full_only
from desyr_sympy import propose
from desyr_sympy.methods.polar import Polar
from desyr_sympy.shared.bessel import real_basis
from desyr_sympy.shared.candidates import usable
from desyr_sympy.shared.round import regular_at_centre

from desyr.api import run
from desyr.extension.registry import load_registry
from desyr.plugin import problem_from_toml

applies = Polar().applies

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "special_stage0"

#: each fixture -> (the solver that must propose its answer, a function the answer must hold)
CASES = {
    "airy": ("dsolve", sp.airyai), "bessel": ("dsolve", sp.besselj), "modified_bessel": ("dsolve", sp.besselk),
    "step_diffusion": ("similarity", sp.erf), "stokes": ("similarity", sp.erf), "drum": ("polar", sp.besselj),
    "disk_heat": ("polar", sp.besselj), "annulus_bessel": ("polar", sp.bessely),
    "annulus_modified": ("polar", sp.besselk),
}


def load(name: str, extra: str = ""):
    return problem_from_toml((FIXTURES / f"{name}.toml").read_text() + extra, name)


@functools.cache
def proposals(name: str):
    return propose(load(name), time_limit=30.0, solvers=[CASES[name][0]])


#: the similarity calls take 2-3 s each (dsolve on the reduced ODE): slow, like the full runs
QUICK = [pytest.param(n, marks=pytest.mark.slow) if CASES[n][0] == "similarity" else n for n in sorted(CASES)]


@pytest.mark.parametrize("name", QUICK)
def test_the_solver_proposes_the_special_function(name):
    solver, function = CASES[name]
    found = proposals(name)
    assert found.origins and set(found.origins) == {solver}, found.attempts
    assert any(c["u"].has(function) for c in found.candidates), found.candidates


@pytest.fixture(scope="module")
def registry():
    return load_registry()


#: one whole run per solver in the suite (the first of its fixtures), every fixture under DESYR_TEST_BUDGET=full:
#: the proposals above are each fixture's, and a run's verdict is the same proof whichever fixture
FIRST_OF_EACH = {min(n for n in CASES if CASES[n][0] == s) for s, _ in CASES.values()}
WHOLE = [n if n in FIRST_OF_EACH else pytest.param(n, marks=full_only("one whole run per solver in the suite"))
         for n in sorted(CASES)]


@pytest.mark.slow
@pytest.mark.parametrize("name", WHOLE)
def test_each_ends_proved_at_stage_0(name, registry, tmp_path):
    result = run(load(name), registry=registry, out=tmp_path / "r", plots=False)
    assert result.verdict == "proved" and result.teacher is None
    # dsolve_ics finds the Airy and Bessel answers too, and separable the heat mode from its initial shape
    also = {"dsolve": "dsolve_ics", "polar": "separable"}.get(CASES[name][0], "")
    assert result.attempts[0].searchers in (f"sympy:{CASES[name][0]}", f"sympy:{also}")


def test_a_bessel_order_the_parser_cannot_hold_is_dropped_with_its_reason():
    x = sp.Symbol("x", real=True)
    assert usable({"u": 0.3 * sp.besselj(0, 2 * x) + 0.7 * sp.airybi(-x)}, [x]) == ""
    assert "besselj" in usable({"u": sp.besselj(sp.sqrt(2), x)}, [x])
    assert "erfi" in usable({"u": sp.erfi(x)}, [x])


def test_the_modified_bessel_equations_complex_basis_becomes_i_and_k():
    x = sp.Symbol("x", real=True)
    c1, c2 = sp.symbols("C1 C2")
    real = real_basis(c1 * sp.besseli(1, 3 * x) + c2 * sp.bessely(1, 3 * sp.I * x) + x)
    assert not real.has(sp.I) and real.has(sp.besselk(1, 3 * x)) and real.has(sp.besseli(1, 3 * x))
    assert real - x in (c1 * sp.besseli(1, 3 * x) + c2 * sp.besselk(1, 3 * x),
                        c2 * sp.besseli(1, 3 * x) + c1 * sp.besselk(1, 3 * x))
    # not linear in its constants: left alone rather than rewritten wrongly
    odd = c1 * c2 * sp.bessely(0, sp.I * x)
    assert real_basis(odd) == odd


def test_a_disk_keeps_only_the_modes_finite_at_its_centre():
    r = sp.Symbol("r", positive=True)
    c1, c2 = sp.symbols("C1 C2")
    assert regular_at_centre(c1 * sp.besselj(0, 2 * r) + c2 * sp.bessely(0, 2 * r), r) == c1 * sp.besselj(0, 2 * r)
    assert regular_at_centre(c1 + c2 * sp.log(r) + 1 / r, r) == c1


def test_data_that_depend_on_the_angle_or_a_box_are_not_the_polar_solvers():
    angular = (FIXTURES / "drum.toml").read_text().replace(
        'u = "besselj(0, 2*sqrt((x - 0.5)**2 + y**2))"', 'u = "x*besselj(1, 2*sqrt((x - 0.5)**2 + y**2))"')
    assert "angle" in applies(problem_from_toml(angular, "angular"))
    box = problem_from_toml('[domain]\nx = [0, 1]\ny = [0, 1]\n[[equations]]\nlhs = "u_xx + u_yy"\n', "box")
    assert "disk" in applies(box)


def test_the_polar_solver_is_listed_and_documented():
    from desyr_sympy.plugin import SOLVER_NAMES

    assert "polar" in SOLVER_NAMES
    text = (Path(__file__).resolve().parents[1] / "docs" / "solvers.md").read_text()
    assert "`polar`" in text and "besselj(0, k*r)" in text
