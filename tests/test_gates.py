"""Stage C: every threshold, the tie-break order, cleaning, and a third-party gate."""
import pytest
import sympy as sp
from desyr_gates.gates import ComplexityGate, ConvergenceGate, PhysicsEquivalenceGate, TeacherCompatibilityGate

from desyr.model.candidates import Candidate, RefitOutcome
from desyr.model.context import RunContext
from desyr.stages.measure import clean
from desyr.stages.select import run_gates

x = sp.Symbol("x", real=True)


class Ctx:
    def __init__(self, teacher=True):
        self.has_teacher = teacher


def cand(cid, eps=1e-3, phi=1e-12, converged=True, nodes=1, seed=0):
    expr = x if nodes == 1 else sp.Add(*[sp.Symbol(f"s{i}") for i in range(nodes // 2 + 1)])
    c = Candidate(cid, {"u": expr}, search_seed=seed)
    c.refit = RefitOutcome({"u": expr}, "converged" if converged else "not_converged", converged)
    c.expressions = {"u": expr}
    c.eps_T, c.phi = eps, phi
    return c


def ids(decision):
    return sorted(c.id for c in decision.kept)


def test_convergence_gate_prefers_converged_and_drops_nonfinite():
    pool = [cand("a"), cand("b", converged=False), cand("c", phi=float("nan"))]
    d = ConvergenceGate().apply(pool, Ctx())
    assert ids(d) == ["a"] and set(d.removed) == {"b", "c"}
    assert "non-finite" in d.removed["c"] and "not converged" in d.removed["b"]


def test_convergence_gate_fallback_keeps_finite_nonconverged():
    d = ConvergenceGate().apply([cand("a", converged=False), cand("b", eps=float("inf"), converged=False)], Ctx())
    assert ids(d) == ["a"] and "fallback" in d.note


@pytest.mark.parametrize("eps, kept", [(3e-3 + 1e-8, True), (3e-3 + 1.1e-8, False)])
def test_teacher_threshold_is_3_eps_min_plus_1e8(eps, kept):
    d = TeacherCompatibilityGate().apply([cand("best", eps=1e-3), cand("other", eps=eps)], Ctx())
    assert ("other" in ids(d)) is kept


def test_teacher_gate_absolute_floor():
    d = TeacherCompatibilityGate().apply([cand("a", eps=0.0), cand("b", eps=0.9e-8), cand("c", eps=1.1e-8)], Ctx())
    assert ids(d) == ["a", "b"]


def test_teacher_gate_inactive_without_teacher():
    d = TeacherCompatibilityGate().apply([cand("a", eps=None), cand("b", eps=None)], Ctx(teacher=False))
    assert d.active is False and ids(d) == ["a", "b"] and "inactive" in d.note


@pytest.mark.parametrize("phi, kept", [(1.05e-6 + 1e-10, True), (1.05e-6 + 1.1e-10, False)])
def test_physics_threshold_is_1_05_phi_min_plus_1e10(phi, kept):
    d = PhysicsEquivalenceGate().apply([cand("best", phi=1e-6), cand("other", phi=phi)], Ctx())
    assert ("other" in ids(d)) is kept


def test_physics_gate_absolute_floor_groups_roundoff():
    d = PhysicsEquivalenceGate().apply([cand("a", phi=1e-15), cand("b", phi=9e-11), cand("c", phi=2e-10)], Ctx())
    assert ids(d) == ["a", "b"]


def test_complexity_gate_and_tie_break_order():
    gate = ComplexityGate()
    assert ids(gate.apply([cand("long", nodes=7), cand("short", nodes=1)], Ctx())) == ["short"]
    # equal complexity: teacher error first ...
    assert ids(gate.apply([cand("a", eps=2e-3, phi=0), cand("b", eps=1e-3, phi=1)], Ctx())) == ["b"]
    # ... then the physics score ...
    assert ids(gate.apply([cand("a", phi=2e-12), cand("b", phi=1e-12)], Ctx())) == ["b"]
    # ... then the search seed
    d = gate.apply([cand("a", seed=5), cand("b", seed=2)], Ctx())
    assert ids(d) == ["b"] and "search seed" in d.removed["a"]


def test_gate_sequence_records_who_removed_what():
    gates = [ConvergenceGate(), TeacherCompatibilityGate(), PhysicsEquivalenceGate(), ComplexityGate()]
    pool = [cand("unconv", converged=False), cand("far", eps=1.0), cand("rough", phi=1.0),
            cand("long", nodes=9), cand("win")]
    sel = run_gates(pool, gates, Ctx())
    assert sel.selected.id == "win"
    removed_by = {c.id: sel.removed.get(c.id, (None,))[0] for c in pool}
    assert removed_by == {"unconv": "convergence", "far": "teacher_compatibility",
                          "rough": "physics_equivalence", "long": "complexity", "win": None}


def test_reordered_and_shortened_sequences():
    pool = [cand("simple_rough", phi=1e-3), cand("long_exact", nodes=9, phi=1e-15)]
    assert run_gates(pool, [PhysicsEquivalenceGate(), ComplexityGate()], Ctx()).selected.id == "long_exact"
    assert run_gates(pool, [ComplexityGate(), PhysicsEquivalenceGate()], Ctx()).selected.id == "simple_rough"


def test_third_party_gate_changes_selection(third_party):
    from desyr.extension.registry import load_registry

    registry = load_registry()
    longest = registry.create("gate", "prefer_longest")
    pool = [cand("short"), cand("long", nodes=9)]
    paper_choice = run_gates(pool, [ConvergenceGate(), ComplexityGate()], Ctx()).selected.id
    plugin_choice = run_gates(pool, [ConvergenceGate(), longest, ComplexityGate()], Ctx()).selected.id
    assert (paper_choice, plugin_choice) == ("short", "long")


def test_checked_cleaning_accepts_and_rejects(paper):
    from desyr.model.points import make_point_sets

    problem = paper("euler_bernoulli")
    ctx = RunContext(problem, make_point_sets(problem))
    xs = problem.symbols[0]
    exact = sp.Rational(5, 10**5) / 24 * (xs**4 - 20 * xs**3 + 1000 * xs)
    exact = exact.evalf()
    from desyr.stages.measure import measure

    good = Candidate("g", {"u": exact})
    good.expressions = {"u": exact + sp.Float(1.35e-35) * xs**2}
    measure(good, ctx)
    clean(good, ctx)
    assert good.cleaned and good.expressions["u"].count(xs**2) == 0


def test_cleaning_is_rejected_when_the_small_term_matters():
    from desyr.config.loading import problem_from_dict
    from desyr.model.points import make_point_sets
    from desyr.stages.measure import measure

    problem = problem_from_dict({
        "domain": {"x": [0, 1]},
        "equations": [{"lhs": "u_xx", "rhs": "from_reference"}],
        "constraints": [{"on": ["x = 0", "x = 1"], "value": "reference"}],
        "reference": {"u": "sin(pi*x) + 5e-9*exp(20*x)"},   # the tiny coefficient is real physics
        "points": {"refine": 200, "verify": 200, "search": 50, "validate": 50}})
    ctx = RunContext(problem, make_point_sets(problem))
    exact = problem.reference["u"].evalf()
    bad = Candidate("b", {"u": exact})
    bad.expressions = {"u": exact}
    measure(bad, ctx)
    clean(bad, ctx)
    assert not bad.cleaned and "rejected" in bad.cleaning_note


def _series_cand(cid, phi, fitted=False):
    n = sp.Symbol("n", integer=True, positive=True)
    coefficient = sp.Float(0.81) if fitted else 8 / sp.pi**3
    expr = sp.Sum(coefficient / n**3 * sp.sin(n * sp.pi * x), (n, 1, sp.oo))
    c = cand(cid, phi=phi, nodes=1)
    c.expressions = {"u": expr}
    return c


def test_exact_series_is_not_dropped_by_a_fitted_formulas_smaller_truncated_score():
    # the truncated sum scores 0.027, a fitted quartic 0.021: the series goes on to the verifier
    pool = [_series_cand("series", phi=0.027), cand("quartic", phi=0.021, nodes=9)]
    d = PhysicsEquivalenceGate().apply(pool, Ctx())
    assert ids(d) == ["series"] and "not exact" in d.removed["quartic"]
    assert run_gates(pool, [PhysicsEquivalenceGate(), ComplexityGate()], Ctx()).selected.id == "series"


def test_a_finite_solution_still_beats_a_series_and_fitted_series_are_measured():
    # a finite formula that solves the equations is the answer (not the series)
    d = PhysicsEquivalenceGate().apply([_series_cand("series", phi=0.027), cand("exact", phi=1e-13)], Ctx())
    assert ids(d) == ["exact"] and "physics score" in d.removed["series"]
    # a series with a fitted coefficient is measured like any candidate
    d = PhysicsEquivalenceGate().apply([_series_cand("fit", phi=0.027, fitted=True), cand("quartic", phi=0.021)],
                                       Ctx())
    assert ids(d) == ["quartic"]
