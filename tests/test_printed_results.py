"""A result read from a file shows and stores the formula the verifier decided, as the parser prints it,
never the text the file held (issue 35, third red team, F3): ``sin(pi*x) + 0*log(x - 2)`` is NaN in
doubles on [0, 1], and ``desyr exact`` had written it under "Selected expression" beside Proved."""
from __future__ import annotations

import json

import pytest
from result_files import fixture_result, write_result
from test_fuzz import cli
from test_fuzz_verify import in_process_verdict

import desyr.verify.attach as attach
from desyr.config.loading import load_problem_file
from desyr.model.result import Result, VerificationRecord, load_result
from desyr.report.html import render_html
from desyr.report.markdown import render_report
from desyr.symbolic.expressions import expression_text

#: texts that parse to sin(pi*x) (times 1.0) but that doubles evaluate as NaN, or as exactly 0
HOSTILE = ["sin(pi*x) + 0*log(x - 2)", "sin(pi*x)*(1e-300*1e-300*1e300*1e300)"]


def parsed_text(data: dict, raw: str) -> str:
    problem = load_problem_file(data["problem"]["source"])
    return str(expression_text(problem.parse(raw)))


def selected_block(report: str) -> str:
    return report.split("## Selected expression", 1)[1].split("**", 1)[0]


@pytest.mark.parametrize("raw", HOSTILE)
def test_exact_stores_and_reports_the_parsed_formula(tmp_path, monkeypatch, raw):
    monkeypatch.setattr(attach, "request_verdict", lambda request, meanwhile=None: in_process_verdict(request))
    data = fixture_result()
    data["expression"] = {"u": raw}
    folder, out = write_result(tmp_path / "run", data), tmp_path / "out"
    rc, stdout, err = cli("exact", str(folder), "--out", str(out), "--quiet")
    assert rc == 0, err
    canonical = parsed_text(data, raw)
    assert canonical != raw
    stored = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert stored["expression"] == {"u": canonical}
    assert stored["verification"]["verdict"] == "proved"
    report = (out / "report.md").read_text(encoding="utf-8")
    assert f"u = {canonical}" in selected_block(report)
    assert raw not in report and raw not in (out / "report.html").read_text(encoding="utf-8")


def _claimed(raw: str, printed: str) -> Result:
    """A fixture result whose expression text is ``raw`` while its recorded answer printed ``printed``."""
    result = Result.from_dict(fixture_result())
    result.expression = {"u": raw}
    record = result.verification
    answer = {**(record.answer if record and record.answer else {}), "expressions": {"u": printed}, "unknowns": {}}
    result.verification = VerificationRecord("proved", "every residual reduces to 0", answer, None)
    return result


def test_reports_show_the_formula_the_verifier_decided():
    result = _claimed(HOSTILE[0], "sin(pi*x)")
    markdown, page = render_report(result), render_html(result)
    assert "u = sin(pi*x)" in selected_block(markdown)
    assert HOSTILE[0] not in markdown and HOSTILE[0] not in page
    assert "<code>u = sin(pi*x)</code>" in page


def test_a_report_without_an_answer_shows_the_results_own_text():
    result = _claimed("x*(1 - x)", "ignored")
    result.verification = None
    assert "u = x*(1 - x)" in selected_block(render_report(result))


def test_the_written_result_reads_back_with_the_parsed_text(tmp_path, monkeypatch):
    monkeypatch.setattr(attach, "request_verdict", lambda request, meanwhile=None: in_process_verdict(request))
    data = fixture_result()
    data["expression"] = {"u": HOSTILE[0]}
    folder = write_result(tmp_path / "run", data)
    assert cli("exact", str(folder), "--quiet")[0] == 0
    assert load_result(folder).expression == {"u": "sin(pi*x)"}


@pytest.mark.parametrize("exact_text, exported", [("sin(pi*x) + x**2", "the printed formula"),
                                                  ("sin(pi*x)", "the proved exact form")])
def test_export_writes_the_formula_its_verdict_line_describes(tmp_path, monkeypatch, exact_text, exported):
    """Sixth red team, F2: an exact form edited to fail was exported under the printed formula's verdict."""
    import desyr.cli.results as results

    monkeypatch.setattr(results, "request_verdict", lambda request, meanwhile=None: in_process_verdict(request))
    data = fixture_result()
    data["exact_form"]["expressions"] = {"u": exact_text}
    folder = write_result(tmp_path / "run", data)
    rc, stdout, err = cli("export", str(folder), "--to", "sympy")
    assert rc == 0, err
    assert f"# exported: {exported}\n" in stdout
    assert ("x**2" in stdout) == (exported == "the proved exact form" and "x**2" in exact_text)
