"""The bundled set ``special:``: solutions through erf, erfc, Bessel and Airy functions, with default
settings.

Each file loads without a [teacher] table and without a ``unary`` list (a new user's config), and its
reference solves every equation and constraint, numerically on fresh points and by proof.  Whole runs
of the set are a benchmark (docs/benchmarks.md).
"""
from importlib import resources

import pytest
import sympy as sp

from desyr.config.loading import load_problem, tomllib
from desyr.model.points import make_verification_points
from desyr.model.residuals import verify
from desyr.symbolic.special import SPECIAL_CLASSES as CLASSES
from desyr.verify.proof import prove


def _files():
    folder = resources.files("desyr_paper") / "special"
    return sorted(f for f in folder.iterdir() if f.name.endswith(".toml"))


def _load(res, registry):
    return load_problem(f"special:{res.name[:-5].partition('_')[2]}", registry)


@pytest.mark.parametrize("res", _files(), ids=lambda f: f.name[:-5])
def test_problem_is_a_new_users_config_and_its_reference_is_proved(registry, res):
    text = res.read_text(encoding="utf-8")
    raw = tomllib.loads(text)
    assert text.startswith("#"), "each file starts with a header comment"
    assert "teacher" not in raw, "the set uses the default teacher"
    assert "unary" not in raw.get("search", {}), "the set uses the default operators"
    problem = _load(res, registry)
    assert problem.reference and set(problem.reference) == set(problem.fields)
    assert any(e.has(*CLASSES) for e in problem.reference.values()), "a special function in the answer"
    v = verify(problem, problem.reference, make_verification_points(problem, 5))
    assert max(v.R_eq_per_equation) < 1e-10 and max(v.R_con_per_constraint) < 1e-10, (res.name, v)
    assert prove(problem, problem.reference).proved, res.name


def test_the_set_covers_the_issues_functions(registry):
    problems = [_load(res, registry) for res in _files()]
    assert len(problems) >= 8
    used = {type(f) for p in problems for e in p.reference.values() for f in e.atoms(sp.Function)}
    assert {sp.erf, sp.erfc, sp.airyai, sp.besselj, sp.bessely, sp.besselk} <= used
    assert any(p.geometry and p.time for p in problems), "a Bessel mode in time on a disk"
    assert {"step_diffusion", "stokes_first", "airy", "drum_mode", "disk_bessel_heat",
            "annulus_bessel", "annulus_modified_bessel", "black_scholes_call"} <= {p.name for p in problems}


def test_erfc_written_as_one_minus_erf_is_proved(registry):
    """A search finds ``1 - erf(...)`` where the config writes ``erfc(...)``: the proof sees they agree
    (SymPy's simplify alone left ``1 - erf(z) - erfc(z)`` unreduced, so the run ended Verified)."""
    problem = load_problem("special:stokes_first", registry)
    y, t = problem.symbols
    assert prove(problem, {"u": 1 - sp.erf(y / sp.sqrt(t))}).proved
    assert not prove(problem, {"u": 1 - sp.erf(y / (2 * sp.sqrt(t)))}).proved
