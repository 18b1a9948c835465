"""Escalation: a run that is not verified exact is tried again under the documented policy."""
import json

import pytest
from helpers import POLY_ONLY, write_config

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
    assert "left to these attempts, less than the last attempt took" in result.escalation_stop


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
