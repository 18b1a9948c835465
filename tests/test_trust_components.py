"""Issue 11: "Verified" must be unforgeable by a malicious component.

Each role gets deliberately hostile components (``hostile_components.py``), registered in process.  The
invariant checked everywhere (:func:`assert_honest`): the verdict and residuals
of a result equal an independent recomputation from the *reported* expression
text, parsed into a problem built afresh from the same TOML, on verification
points drawn afresh from the reported seed.  A wrong expression is therefore
never ``exact``, or the run stops with one :class:`DesyrError` line.

The holes these tests found (tolerance and seed taken from the mutable context,
expressions verified as objects rather than as the reported text, unreadable
refits ending the run) were fixed in eb5a416; a new hole gets an
``xfail(strict=True)`` test with the hole and the proposed fix in the reason.
"""
from __future__ import annotations

import math

import pytest
from hostile_components import RIGHT_FIT, RIGHT_FIXED, TOML, WRONG, HostilePlugin

from desyr.api import refine, run
from desyr.errors import DesyrError, PluginError
from desyr.extension.registry import load_registry
from desyr.model.residuals import verify
from desyr.testing import make_problem
from desyr.verify.verdict import fresh_points

FAST = "\n[refine.options]\nstarts = 1\n"


def config(*tables: str, refiner: str | None = None) -> str:
    extra = f'\n[refine]\nplugin = "{refiner}"\n' if refiner else FAST
    return TOML + extra + "".join("\n" + t + "\n" for t in tables)


def assert_honest(result, toml: str, seed: int = 0) -> None:
    """The verdict equals an independent recomputation from the reported text (on the verifier's points)."""
    assert result.seed == seed, f"the reported seed changed: {result.seed} != {seed}"
    if result.expression is None:
        assert not result.exact and result.residuals is None
        return
    fresh = make_problem(toml)
    exprs = {f: fresh.parse(text) for f, text in result.expression.items()}
    # the verifier drew its own seed (fresh entropy), which its answer records
    answer = result.verification.answer if result.verification is not None else None
    v = verify(fresh, exprs, fresh_points(fresh, answer["seed"] if answer else seed))
    assert result.residuals is not None
    assert math.isclose(result.residuals.R_eq, v.R_eq, rel_tol=1e-6, abs_tol=1e-12), (result.residuals, v)
    assert math.isclose(result.residuals.R_con, v.R_con, rel_tol=1e-6, abs_tol=1e-12), (result.residuals, v)
    tol = float(fresh.sections.get("selection", {}).get("exact_tolerance", 1e-8))
    assert result.exact_tolerance == tol
    assert result.exact == (v.relative <= tol)


def assert_wrong_not_exact(result) -> None:
    assert result.expression == {"u": "x*(1 - x)"}, result.expression
    assert not result.exact
    assert result.residuals.R_eq > 1.0


@pytest.fixture(scope="module")
def registry():
    return load_registry(extra_plugins=[HostilePlugin()])


def one_line(exc_info) -> str:
    assert isinstance(exc_info.value, DesyrError)
    message = str(exc_info.value)
    assert "\n" not in message, message
    return message


def with_teacher(name: str) -> str:
    return f'[teacher]\nplugin = "{name}"'


def gates(*names: str) -> str:
    return "[selection]\ngates = [" + ", ".join(f'"{n}"' for n in names) + "]"


# -------------------------------------------------------------------- teachers
@pytest.mark.parametrize("teacher,match", [("t_write_points", "read-only"), ("t_write_input", "read-only")])
def test_teacher_writing_read_only_points_is_one_line_error(registry, teacher, match):
    problem = make_problem(config(with_teacher(teacher)))
    with pytest.raises(PluginError, match=match) as info:
        refine(problem, [WRONG], registry=registry, use_teacher=True)
    assert f"teacher '{teacher}'" in one_line(info)


@pytest.mark.parametrize("teacher", ["t_vandal_points"])
def test_teacher_vandalism_ends_the_run_naming_it(registry, teacher):
    """Writing the point sets (write flag turned back on, a frozen field assigned) is one line naming it:
    the damage was done before the frozen field refused, and the run's fingerprint sees it."""
    problem = make_problem(config(with_teacher(teacher)))
    with pytest.raises(PluginError, match=f"teacher '{teacher}' broke its contract: it changed context.points") as info:
        refine(problem, [WRONG], registry=registry, use_teacher=True)
    one_line(info)


@pytest.mark.slow
def test_teacher_does_not_change_the_callers_problem(registry):
    """The problem is frozen: a teacher that rewrites it ends the run with one line naming it, and the
    caller's problem (the one the run verifies against) is as it was."""
    problem = make_problem(config(with_teacher("t_vandal_problem")))
    before = (problem.equations[0].lhs, problem.constraints[0].value, dict(problem.reference), dict(problem.points))
    with pytest.raises(PluginError, match="FrozenInstanceError") as info:
        refine(problem, [WRONG], registry=registry, use_teacher=True)
    assert "teacher 't_vandal_problem'" in one_line(info)
    assert before == (problem.equations[0].lhs, problem.constraints[0].value, dict(problem.reference),
                      dict(problem.points))


def refused_context_write(registry, role: str, name: str, toml: str, command=refine, **kwargs) -> None:
    """The run context is frozen: a component assigning to it ends the run with one line naming it."""
    with pytest.raises(PluginError, match="FrozenInstanceError") as info:
        command(make_problem(toml), **kwargs, registry=registry)
    assert f"{role} '{name}'" in one_line(info)


@pytest.mark.slow
@pytest.mark.parametrize("teacher", ["t_tolerance", "t_tolerance_late"])
def test_teacher_cannot_loosen_the_exact_tolerance(registry, teacher):
    refused_context_write(registry, "teacher", teacher, config(with_teacher(teacher)), candidates=[WRONG],
                          use_teacher=True)


@pytest.mark.slow
def test_teacher_cannot_choose_the_verification_seed(registry):
    refused_context_write(registry, "teacher", "t_seed", config(with_teacher("t_seed")), candidates=[WRONG],
                          use_teacher=True)


# ------------------------------------------------------------------- searchers
@pytest.mark.slow
def test_hostile_searcher_members_are_dropped(registry):
    toml = config(with_teacher("t_benign"), '[search]\nplugin = "s_hostile"\nunary = ["sin"]\nruns = 1')
    result = run(make_problem(toml), registry=registry)
    assert [c.pre_refit_expression for c in result.candidates] == [{"u": "x*(1 - x)"}]
    assert_wrong_not_exact(result)
    assert_honest(result, toml)
    (search_run,) = result.search.runs
    assert len(search_run.dropped) == 8, search_run.dropped
    assert "bad" not in search_run.info            # the object did not reach the result
    assert result.to_json()                         # JSON-safe


@pytest.mark.slow
def test_unreadable_searcher_member_is_dropped_not_fatal(registry):
    toml = config(with_teacher("t_benign"), '[search]\nplugin = "s_unevaluable"\nunary = ["sin"]\nruns = 1')
    try:
        result = run(make_problem(toml), registry=registry)
    except DesyrError as exc:
        assert "\n" not in str(exc)                 # the failure is at least one line
        raise
    assert_wrong_not_exact(result)
    assert_honest(result, toml)


# -------------------------------------------------------------------- refiners
def test_refiner_claiming_another_formula_is_refused_naming_it(registry):
    """r_claims answers x*(1 - x), converged, for every candidate: not the frozen tree with other constants."""
    toml = config(refiner="r_claims")
    with pytest.raises(PluginError, match="refiner 'r_claims' broke its contract on all 2 candidate.*not the frozen "
                                          "tree") as info:
        refine(make_problem(toml), [RIGHT_FIT, "sin(3*x)"], registry=registry)
    one_line(info)


def test_refiner_outputs_in_foreign_terms_are_refused(registry):
    """Each candidate's refit fails with the reason; on every candidate, the run stops naming the refiner."""
    from hostile_components import ForeignRefiner

    from desyr.stages.refit import refit_unit
    from desyr.stages.refit_record import BROKE
    from desyr.testing import make_candidate, make_context

    problem = make_problem(TOML)
    ctx = make_context(problem)
    reasons = []
    for text in ("x**2", "x**3", "x**4", "x**5", "x**6"):
        record = refit_unit((ForeignRefiner(), make_candidate(problem, text), ctx))
        assert record[BROKE] and record["expressions"] is None
        reasons.append(record["refit"]["reason"])
    for needle in ("not variables of the problem", "differ from the candidate", "not a sympy expression",
                   "not a RefitOutcome"):
        assert needle in " ".join(reasons), reasons
    with pytest.raises(PluginError, match="refiner 'r_foreign' broke its contract on all 5 candidate"):
        refine(make_problem(config(refiner="r_foreign")), ["x**2", "x**3", "x**4", "x**5", "x**6"], registry=registry)


def test_refiner_vandalising_points_ends_the_run_naming_it(registry):
    with pytest.raises(PluginError, match="^refiner 'r_vandal' broke its contract: it changed points.refine") as info:
        refine(make_problem(config(refiner="r_vandal")), [WRONG], registry=registry)
    one_line(info)


def test_refiner_cannot_aim_at_the_verification_points(registry):
    """The Piecewise is refused when the refit record is read back through the bounded parser."""
    toml = config(refiner="r_piecewise")
    try:
        result = refine(make_problem(toml), [WRONG], registry=registry)
    except DesyrError as exc:
        assert "\n" not in str(exc) and "Piecewise" in str(exc)
        return
    assert not result.exact
    assert_honest(result, toml)


def test_refiner_unreadable_on_every_candidate_is_one_line_naming_it(registry):
    toml = config(refiner="r_piecewise")
    with pytest.raises(PluginError, match="refiner 'r_piecewise' broke its contract on all 2 .*Piecewise") as info:
        refine(make_problem(toml), [WRONG, RIGHT_FIXED], registry=registry)
    one_line(info)


# ----------------------------------------------------------------------- gates
@pytest.mark.parametrize("gate, toml, candidates, field", [
    ("g_phi", config(gates("g_phi", "physics_equivalence", "complexity")), [RIGHT_FIT, WRONG], "refit, eps_T"),
    ("g_swap", config(gates("g_swap")), [WRONG, RIGHT_FIT], "expressions"),
])
def test_gate_writing_onto_the_candidates_is_one_line_error(registry, gate, toml, candidates, field):
    """Gates read copies: g_swap's swap used to become the answer (verified as reported), g_phi's zeroed
    residuals to reach the record."""
    with pytest.raises(PluginError, match=f"gate '{gate}' broke its contract: it changed candidate c\\d's {field}") \
            as info:
        refine(make_problem(toml), candidates, registry=registry)
    one_line(info)


@pytest.mark.parametrize("gate,match", [
    ("g_empty", "removed all"), ("g_list", "not a GateDecision"), ("g_stranger", "not given"),
    ("g_exit", "SystemExit"),
])
def test_gate_breaking_its_contract_is_one_line_error(registry, gate, match):
    with pytest.raises(PluginError, match=match) as info:
        refine(make_problem(config(gates(gate))), [WRONG], registry=registry)
    assert f"gate '{gate}'" in one_line(info)


@pytest.mark.slow
def test_gate_cannot_loosen_the_exact_tolerance(registry):
    refused_context_write(registry, "gate", "g_tolerance", config(gates("g_tolerance")), candidates=[WRONG])


@pytest.mark.slow
def test_gate_cannot_choose_the_verification_seed(registry):
    refused_context_write(registry, "gate", "g_seed", config(gates("g_seed")), candidates=[WRONG])


@pytest.mark.parametrize("gate", ["g_unevaluable", "g_string"])
def test_gate_planting_an_unchecked_expression_is_one_line_error(registry, gate):
    try:
        result = refine(make_problem(config(gates(gate))), [WRONG], registry=registry)
    except DesyrError as exc:
        assert "\n" not in str(exc)
    except Exception as exc:  # noqa: BLE001 - this is the bug
        raise AssertionError(f"{type(exc).__name__} escaped: {exc}") from None
    else:
        assert not result.exact


@pytest.mark.slow
@pytest.mark.parametrize("gate", ["g_piecewise", "g_liar"])
def test_gate_cannot_verify_what_the_reported_text_is_not(registry, gate):
    toml = config(gates(gate))
    try:
        result = refine(make_problem(toml), [WRONG], registry=registry)
    except DesyrError as exc:          # refusing the planted object is as good as an honest verdict
        assert "\n" not in str(exc)
        return
    assert not result.exact
    assert_honest(result, toml)


# ------------------------------------------- forgeries of the 0.3 review: the verdict is the verifier's
@pytest.mark.parametrize("teacher", ["t_swap_after_read_back", "t_setattr_tolerance"])
@pytest.mark.slow
def test_forgery_of_the_review_cannot_make_wrong_exact(registry, teacher):
    import desyr.config.settings

    default = desyr.config.settings.METHOD.exact_tolerance
    toml = config(with_teacher(teacher))
    try:
        result = refine(make_problem(toml), [WRONG], registry=registry, use_teacher=True)
    except PluginError as exc:      # the run saw the change to its context: refused, naming the teacher
        assert str(exc).startswith(f"teacher '{teacher}' broke its contract: it changed context.method")
        return
    finally:
        object.__setattr__(desyr.config.settings.METHOD, "exact_tolerance", default)   # t_setattr_tolerance's damage
    assert not result.exact and result.verdict == "not_exact", (result.expression, result.verification)
    assert result.exact_tolerance == 1e-8 and type(result.exact_tolerance) is float
    assert_honest(result, toml)


@pytest.mark.parametrize("teacher", ["t_float_subclass", "t_context_class"])
@pytest.mark.slow
def test_forgery_through_the_context_is_refused(registry, teacher):
    refused_context_write(registry, "teacher", teacher, config(with_teacher(teacher)), candidates=[WRONG],
                          use_teacher=True)


@pytest.mark.slow
def test_a_patched_verifier_call_is_caught_by_desyr_verify(registry, tmp_path, capsys):
    """In-process code can forge what the run writes; re-verification in a clean process cannot be forged."""
    import desyr.verify.attach
    from desyr.cli.main import main

    real = desyr.verify.attach.request_verdict
    try:
        result = refine(make_problem(config(with_teacher("t_patch_verifier"))), [WRONG], registry=registry,
                        use_teacher=True, out=tmp_path / "o", plots=False)
    finally:
        desyr.verify.attach.request_verdict = real
    assert result.verdict == "proved"                   # forged in the run's own process
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "o"), "--require", "verified"]) == 1
    assert capsys.readouterr().out.startswith("Not exact")
