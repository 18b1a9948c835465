"""What a new user met (issue 37, item 10): each item has a test that failed before its fix."""
from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import POLY_ONLY
from result_files import fixture_result

from desyr.api.stage0 import ExactAttempt, with_exact
from desyr.config.spec import read_spec
from desyr.escalation import Policy, candidate_failures, escalate
from desyr.model.result import Result
from desyr.report.html import render_html
from desyr.report.markdown import render_report
from desyr.runtime.progress import Progress
from desyr.stages.exact_search import SolveOutcome
from desyr.testing import make_problem


def _result(**changes: object) -> Result:
    result = Result.from_dict(fixture_result())
    return replace(result, **changes)


def test_attempt_numbers_agree_in_table_stop_reason_and_progress():
    import io

    exact = _result()
    assert exact.exact
    stream = io.StringIO()
    spec = read_spec(make_problem(POLY_ONLY))
    # no step is taken, so the registry is never asked
    chosen, _, records, stop = escalate(spec, Policy(60.0, ()), None, Progress(stream=stream),  # type: ignore[arg-type]
                                        lambda variant: (exact, None), first=2)
    assert [a.index for a in records] == [2] and stop == "attempt 2 is verified exact"
    assert "attempt 2 (first" in stream.getvalue() and "attempt 1" not in stream.getvalue()
    chosen.attempts, chosen.escalation_stop = records, stop
    stage0 = ExactAttempt(None, None, SolveOutcome((), (), 0.0), 0.5)     # type: ignore[arg-type]
    table = with_exact(chosen, stage0, None)
    assert [a.index for a in table.attempts] == [1, 2] and table.attempts[0].step == "exact_solvers"
    report = render_report(table)
    assert "| 2 | first |" in report and "Stopped: attempt 2 is verified exact." in report
    assert "Stopped: attempt 2 is verified exact." in render_html(table)


def test_each_stage0_candidate_says_why_it_failed():
    from desyr.model.result import AttemptRecord

    data = fixture_result()
    failed = data["candidates"][0]
    failed.update(status="failed", converged=False, expression=None, reason="LinAlgError: singular matrix")
    other = {**data["candidates"][-1], "id": "x9", "searcher": "sympy:dsolve", "removed_by": "complexity",
             "removed_reason": "a simpler candidate fits as well"}
    data["candidates"].append(other)
    result = Result.from_dict(data)
    lines = candidate_failures(result)
    assert f"{failed['id']} ({failed['searcher']}): refit failed: LinAlgError: singular matrix" in lines
    assert f"{other['id']} ({other['searcher']}): removed by the complexity gate: a simpler candidate fits as well" \
        in lines
    result.attempts = [AttemptRecord(1, "exact_solvers", "2 proposal(s)", 1.0, False, None, None, "sympy",
                                     failures=lines)]
    report = render_report(result)
    assert "Why attempt 1's candidates are not the answer:" in report and "LinAlgError: singular matrix" in report
    assert "LinAlgError: singular matrix" in render_html(result)
    again = Result.from_dict(result.to_dict())           # result.json keeps them
    assert again.attempts[0].failures == lines


def test_a_lone_closed_form_still_states_its_odds():
    import sympy as sp

    from desyr.stages.unknowns import Form, _Scored, decide

    fitted, note = decide("c", 2.0, [_Scored(1.1, Form(sp.Integer(2), 1.1), {"c": sp.Integer(2)})], [],
                          "estimate 2 +- 0")
    assert fitted == {"c": 2} and note == "c = 2 (estimate 2 +- 0; no other closed form fits)"


@pytest.mark.slow
def test_clean_inverse_run_that_finds_c_exactly_prints_its_estimate():
    # the wave speed already exact (as clean data gives it) printed no estimate, error or odds
    from desyr.api import refine
    from desyr.config.loading import load_problem
    from desyr.report.markdown import inverse_lines

    result = refine(load_problem("inverse:wave_c"), ["u = sin(pi*x)*cos(2*pi*t); c = 2"],
                    progress=Progress(verbose=False))
    assert result.exact
    assert "unknowns: c = 2 (estimate 2 +- 0; no other closed form fits)" in inverse_lines(result)


ZERO_P = """
name = "zero_p"
title = "u' = 1 and p' = 0"
fields = ["u", "p"]
[domain]
x = [0, 1]
[[equations]]
lhs = "u_x"
rhs = "1"
[[equations]]
lhs = "p_x"
rhs = "0"
[[constraints]]
operator = "u"
on = "x = 0"
value = 0
[[constraints]]
operator = "p"
on = "x = 0"
value = 0
[reference]
u = "x"
p = "0"
"""


def test_a_zero_reference_gives_an_absolute_error_never_inf():
    import numpy as np
    import sympy as sp

    from desyr.stages.run_residuals import absolute_l2, fieldwise_l2

    problem = make_problem(ZERO_P)
    x = sp.Symbol("x")
    X = np.linspace(0, 1, 11)[:, None]
    exprs = {"u": x, "p": sp.Float(0.001) * x}
    assert fieldwise_l2(problem, exprs, X) == {"u": 0.0}           # p had "inf"
    assert absolute_l2(problem, exprs, X)["p"] == pytest.approx(0.001 * np.sqrt(np.mean(X[:, 0] ** 2)))
    data = fixture_result()
    data["errors"]["abs_l2_u"] = 0.25
    result = Result.from_dict(data)
    assert result.errors.absolute == {"u": 0.25} and result.to_dict()["errors"]["abs_l2_u"] == 0.25
    report = render_report(result)
    assert "| absolute L2 (RMS) of u (its reference is 0: no relative error) | 0.25 |" in report
    assert "inf" not in report.split("## Gates")[0]


@pytest.mark.slow
def test_desyr_exact_says_it_rewrites_in_place_and_out_writes_elsewhere(tmp_path, capsys):
    import json
    import shutil

    from result_files import RESULT

    from desyr.cli.main import main

    run = tmp_path / "run"
    shutil.copytree(RESULT.parent, run)
    (run / "result.json").write_text(json.dumps(fixture_result()))     # its config where this checkout has it
    before = (run / "result.json").read_text()
    assert main(["exact", str(run), "--out", str(tmp_path / "new"), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert f"wrote {tmp_path / 'new' / 'result.json'}" in said and "in place" not in said
    assert (run / "result.json").read_text() == before and json.loads((tmp_path / "new" / "result.json").read_text())
    assert main(["exact", str(run), "--quiet"]) == 0
    assert f"rewrote in place (the previous versions are replaced; --out DIR writes elsewhere): {run / 'result.json'}" \
        in capsys.readouterr().out


@pytest.mark.slow          # the plugins load (about 1 s)
def test_a_run_that_selects_nothing_exits_1(monkeypatch, capsys):
    import desyr.api
    import desyr.verify.child
    from desyr.cli.main import EXIT_NOTHING_SELECTED, main

    data = fixture_result()
    data.update(expression=None, selected_id=None)
    empty = Result.from_dict(data)
    monkeypatch.setattr(desyr.verify.child, "start_verifier", lambda: None)
    monkeypatch.setattr(desyr.api, "refine", lambda *a, **k: empty)
    rc = main(["refine", "paper:sine_poisson_1d", "--candidate", "sin(pi*x)", "--quiet", "--no-plots"])
    assert "no candidate could be selected" in capsys.readouterr().out
    assert rc == EXIT_NOTHING_SELECTED == 1
