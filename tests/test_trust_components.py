"""Issue 11: "Verified" must be unforgeable by a malicious component.

Each role gets deliberately hostile components, registered in process.  The
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
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from desyr.api import refine, run
from desyr.errors import DesyrError, PluginError
from desyr.model.points import make_verification_points
from desyr.physics import verify
from desyr.plugin import (Gate, GateDecision, ParetoMember, Refiner, RefitOutcome, SearchResult, Searcher, Teacher,
                          TeacherModel, hookimpl)
from desyr.registry import load_registry
from desyr.testing import SINE_POISSON_1D, make_problem

# the testing problem with a small verification set (fast), solution sin(pi x)
TOML = SINE_POISSON_1D.replace("verify = 300", "verify = 60")
FAST = "\n[refine.options]\nstarts = 1\n"
WRONG = "x*(1 - x)"            # satisfies the constraints, R_eq ~ 5
RIGHT_FIXED = "sin(pi*x)"      # the solution, no constant to refit
RIGHT_FIT = "sin(3.1*x)"       # the solution after the refit


def config(*tables: str, refiner: str | None = None) -> str:
    extra = f'\n[refine]\nplugin = "{refiner}"\n' if refiner else FAST
    return TOML + extra + "".join("\n" + t + "\n" for t in tables)


def assert_honest(result, toml: str, seed: int = 0) -> None:
    """The verdict equals an independent recomputation from the reported text."""
    assert result.seed == seed, f"the reported seed changed: {result.seed} != {seed}"
    if result.expression is None:
        assert not result.exact and result.residuals is None
        return
    fresh = make_problem(toml)
    exprs = {f: fresh.parse(text) for f, text in result.expression.items()}
    v = verify(fresh, exprs, make_verification_points(fresh, seed))
    assert result.residuals is not None
    assert math.isclose(result.residuals.R_eq, v.R_eq, rel_tol=1e-6, abs_tol=1e-12), (result.residuals, v)
    assert math.isclose(result.residuals.R_con, v.R_con, rel_tol=1e-6, abs_tol=1e-12), (result.residuals, v)
    tol = float(fresh.sections.get("selection", {}).get("exact_tolerance", 1e-8))
    assert result.exact_tolerance == tol
    assert result.exact == (max(v.R_eq, v.R_con) <= tol)


def assert_wrong_not_exact(result) -> None:
    assert result.expression == {"u": "x*(1 - x)"}, result.expression
    assert not result.exact
    assert result.residuals.R_eq > 1.0


# ------------------------------------------------------------------ components
class SineModel(TeacherModel):
    fields = ["u"]

    def __init__(self, ctx=None, on_predict=None):
        self.ctx, self.on_predict = ctx, on_predict

    def predict(self, X):
        if self.on_predict:
            self.on_predict(self, X)
        return np.sin(np.pi * np.asarray(X, dtype=float)[:, :1])


class BenignTeacher(Teacher):
    name = "t_benign"

    def prepare(self, problem, context):
        return SineModel(context)


class WritesSearchPoints(Teacher):
    """ctx.points.search[:] = 0 on the read-only array."""
    name = "t_write_points"

    def prepare(self, problem, context):
        context.points.search[:] = 0
        return SineModel(context)


class WritesItsInput(Teacher):
    """X[:] = 0 on whatever predict is given."""
    name = "t_write_input"

    def prepare(self, problem, context):
        def zero(model, X):
            X[:] = 0
        return SineModel(context, zero)


class VandalPoints(Teacher):
    """Turns the write protection off and overwrites every point set, replaces arrays and
    truncates the context's lists."""
    name = "t_vandal_points"

    def prepare(self, problem, context):
        pts = context.points
        for arr in (pts.search, pts.refine, pts.verify, pts.validate, *pts.constraints):
            arr.flags.writeable = True      # the flag is a guard against accidents only
            arr[:] = 0.5
        pts.verify = np.zeros((1, 1))
        pts.constraints[:] = [np.full((1, 1), 0.5) for _ in pts.constraints]
        return SineModel(context)


class VandalProblem(Teacher):
    """Rewrites the problem it is given: equation lhs = 0, constraints trivial, no reference,
    one verification point, a huge exact tolerance in the raw sections."""
    name = "t_vandal_problem"

    def prepare(self, problem, context):
        for eq in problem.equations:
            eq.lhs, eq.forcing, eq.text = sp.Integer(0), sp.Integer(0), "0"
        for c in problem.constraints:
            c.value = c.operator
        problem.reference = None
        problem.points["verify"] = 1
        problem.sections.setdefault("selection", {})["exact_tolerance"] = 1.0
        context.problem.constraints.clear()
        return SineModel(context)


class LoosensTolerance(Teacher):
    """Replaces the run's method constants (RunContext is not frozen)."""
    name = "t_tolerance"

    def prepare(self, problem, context):
        context.method = replace(context.method, exact_tolerance=1e300)
        return SineModel(context)


class LoosensToleranceLate(Teacher):
    """The same, but from the model's predict, which the api calls once more at the end
    (post hoc teacher error) - after the verification points were drawn."""
    name = "t_tolerance_late"

    def prepare(self, problem, context):
        def loosen(model, X):
            model.ctx.method = replace(model.ctx.method, exact_tolerance=1e300)
        return SineModel(context, loosen)


class ChoosesSeed(Teacher):
    """Sets the run's seed, from which the verification points are drawn."""
    name = "t_seed"

    def prepare(self, problem, context):
        context.seed = 12345
        return SineModel(context)


class HostileSearcher(Searcher):
    name = "s_hostile"
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = frozenset({"sin"})

    def search(self, task):
        task.X[:] = 0           # its own copies; nothing reaches the run's points
        task.y[:] = 0
        x = sp.Symbol("x")      # no assumptions: same name, mapped onto the problem's x
        return SearchResult([
            ParetoMember(sp.Symbol("y") + x, 3, 0.0),                 # foreign symbol
            ParetoMember(sp.Symbol("u_xx"), 1, 0.0),                  # a jet of the field
            ParetoMember("sin(pi*x)", 3, 0.0),                        # a string
            ParetoMember(sp.sin(sp.pi * x), 3, float("nan")),         # NaN loss
            ParetoMember(sp.sin(sp.pi * x), True, 0.0),               # bool complexity
            ParetoMember(sp.sin(sp.pi * x), 3, "low"),                # string loss
            ParetoMember(sp.zoo * x, 3, 0.0),                         # undefined
            object(),
            ParetoMember(x * (1 - x), 5, 1e-3),                       # the only usable member: wrong
        ], {"bad": object(), "nan": float("nan")})


class UnevaluableSearcher(Searcher):
    """A member in the problem's variables that numpy cannot evaluate (an undefined function)."""
    name = "s_unevaluable"
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = frozenset({"sin"})

    def search(self, task):
        x = sp.Symbol("x")
        return [ParetoMember(sp.Function("f")(x), 3, 1.0), ParetoMember(x * (1 - x), 5, 1e-3)]


class ClaimsConverged(Refiner):
    """Returns a wrong expression claiming convergence with a zero objective."""
    name = "r_claims"

    def refine(self, candidate, problem, points):
        x = problem.symbols[0]
        return RefitOutcome({"u": x * (1 - x)}, "converged", True, objective=0.0)


class ForeignRefiner(Refiner):
    """Right-looking outcomes in foreign symbols or of the wrong type."""
    name = "r_foreign"

    def refine(self, candidate, problem, points):
        kind = str(candidate.search_expressions["u"])
        y = sp.Symbol("y")
        if "x**2" in kind:
            return RefitOutcome({"u": sp.sin(sp.pi * y)}, "converged", True)        # foreign symbol
        if "x**3" in kind:
            return RefitOutcome({"v": sp.sin(sp.pi * problem.symbols[0])}, "converged", True)  # other field
        if "x**4" in kind:
            return RefitOutcome({"u": "sin(pi*x)"}, "converged", True)              # a string
        if "x**5" in kind:
            return {"expressions": {"u": sp.sin(sp.pi * problem.symbols[0])}, "converged": True}
        return RefitOutcome({"u": sp.Symbol("u_xx")}, "converged", True)            # a jet


class VandalRefiner(Refiner):
    """Refits honestly with the default refiner, then vandalises the points and the problem."""
    name = "r_vandal"

    def refine(self, candidate, problem, points):
        from desyr_scipy.refiner import ScipyRefiner

        outcome = ScipyRefiner(starts=1).refine(candidate, problem, points)
        for arr in (points.refine, points.verify, *points.constraints):
            arr.flags.writeable = True
            arr[:] = 0.25
        points.verify = np.zeros((1, 1))
        problem.points["verify"] = 1
        return outcome


class PredictsVerification(Refiner):
    """Knows the seed (problem.points) and the public point generator: returns a Piecewise that
    is the solution exactly at the verification points and 0 everywhere else."""
    name = "r_piecewise"

    def refine(self, candidate, problem, points):
        x = problem.symbols[0]
        vp = make_verification_points(problem, problem.points["seed"])
        at = sp.Or(*[sp.Eq(x, sp.Float(float(a), 17)) for a in vp.interior[:, 0]])
        return RefitOutcome({"u": sp.Piecewise((sp.sin(sp.pi * x), at), (0, True))}, "converged", True)


class PhiZeroGate(Gate):
    """Zeroes the wrong candidate's residual fields, claims convergence, removes the right one."""
    name = "g_phi"

    def apply(self, pool, context):
        wrong = [c for c in pool if "sin" not in str(c.expressions["u"])]
        for c in wrong:
            c.phi = c.rho_r = c.rho_c = 0.0
            c.eps_T = 0.0
            c.refit = replace(c.refit, status="converged", converged=True, objective=0.0)
        return GateDecision(wrong, {c.id: "worse" for c in pool if c not in wrong})


class SwapGate(Gate):
    """Gives the wrong candidate the right one's expressions and the right one the wrong's."""
    name = "g_swap"

    def apply(self, pool, context):
        a, b = pool
        a.expressions, b.expressions = b.expressions, a.expressions
        return GateDecision([pool[0]], {pool[1].id: "swapped"})


class EmptyGate(Gate):
    name = "g_empty"

    def apply(self, pool, context):
        return GateDecision([])


class ListGate(Gate):
    name = "g_list"

    def apply(self, pool, context):
        return list(pool)


class StrangerGate(Gate):
    name = "g_stranger"

    def apply(self, pool, context):
        return GateDecision([replace(pool[0], id="c99")])


class ExitGate(Gate):
    name = "g_exit"

    def apply(self, pool, context):
        raise SystemExit("gate leaves\nwith two lines")


class ToleranceGate(Gate):
    name = "g_tolerance"

    def apply(self, pool, context):
        context.method = replace(context.method, exact_tolerance=1e300)
        return GateDecision(list(pool))


class SeedGate(Gate):
    name = "g_seed"

    def apply(self, pool, context):
        context.seed = 777
        return GateDecision(list(pool))


class UnevaluableGate(Gate):
    """Plants an expression numpy cannot print after the core last checked the candidates."""
    name = "g_unevaluable"

    def apply(self, pool, context):
        x = context.problem.symbols[0]
        for c in pool:
            c.expressions = {"u": sp.Function("f")(x)}
        return GateDecision(list(pool))


class StringGate(Gate):
    name = "g_string"

    def apply(self, pool, context):
        for c in pool:
            c.expressions = {"u": "sin(pi*x)"}
        return GateDecision(list(pool))


class Liar(sp.Function):
    """A sympy class that prints as ``x**2`` but differentiates and evaluates like sin(pi x)."""
    nargs = 1

    def fdiff(self, argindex=1):
        return sp.pi * sp.cos(sp.pi * self.args[0])

    def _numpycode(self, printer):
        return f"numpy.sin(numpy.pi*{printer._print(self.args[0])})"

    def _sympystr(self, printer):
        return "x**2"


class PiecewiseGate(Gate):
    """Plain sympy: the solution exactly at the verification points (computable from ctx.seed and the
    public point generator), 0 elsewhere."""
    name = "g_piecewise"

    def apply(self, pool, context):
        x = context.problem.symbols[0]
        vp = make_verification_points(context.problem, context.seed)
        at = sp.Or(*[sp.Eq(x, sp.Float(float(a), 17)) for a in vp.interior[:, 0]])
        for c in pool:
            c.expressions = {"u": sp.Piecewise((sp.sin(sp.pi * x), at), (0, True))}
        return GateDecision(list(pool))


class LiarGate(Gate):
    name = "g_liar"

    def apply(self, pool, context):
        for c in pool:
            c.expressions = {"u": Liar(context.problem.symbols[0])}
        return GateDecision(list(pool))


class HostilePlugin:
    @hookimpl
    def desyr_register_teachers(self):
        return [BenignTeacher, WritesSearchPoints, WritesItsInput, VandalPoints, VandalProblem, LoosensTolerance,
                LoosensToleranceLate, ChoosesSeed]

    @hookimpl
    def desyr_register_searchers(self):
        return [HostileSearcher, UnevaluableSearcher]

    @hookimpl
    def desyr_register_refiners(self):
        return [ClaimsConverged, ForeignRefiner, VandalRefiner, PredictsVerification]

    @hookimpl
    def desyr_register_gates(self):
        return [PhiZeroGate, SwapGate, EmptyGate, ListGate, StrangerGate, ExitGate, ToleranceGate, SeedGate,
                UnevaluableGate, StringGate, PiecewiseGate, LiarGate]


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


@pytest.mark.parametrize("teacher", ["t_vandal_points", "t_vandal_problem"])
def test_teacher_vandalism_does_not_reach_the_verdict(registry, teacher):
    toml = config(with_teacher(teacher))
    problem = make_problem(toml)
    wrong = refine(problem, [WRONG], registry=registry, use_teacher=True)
    assert_wrong_not_exact(wrong)
    assert_honest(wrong, toml)
    assert wrong.errors.rel_l2 > 0.1                # the reference the teacher deleted still judges
    right = refine(problem, [RIGHT_FIXED], registry=registry, use_teacher=True)
    assert right.exact and right.residuals.R_eq < 1e-8
    assert_honest(right, toml)
    both = refine(problem, [WRONG, RIGHT_FIXED], registry=registry, use_teacher=True)
    assert_honest(both, toml)
    assert both.exact == (both.expression == {"u": "sin(pi*x)"})


def test_teacher_does_not_change_the_callers_problem(registry):
    problem = make_problem(config(with_teacher("t_vandal_problem")))
    before = (problem.equations[0].lhs, problem.constraints[0].value, dict(problem.reference), dict(problem.points))
    refine(problem, [WRONG], registry=registry, use_teacher=True)
    assert before == (problem.equations[0].lhs, problem.constraints[0].value, dict(problem.reference),
                      dict(problem.points))


@pytest.mark.parametrize("teacher", ["t_tolerance", "t_tolerance_late"])
def test_teacher_cannot_loosen_the_exact_tolerance(registry, teacher):
    toml = config(with_teacher(teacher))
    result = refine(make_problem(toml), [WRONG], registry=registry, use_teacher=True)
    assert_wrong_not_exact(result)
    assert_honest(result, toml)


def test_teacher_cannot_choose_the_verification_seed(registry):
    toml = config(with_teacher("t_seed"))
    result = refine(make_problem(toml), [WRONG], registry=registry, use_teacher=True)
    assert_wrong_not_exact(result)
    assert_honest(result, toml, seed=0)


# ------------------------------------------------------------------- searchers
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
def test_refiner_claiming_convergence_is_verified_honestly(registry):
    toml = config(refiner="r_claims")
    result = refine(make_problem(toml), [RIGHT_FIT, "sin(3*x)"], registry=registry)
    assert result.converged                         # a claim, reported as such
    assert_wrong_not_exact(result)
    assert_honest(result, toml)


def test_refiner_outputs_in_foreign_terms_are_refused(registry):
    toml = config(refiner="r_foreign")
    result = refine(make_problem(toml), ["x**2", "x**3", "x**4", "x**5", "x**6"], registry=registry)
    assert result.expression is None and not result.exact and result.residuals is None
    reasons = " ".join(c.reason for c in result.candidates)
    for needle in ("not variables of the problem", "differ from the candidate", "not a sympy expression",
                   "not a RefitOutcome"):
        assert needle in reasons, reasons
    assert_honest(result, toml)


def test_refiner_vandalising_points_and_problem_leaves_verification_alone(registry):
    toml = config(refiner="r_vandal")
    problem = make_problem(toml)
    wrong = refine(problem, [WRONG], registry=registry)
    assert_wrong_not_exact(wrong)
    assert_honest(wrong, toml)
    right = refine(problem, [RIGHT_FIT], registry=registry)
    assert_honest(right, toml)
    assert right.exact


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


def test_refiner_unreadable_output_fails_only_that_candidate(registry):
    toml = config(refiner="r_piecewise")
    result = refine(make_problem(toml), [WRONG, RIGHT_FIXED], registry=registry)
    assert result.expression is None and not result.exact


# ----------------------------------------------------------------------- gates
def test_gate_zeroing_residual_fields_cannot_make_wrong_exact(registry):
    toml = config(gates("g_phi", "physics_equivalence", "complexity"))
    result = refine(make_problem(toml), [RIGHT_FIT, WRONG], registry=registry)
    assert_wrong_not_exact(result)
    assert_honest(result, toml)


def test_gate_swapping_expressions_is_verified_as_reported(registry):
    toml = config(gates("g_swap"))
    result = refine(make_problem(toml), [WRONG, RIGHT_FIT], registry=registry)
    # c0 now carries the right expression: the verdict is about what is reported
    assert result.selected_id == "c0" and "sin" in result.expression["u"]
    assert_honest(result, toml)
    result = refine(make_problem(toml), [RIGHT_FIT, WRONG], registry=registry)
    assert_wrong_not_exact(result)
    assert_honest(result, toml)


@pytest.mark.parametrize("gate,match", [
    ("g_empty", "removed all"), ("g_list", "not a GateDecision"), ("g_stranger", "not given"),
    ("g_exit", "SystemExit"),
])
def test_gate_breaking_its_contract_is_one_line_error(registry, gate, match):
    with pytest.raises(PluginError, match=match) as info:
        refine(make_problem(config(gates(gate))), [WRONG], registry=registry)
    assert f"gate '{gate}'" in one_line(info)


def test_gate_cannot_loosen_the_exact_tolerance(registry):
    toml = config(gates("g_tolerance"))
    result = refine(make_problem(toml), [WRONG], registry=registry)
    assert_wrong_not_exact(result)
    assert_honest(result, toml)


def test_gate_cannot_choose_the_verification_seed(registry):
    toml = config(gates("g_seed"))
    result = refine(make_problem(toml), [WRONG], registry=registry)
    assert_honest(result, toml, seed=0)


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
