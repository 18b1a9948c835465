"""Escalation: a run that is not verified exact is tried again under the documented policy."""
import json

import pytest
from helpers import NO_SOLVERS, POLY_ONLY, write_config

from desyr.api import run
from desyr.config.loading import load_problem
from desyr.config.spec import read_spec
from desyr.errors import ConfigError
from desyr.escalation import policy
from desyr.runtime.progress import Progress
from desyr.testing import make_problem
from desyr.unary.choice import BASE_TIERS, library_steps


def test_the_library_ladder_is_the_documented_order():
    # no evidence: the broad base, tier by tier, cheapest first; what is present or refused is not added
    steps = list(library_steps(["sin"], list, lambda add: {"log"} & set(add)))
    tier2 = ["sin", "exp", "sqrt", "cos", "tanh", "atan"]
    assert [lib for _, lib, _ in steps] == [["sin", "exp", "sqrt"], tier2, tier2 + ["sech", "csch", "coth"]]
    assert {kind for kind, _, _ in steps} == {"base"}
    assert steps[0][2] == f"broad base, tier 1 of {len(BASE_TIERS)} by cost (cheapest first)"


def test_no_budget_means_one_attempt():
    assert policy(read_spec(make_problem(POLY_ONLY)), None) is None
    with pytest.raises(ConfigError, match="positive"):
        policy(read_spec(make_problem(POLY_ONLY)), -1.0)


def test_unknown_step_is_a_config_error(tmp_path):
    text = POLY_ONLY + '\n[escalation]\nbudget = 60\nsteps = ["pray"]\n'
    with pytest.raises(ConfigError, match="pray"):
        run(make_problem(text), out=tmp_path / "out", progress=Progress(verbose=False))
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_misspecified_library_is_fixed_by_enrichment(tmp_path):
    # u'' + 16 u = 0 names no function: the chosen library starts empty and the base brings sin
    text = POLY_ONLY.replace('lhs = "u_xx + 16*sin(4*x)"', 'lhs = "u_xx + 16*u"').replace("unary = []\n", "")
    text = text.replace('value = "sin(4)"', 'value = -0.7568024953079282') + '\n[escalation]\nsteps = ["enrich_library"]\n'
    problem = load_problem(str(write_config(tmp_path, text)))
    single = run(problem, progress=Progress(verbose=False))
    assert not single.exact and single.attempts == []

    result = run(problem, out=tmp_path / "out", budget=300, progress=Progress(verbose=False))
    assert result.exact
    assert [a.step for a in result.attempts][:2] == ["first", "enrich_library"]
    assert not result.attempts[0].exact and result.attempts[-1].exact
    assert "sin" in result.attempts[-1].change and result.timings["escalation_total"] >= result.timings["total"]
    data = json.loads((tmp_path / "out" / "result.json").read_text())
    assert data["attempts"][-1]["exact"] is True
    assert data["escalation_stop"] == f"attempt {len(result.attempts)} is verified exact"
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Attempts" in report and f"Stopped: attempt {len(result.attempts)} is verified exact." in report
    assert single.escalation_stop is None


@pytest.mark.slow
def test_a_spent_budget_is_the_recorded_reason_to_stop(tmp_path):
    problem = load_problem(str(write_config(tmp_path, POLY_ONLY)))
    result = run(problem, budget=1e-3, progress=Progress(verbose=False))
    assert not result.exact and len(result.attempts) == 1
    assert "left to these attempts, less than the next attempt would take" in result.escalation_stop


@pytest.mark.slow
def test_resume_with_a_budget_says_it_is_not_used(tmp_path):
    import io

    from desyr.api import Execution

    stream = io.StringIO()
    problem = load_problem(str(write_config(tmp_path, POLY_ONLY)))
    run(problem, budget=1e-3, execution=Execution("serial", resume=True), progress=Progress(stream=stream))
    assert "resume: not used with an escalation budget" in stream.getvalue()


def test_the_attempts_table_names_the_source_of_the_selected_candidate():
    import dataclasses
    from pathlib import Path

    from desyr.escalation import attempt_record
    from desyr.model.result import load_result

    fixture = Path(__file__).parent / "fixtures" / "study_bench" / "runs" / "tiny_sine-e67310d4d17f" / "seed0"
    result = load_result(fixture)
    assert attempt_record(1, "first", "", 1.0, result).searchers == "operon"
    pooled = dataclasses.replace(result.provenance, components={**result.provenance.components,
                                                                "searcher": "operon+dictionary"})
    result.provenance = pooled
    for c in result.candidates:
        c.searcher = "dictionary" if c.id == result.selected_id else "operon"
    # the searcher that proposed the selected candidate, not the pooled label
    assert attempt_record(1, "first", "", 1.0, result).searchers == "dictionary"


def _not_exact(teacher_seconds: float = 0.0):
    from types import SimpleNamespace

    def attempt(variant):
        residuals = SimpleNamespace(R_eq=1.0, R_con=1.0, worst=lambda: 1.0)
        result = SimpleNamespace(exact=False, residuals=residuals, expression={"u": "x"}, candidates=[],
                                 selected_id=None, provenance=SimpleNamespace(components={"searcher": "operon"}),
                                 timings={"teacher": teacher_seconds}, teacher=None)
        return result, variant
    return attempt


def test_spent_policy_steps_are_followed_by_new_seeds_and_larger_teachers_while_time_is_left():
    from desyr.escalation import BEYOND_REASON, Policy, escalate
    from desyr.extension.registry import load_registry

    registry = load_registry()
    text = ('name = "line"\n[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx"\n[[constraints]]\non = "boundary"\n'
            'value = "reference"\n[reference]\nu = "x"\n[search]\nplugins = ["operon", "dictionary"]\n' + NO_SOLVERS)
    spec = read_spec(make_problem(text), registry)      # the default teacher (deepxde), no other searcher to add
    _, _, records, stop = escalate(spec, Policy(1e6, ("more_searches",)), registry, Progress(verbose=False),
                                   _not_exact())
    steps = [r.step for r in records]
    # the policy's one step, then new seeds and a larger teacher in turn, each saying why, until the
    # seeds run out (a budget of 1e6 s is never the reason here)
    assert steps[:7] == ["first", "more_searches", "more_searches", "larger_teacher", "other_searcher",
                         "more_searches", "larger_teacher"]
    assert all(r.reason.startswith(BEYOND_REASON) for r in records[2:])
    assert "rougher teacher" in records[3].reason and "forms" in records[4].change
    assert "budget_scale = 2.0" in records[3].change and "budget_scale = 4.0" in records[6].change
    assert stop == "no fresh search seeds left for this seed"
    # each larger teacher doubles the budget until the option's range ends; new seeds go on after that
    scales = [r.change for r in records if r.step == "larger_teacher"]
    assert len(scales) == 9 and "budget_scale = 512.0" in scales[-1] and steps[-1] == "more_searches"


def test_the_next_attempt_is_costed_without_a_teacher_it_reuses():
    from types import SimpleNamespace

    from desyr.escalation import next_cost

    facts = SimpleNamespace(facts={"train_seconds": 40.0})
    result = SimpleNamespace(timings={"teacher": 40.0, "search": 15.0}, teacher=facts)
    assert next_cost(60.0, result, "more_searches") == 20.0          # the same teacher comes back at no cost
    assert next_cost(60.0, result, "larger_teacher") == 60.0         # a larger one trains about as long again
    reused = SimpleNamespace(timings={"teacher": 0.0}, teacher=facts)
    assert next_cost(20.0, reused, "larger_teacher") == 60.0         # its cost is the trained one's, not 0


def test_a_budget_too_small_for_the_next_attempt_stops_with_its_cost():
    from desyr.escalation import Policy, escalate

    ticks = iter([0.0, 0.0] + [10.0] * 10)
    spec = read_spec(make_problem(POLY_ONLY))
    # the first attempt took 10 s of an 11 s budget, 8 of them its teacher: the next (new seeds, the
    # same teacher) would take 2 s, more than the 1 s left
    _, _, records, stop = escalate(spec, Policy(11.0, ("more_searches",)), None, Progress(verbose=False),  # type: ignore[arg-type]
                                   _not_exact(teacher_seconds=8.0), clock=lambda: next(ticks))
    assert len(records) == 1 and "less than the next attempt would take (2 s: the last took 10 s, its teacher " \
        "reused)" in stop


def test_where_a_larger_teacher_would_not_fit_new_seeds_on_the_same_teacher_do():
    from types import SimpleNamespace

    from desyr.escalation import Policy, escalate
    from desyr.extension.registry import load_registry

    registry = load_registry()
    text = ('name = "line"\n[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx"\n[[constraints]]\non = "boundary"\n'
            'value = "reference"\n[reference]\nu = "x"\n[search]\nplugins = ["operon", "dictionary", "forms"]\n'
            + NO_SOLVERS)
    spec = read_spec(make_problem(text), registry)
    # each attempt takes 10 s, 8 of them a teacher that trained for 8 s: a larger one would take 10 s more
    # than the 5 s left after the first two, new seeds (the teacher reused) 2 s
    ticks = iter([0.0] + [t for k in range(1, 20) for t in (10.0 * (k - 1), 10.0 * k, 10.0 * k)])
    attempt = _not_exact(teacher_seconds=8.0)

    def with_facts(variant):
        result, handle = attempt(variant)
        result.teacher = SimpleNamespace(facts={"train_seconds": 8.0})
        return result, handle

    _, _, records, stop = escalate(spec, Policy(25.0, ("more_searches", "larger_teacher")), registry,
                                   Progress(verbose=False), with_facts, clock=lambda: next(ticks))
    assert [r.step for r in records] == ["first", "more_searches", "more_searches"]
    assert records[2].reason.startswith("a larger teacher would not fit the 5 s left (about 10 s)")
    assert "less than the next attempt would take" in stop
