"""The hostile teachers, searchers, refiners and gates of ``test_trust_components.py``, with
the plugin that registers them.  Each tries one way to forge or break the verdict."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy as sp

from desyr.model.points import make_verification_points
from desyr.plugin import (
    Gate,
    GateDecision,
    ParetoMember,
    Refiner,
    RefitOutcome,
    Searcher,
    SearchResult,
    Teacher,
    TeacherModel,
    hookimpl,
)
from desyr.testing import SINE_POISSON_1D

# the testing problem with a small verification set (fast), solution sin(pi x)
TOML = SINE_POISSON_1D.replace("verify = 300", "verify = 60")
WRONG = "x*(1 - x)"            # satisfies the constraints, R_eq ~ 5
RIGHT_FIXED = "sin(pi*x)"      # the solution, no constant to refit
RIGHT_FIT = "sin(3.1*x)"       # the solution after the refit


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
    """Replaces the run's method constants (refused: RunContext is frozen)."""
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
    """Refits honestly with the default refiner, then vandalises the points (the problem is frozen:
    a component that writes to it ends the run, see test_teacher_does_not_change_the_callers_problem)."""
    name = "r_vandal"

    def refine(self, candidate, problem, points):
        from desyr_scipy.refiner import ScipyRefiner

        outcome = ScipyRefiner(starts=1).refine(candidate, problem, points)
        for arr in (points.refine, points.verify, *points.constraints):
            arr.flags.writeable = True
            arr[:] = 0.25
        points.verify = np.zeros((1, 1))
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


class LateFailureGate(Gate):
    """Raises after every refit was stored (while ``fails``): a run that dies late."""
    name = "g_late_failure"
    fails = True

    def apply(self, pool, context):
        if LateFailureGate.fails:
            raise RuntimeError("the gate broke after the refits")
        return GateDecision(list(pool))


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


from hostile_executors import (  # noqa: E402
    JunkExecutor,
    RaisingExecutor,
    RepeatsFirstExecutor,
    ReversedExecutor,
    ShortExecutor,
    StaleExecutor,
)
from hostile_forgeries import (  # noqa: E402 - they build on SineModel and Liar above
    FloatSubclassTolerance,
    PatchesTheVerifierCall,
    ReplacesContextClass,
    SetsFrozenTolerance,
    SwapsAfterReadBack,
)


class HostilePlugin:
    @hookimpl
    def desyr_register_teachers(self):
        return [BenignTeacher, WritesSearchPoints, WritesItsInput, VandalPoints, VandalProblem, LoosensTolerance,
                LoosensToleranceLate, ChoosesSeed, SwapsAfterReadBack, SetsFrozenTolerance, FloatSubclassTolerance,
                ReplacesContextClass, PatchesTheVerifierCall]

    @hookimpl
    def desyr_register_searchers(self):
        return [HostileSearcher, UnevaluableSearcher]

    @hookimpl
    def desyr_register_refiners(self):
        return [ClaimsConverged, ForeignRefiner, VandalRefiner, PredictsVerification]

    @hookimpl
    def desyr_register_executors(self):
        return [ShortExecutor, RaisingExecutor, JunkExecutor, ReversedExecutor, RepeatsFirstExecutor, StaleExecutor]

    @hookimpl
    def desyr_register_gates(self):
        return [PhiZeroGate, SwapGate, EmptyGate, ListGate, StrangerGate, ExitGate, ToleranceGate, SeedGate,
                UnevaluableGate, StringGate, PiecewiseGate, LiarGate, LateFailureGate]
