"""Coupled multi-field rules (paper §3.5): rate clustering, rate tying, shortlists, group scores, joint refit."""
import math
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from desyr.api import refine
from desyr.config.spec import read_spec, section_settings
from desyr.coupled.augment import alternate_rankings, augment_fields, field_candidate
from desyr.coupled.groups import FieldJets, GroupScorer, rank_groups, screening_context, shortlist
from desyr.coupled.rates import (
    RateObservation,
    base_rates,
    cluster_rates,
    exp_factors,
    multiple_of,
    shared_clusters,
    tie_shared_rates,
)
from desyr.model.candidates import Candidate, RefitOutcome
from desyr.runtime.progress import Progress
from desyr.stages.measure import measure_phi, teacher_error
from desyr.stages.select import run_gates
from desyr.testing import make_context

x, y = sp.symbols("x y", real=True)
LAM = 10 - math.sqrt(100 + 4 * math.pi ** 2)


def obs(field, rate, loss=1e-3, variable="x"):
    return RateObservation(field, variable, rate, loss)


# --------------------------------------------------------------- clustering
def test_rates_cluster_within_35_percent_of_the_running_median():
    clusters = cluster_rates([obs("u", -1.80), obs("v", -2.30), obs("p", -2.60), obs("u", -3.6)])
    # -1.80 opens; -2.30 is 0.28 relative away -> joins (median -2.05); -2.60 joins (0.21);
    # -3.6 is 0.38 relative from the median -2.30 -> a cluster of its own.
    assert [sorted(m.rate for m in c.members) for c in clusters] == [[-2.6, -2.3, -1.8], [-3.6]]


def test_rates_of_other_sign_or_variable_never_share_a_cluster():
    clusters = cluster_rates([obs("u", 1.0), obs("v", -1.0), obs("p", 1.0, variable="y")])
    assert len(clusters) == 3


def test_tiny_rates_are_not_observed():
    assert exp_factors(sp.exp(1e-11 * x) * sp.exp(-2.0 * y), [x, y])[0].rate == -2.0
    assert len(exp_factors(sp.exp(1e-11 * x), [x, y])) == 0
    assert exp_factors(sp.exp(x * y), [x, y]) == []          # not linear in one variable


def test_only_clusters_seen_in_two_fields_are_shared_and_best_supported_come_first():
    clusters = cluster_rates([obs("u", -1.8), obs("u", -1.81), obs("v", 2.0), obs("p", 2.1), obs("u", 2.05),
                              obs("v", -5.0), obs("p", -5.1)])
    kept = shared_clusters(clusters, keep=2)
    assert [sorted(c.fields) for c in kept] == [["p", "u", "v"], ["p", "v"]]
    assert all(len(c.fields) >= 2 for c in kept)


# ---------------------------------------------------------------- rate tying
def test_base_rates_need_a_match_in_another_field():
    assert base_rates({"u": [-1.8, 3.0], "v": [-1.8 * (1 + 5e-10)], "p": [3.0000001]}) == [-1.8]


@pytest.mark.parametrize("rate, expected", [(-1.8, (0, 1)), (-3.6, (0, 2)), (-7.2, (0, 4)),
                                            (-9.0, None), (1.8, None), (-3.6 * (1 + 1e-7), None)])
def test_integer_multiples_one_to_four_of_a_base(rate, expected):
    assert multiple_of(rate, [-1.8]) == expected


def test_tying_turns_kovasznay_rates_into_one_parameter():
    u = 1 - sp.exp(-1.8 * x) * sp.cos(6.27 * y)
    v = -0.28 * sp.exp(-1.8 * x) * sp.sin(6.27 * y)
    p = 0.5 - 0.5 * sp.exp(-3.6 * x)
    tied = tie_shared_rates({"u": u, "v": v, "p": p}, [x, y])
    (rate,) = tied.symbols
    assert tied.values == [-1.8]
    assert tied.expressions["p"].has(sp.exp(2 * rate * x))
    assert tied.expressions["u"].has(sp.exp(rate * x)) and tied.expressions["v"].has(sp.exp(rate * x))
    assert [t["multiple"] for t in tied.ties] == [1, 1, 2]


def test_a_rate_seen_in_one_field_stays_field_specific():
    tied = tie_shared_rates({"u": sp.exp(-1.8 * x), "v": sp.exp(-2.5 * x)}, [x, y])
    assert tied.symbols == [] and tied.expressions["u"] == sp.exp(-1.8 * x)


# ----------------------------------------------------- acceptance: joint refit
@pytest.mark.slow
def test_joint_refit_from_perturbed_kovasznay_constants(paper):
    """Issue acceptance 1: lambda ~ -1.80, 2 pi ~ 6.27, shared rate tied and p using 2x it."""
    cand = {"u": "1 - exp(-1.80*x)*cos(6.27*y)", "v": "-0.2871*exp(-1.80*x)*sin(6.27*y)",
            "p": "0.5 - 0.5*exp(-3.60*x)"}
    d = refine(paper("kovasznay"), [cand], progress=Progress(verbose=False)).to_dict()
    assert d["converged"] and d["exact"]
    for f in "uvp":
        assert d["errors"][f"rel_l2_{f}"] <= 1e-12
    ties = d["candidates"][0]["shared_rates"]
    assert {(t["field"], t["multiple"]) for t in ties} == {("u", 1), ("v", 1), ("p", 2)}
    assert abs(d["candidates"][0]["params_refined"][0] - LAM) < 1e-12     # the shared rate is the first parameter


@pytest.mark.slow
def test_without_tying_the_same_refit_has_one_rate_per_field(paper, tmp_path):
    problem = paper("kovasznay")
    problem = replace(problem, sections={**problem.sections, "refine": {"options": {"tie_shared_rates": False}}})
    cand = {"u": "1 - exp(-1.80*x)*cos(6.27*y)", "v": "-0.2871*exp(-1.80*x)*sin(6.27*y)",
            "p": "0.5 - 0.5*exp(-3.60*x)"}
    d = refine(problem, [cand], progress=Progress(verbose=False)).to_dict()
    assert d["candidates"][0]["shared_rates"] == []
    assert len(d["candidates"][0]["params_refined"]) == len(d["candidates"][0]["params_initial"]) >= 6


# ----------------------------------------------------------- group quantities
@pytest.fixture
def kov_ctx(paper):
    problem = paper("kovasznay")
    problem = replace(problem, points={**problem.points, "search": 300, "refine": 400, "verify": 300, "validate": 100},
                      constraints=tuple(replace(c, n_points=min(c.n_points, 60)) for c in problem.constraints))
    ctx = make_context(problem, 0)
    return replace(ctx, teacher_values=problem.evaluate_reference(ctx.points.search) * (1 + 1e-3))


def kovasznay(rate=LAM, w=2 * math.pi):
    return {"u": 1 - sp.exp(rate * x) * sp.cos(w * y), "v": rate / (2 * math.pi) * sp.exp(rate * x) * sp.sin(w * y),
            "p": (1 - sp.exp(2 * rate * x)) / 2}


def test_group_teacher_error_is_the_mean_of_the_fieldwise_errors(kov_ctx):
    exprs = kovasznay(-1.7)
    mean, per_field = teacher_error(kov_ctx, exprs)
    assert set(per_field) == {"u", "v", "p"}
    assert mean == pytest.approx(np.mean(list(per_field.values())), rel=1e-14)
    assert len({round(v, 6) for v in per_field.values()}) == 3


def test_group_phi_is_rms_of_per_equation_plus_weighted_rms_of_per_constraint(kov_ctx):
    from desyr.model.residuals import for_refinement
    exprs = kovasznay(-1.7)
    scores = measure_phi(kov_ctx, exprs)
    res = for_refinement(kov_ctx.problem, exprs, [], kov_ctx.points, jacobian=False)
    rho = {kind: [np.sqrt(np.mean(v ** 2)) for b, v in res.raw() if b.kind == kind]
           for kind in ("equation", "constraint")}
    assert len(rho["equation"]) == 3 and len(rho["constraint"]) == 3
    expected = np.sqrt(np.mean(np.square(rho["equation"]))) + 10 * np.sqrt(np.mean(np.square(rho["constraint"])))
    assert scores.phi == pytest.approx(expected, rel=1e-12)


def test_fast_group_scorer_agrees_with_the_residual_path(kov_ctx):
    problem, exprs = kov_ctx.problem, kovasznay(-1.7, 6.2)
    scorer = GroupScorer(problem, kov_ctx.points.refine, kov_ctx.points.constraints, 100.0)
    jets = [FieldJets(problem, f, exprs[f], scorer.point_sets) for f in problem.fields]
    assert scorer.phi(jets) == pytest.approx(measure_phi(kov_ctx, exprs).phi, rel=1e-10)


@pytest.mark.slow
def test_group_gates_choose_by_group_numbers(kov_ctx, registry):
    from desyr.stages.measure import measure
    from desyr.stages.run_components import gate_sequence

    exact = Candidate("exact", kovasznay())
    off = Candidate("off", kovasznay(-1.7))
    simpler_wrong = Candidate("simple", {"u": sp.Integer(1) + 0 * x, "v": sp.Float(0.01) * y, "p": sp.Float(0.1) * x})
    pool = [exact, off, simpler_wrong]
    for c in pool:
        c.refit = RefitOutcome({}, "converged", True)
        c.expressions = c.search_expressions
        measure(c, kov_ctx)
    assert simpler_wrong.complexity < exact.complexity
    assert exact.complexity == sum(len(list(sp.preorder_traversal(e))) for e in exact.expressions.values())
    sel = run_gates(pool, gate_sequence(registry, read_spec(kov_ctx.problem, registry)), kov_ctx)
    assert sel.selected is exact
    assert sel.removed[simpler_wrong.id][0] == "teacher_compatibility"
    assert sel.removed[off.id][0] in ("teacher_compatibility", "physics_equivalence")


# -------------------------------------------------------------- Stage A rules
def test_alternating_rankings_balance_fit_and_complexity():
    items = [("a", 1, 9), ("b", 2, 8), ("c", 3, 1), ("d", 4, 2)]      # (name, loss, complexity)
    taken = alternate_rankings(items, [lambda i: i[1], lambda i: i[2]], 3)
    assert [i[0] for i in taken] == ["a", "c", "b"]


def test_shortlist_keeps_teacher_compatible_and_distinct(kov_ctx):
    f = "u"
    good = field_candidate(f, kovasznay()["u"], kov_ctx, "operon", 0)
    near = field_candidate(f, kovasznay(LAM * 1.0001)["u"], kov_ctx, "operon", 1)
    poor = field_candidate(f, sp.Float(1.0) + 0 * x, kov_ctx, "operon", 0)
    dup = field_candidate(f, kovasznay()["u"], kov_ctx, "augmented")
    chosen, info = shortlist([good, near, poor, dup], 12)
    assert poor not in chosen and len(chosen) == 2 and info == {"finite": 3, "compatible": 2}


@pytest.mark.slow
def test_augmentation_builds_candidates_with_the_shared_rate_and_its_multiples(kov_ctx):
    lam_u, lam_v = -1.79, -1.83
    per_field = {
        "u": [field_candidate("u", 1.0 - sp.exp(lam_u * x) * sp.cos(6.3 * y), kov_ctx, "operon", 0)],
        "v": [field_candidate("v", -0.3 * sp.exp(lam_v * x) * sp.sin(6.25 * y), kov_ctx, "operon", 0)],
        "p": [field_candidate("p", 0.4 * x - 0.1, kov_ctx, "operon", 0)],
    }
    added, info = augment_fields(per_field, kov_ctx, section_settings(kov_ctx.problem, "coupled"))
    (shared,) = info["shared"]
    median = shared["median_rate"]
    assert median == pytest.approx((lam_u + lam_v) / 2) and shared["fields"] == ["u", "v"]
    assert all(0 < len(added[f]) <= 6 for f in "uvp")
    rates_p = {fac.rate for c in added["p"] for fac in exp_factors(c.expression, [x, y])}
    assert 2 * median in rates_p                       # exactly twice the base: ties at refit time
    best_p = min(added["p"], key=lambda c: c.eps_T)
    assert best_p.eps_T < per_field["p"][0].eps_T
    best_u = min(added["u"], key=lambda c: c.eps_T)
    assert best_u.expression.has(sp.cos(6.3 * y))


def test_groups_are_ranked_by_joint_phi_with_search_constants(kov_ctx):
    problem = kov_ctx.problem
    lists = {f: [field_candidate(f, kovasznay()[f], kov_ctx, "operon", 0),
                 field_candidate(f, kovasznay(-1.6)[f], kov_ctx, "operon", 0)] for f in problem.fields}
    sctx = screening_context(kov_ctx, 100)
    assert sctx.points.refine.shape[0] == 100 and kov_ctx.points.refine.shape[0] == 400
    scorer = GroupScorer(problem, sctx.points.refine, sctx.points.constraints, 100.0)
    ranked = rank_groups(problem, lists, scorer)
    assert len(ranked) == 8
    assert all(m.expression == kovasznay()[m.field] for m in ranked[0].members)
    assert [g.phi for g in ranked] == sorted(g.phi for g in ranked)


# ---------------------------------------------------------------- end to end
@pytest.mark.slow
def test_second_coupled_system_end_to_end(tmp_path):
    """Issue acceptance 4: a reaction–diffusion pair, real deepxde teacher and operon searches."""
    import json
    from pathlib import Path

    from desyr.cli.main import main

    config = Path(__file__).parent / "fixtures" / "reaction_diffusion.toml"
    out = tmp_path / "rd"
    assert main(["run", str(config), "--out", str(out), "--quiet", "--cache-dir", str(tmp_path / "cache")]) == 0
    d = json.loads((out / "result.json").read_text())
    assert d["converged"] and d["exact"], d["expression"]
    assert d["errors"]["rel_l2"] <= 1e-10
    assert d["errors"]["rel_l2_u"] <= 1e-10 and d["errors"]["rel_l2_v"] <= 1e-10
    assert d["errors"]["teacher_rel_l2"] > 1e-6                 # recovered from an inexact teacher
    coupled = d["coupled"]
    assert [c["variable"] for c in coupled["augmentation"]["shared"]] == ["t"]
    assert coupled["screened"] == 8 and coupled["groups"] >= coupled["screened"]
    screened = [c for c in d["candidates"] if c["status"] != "pending"]
    assert len(screened) == 8
    chosen = next(c for c in d["candidates"] if c["id"] == d["selected_id"])
    assert chosen["screening"]["status"] == "converged"
    assert set(d["timings"]) >= {"teacher", "search", "screen", "refine", "verify"}


@pytest.mark.parametrize("table, fragment", [({"shortlists": 3}, "does not know option(s) shortlists"),
                                             ({"shortlist": 0}, "option 'shortlist': 0 is outside"),
                                             ({"multiples": [0, 2]}, "multiples"),
                                             ({"cluster_tolerance": -1}, "cluster_tolerance")])
def test_bad_coupled_settings_are_config_errors(paper, table, fragment):
    from desyr.errors import ConfigError

    problem = paper("kovasznay")
    problem = replace(problem, sections={**problem.sections, "coupled": table})
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        read_spec(problem)


def test_a_field_with_no_candidate_leaves_no_group_and_no_error(kov_ctx, registry):
    # under a budget every searcher of a field may be stopped: the attempt then ends with no candidate (a
    # result, Not exact), where it had ended with a config error and no result.json (handbook, solvers off)
    from desyr.coupled.groups import coupled_groups

    settings = read_spec(kov_ctx.problem, registry).coupled
    groups = coupled_groups({f: [] for f in kov_ctx.problem.fields}, "operon", settings, kov_ctx,
                            screening_context(kov_ctx, 100))
    assert groups.pool == []
