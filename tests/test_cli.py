"""The command line: refine end to end, and clear exit-2 errors for bad input."""
import json
import subprocess
import sys

import pytest
from helpers import SINE_1D, write_config

from desyr.cli.main import main


@pytest.mark.slow
def test_refine_writes_result_and_report(tmp_path, capsys):
    cfg = write_config(tmp_path, SINE_1D)
    out = tmp_path / "out"
    code = main(["refine", str(cfg), "--candidate", "sin(3.1415536*x)", "--candidate", "2.9*x*(1.0 - x)",
                 "--out", str(out), "--quiet"])
    assert code == 0
    data = json.loads((out / "result.json").read_text())
    assert data["schema"] == "desyr.result/3"
    assert data["expression"]["u"].startswith("sin(3.14159265358979")
    assert data["converged"] is True and data["complexity"] == 4
    assert data["residuals"]["R_eq"] < 1e-10 and data["residuals"]["R_con"] < 1e-12
    assert data["errors"]["rel_l2"] < 1e-12
    keys = {"topology", "pre_refit_expression", "expression", "status", "reason", "nfev", "objective", "removed_by"}
    assert all(keys <= set(c) for c in data["candidates"])
    assert {c["removed_by"] for c in data["candidates"]} == {None, "physics_equivalence"}
    assert set(data["timings"]) >= {"refine", "select", "verify", "total"}
    report = (out / "report.md").read_text()
    assert "**Proved**" in report and "physics_equivalence" in report


def run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "desyr", *args], capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


BAD_CONFIGS = {
    "malformed": ("[domain\nx = [0, 1]", "malformed TOML"),
    "no_domain": ("[[equations]]\nlhs = 'u_xx'", "missing [domain]"),
    "unknown_var": ("[domain]\nx = [0, 1]\n[[equations]]\nlhs = 'u_xx + y'", "unknown name 'y'"),
    "unknown_field": ("[domain]\nx = [0, 1]\n[[equations]]\nlhs = 'w_xx'", "unknown name 'w_xx'"),
    "unknown_fn": ("[domain]\nx = [0, 1]\n[[equations]]\nlhs = 'u_xx + gamma(x)'", "function 'gamma' is not allowed"),
    "unknown_plugin": (SINE_1D + "\n[refine]\nplugin = 'nope'\n", "installed refiners: scipy"),
    "bad_option": (SINE_1D + "\n[refine]\nplugin = 'scipy'\n[refine.options]\nstart = 3\n", "does not know option(s) start"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_input_exits_2_without_traceback(tmp_path, case):
    text, fragment = BAD_CONFIGS[case]
    cfg = write_config(tmp_path, text)
    code, out, err = run_cli("refine", str(cfg), "--candidate", "sin(3.1*x)")
    assert code == 2
    assert fragment in err and "Traceback" not in err


@pytest.mark.parametrize("candidate, fragment", [
    ("log(x - 0.5)", "not finite at x = "),
    ("1/x", "not finite"),
    ("sin(3*z)", "unknown name 'z'"),
    ('__import__("os").system("touch /tmp/desyr_pwned")', "not allowed"),
])
@pytest.mark.slow
def test_bad_candidates_exit_2(tmp_path, candidate, fragment):
    cfg = write_config(tmp_path, SINE_1D)
    code, _, err = run_cli("refine", str(cfg), "--candidate", candidate)
    assert code == 2 and fragment in err and "Traceback" not in err


@pytest.mark.slow
def test_missing_file_and_unknown_spec():
    code, _, err = run_cli("refine", "does/not/exist.toml", "--candidate", "x")
    assert code == 2 and "config file not found" in err
    code, _, err = run_cli("refine", "no_such_thing", "--candidate", "x")
    assert code == 2 and "no config file or known problem" in err
    code, _, err = run_cli("refine", "paper:nope", "--candidate", "x")
    assert code == 2 and "available: paper:" in err


@pytest.mark.slow
def test_a_directory_is_not_a_config(tmp_path):
    code, _, err = run_cli("run", str(tmp_path))
    assert code == 2 and "is a directory" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, fragment", [
    (["run", "x.toml", "--budget", "abc"], "invalid float value: 'abc'"),
    (["run"], "required: config"),
    (["bogus"], "invalid choice: 'bogus'"),
])
def test_argument_errors_are_one_line(argv, fragment, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and err.startswith("desyr: error: ") and fragment in err
    assert len(err.splitlines()) == 1 and "usage:" not in err


@pytest.mark.slow
def test_unknown_section_keys_and_stray_gate_options(tmp_path):
    for extra, fragment in [("\n[refine]\nplugn = 'scipy'\n", "[refine] does not know option(s) plugn"),
                            ("\n[selection]\ngate = ['complexity']\n", "[selection] does not know option(s) gate"),
                            ("\n[selection]\ngates = ['complexity']\n[selection.options.convergence]\n",
                             "not in [selection] gates")]:
        cfg = write_config(tmp_path, SINE_1D + extra)
        code, _, err = run_cli("refine", str(cfg), "--candidate", "sin(3.1*x)")
        assert code == 2 and fragment in err, err


@pytest.mark.slow
def test_abs_candidate_is_refit_not_a_crash(tmp_path):
    cfg = write_config(tmp_path, SINE_1D)
    code, out, err = run_cli("refine", str(cfg), "--candidate", "abs(2.0*x - 1.0)", "--candidate", "sin(3.1*x)")
    assert code == 0 and "u = sin(3.14159265358979" in out, err


def test_malformed_toml_fails_before_the_plugins_load(tmp_path, monkeypatch, capsys):
    import desyr.extension.registry as registry

    monkeypatch.setattr(registry, "load_registry", lambda *a, **k: pytest.fail("the plugins were loaded"))
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[domain\n', encoding="utf-8")
    assert main(["run", str(bad), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("desyr: error:") and "malformed TOML" in err and err.count("\n") == 1


def test_summary_prints_the_exact_form_when_it_differs(capsys):
    """A new user saw exp(-0.9869604401089358*t) printed and the exact exp(-pi**2*t/10) only in report.md."""
    from pathlib import Path
    from types import SimpleNamespace

    from desyr.cli.summary import print_summary as _summary
    from desyr.model.result import load_result

    run = next((Path(__file__).parent / "fixtures" / "study_bench" / "runs").glob("tiny_sine-*/seed0"))
    result = load_result(run)
    result.expression = {"u": "1.0*sin(3.141592653589793*x)"}
    result.exact_form = SimpleNamespace(expressions={"u": "sin(pi*x)"})
    _summary(result, None)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "u = 1.0*sin(3.141592653589793*x)"
    assert lines[1] == "exact form: u = sin(pi*x)"
    result.exact_form = SimpleNamespace(expressions=dict(result.expression))
    _summary(result, None)
    assert not any(line.startswith("exact form") for line in capsys.readouterr().out.splitlines())


def test_a_candidate_that_starts_with_a_minus_sign_is_an_expression(capsys):
    from desyr.cli.main import glued_expressions

    assert glued_expressions(["verify", "f.toml", "--candidate", "-1/x"]) == ["verify", "f.toml", "--candidate=-1/x"]
    assert glued_expressions(["refine", "f", "--candidate", "--seed", "1"]) == ["refine", "f", "--candidate", "--seed", "1"]
    assert glued_expressions(["run", "--", "--candidate", "-x"]) == ["run", "--", "--candidate", "-x"]
    from pathlib import Path

    logistic = str(Path(__file__).parent / "fixtures" / "logistic.toml")
    code = main(["verify", logistic, "--candidate", "-1/(1 + exp(-t)) + 2/(1 + exp(-t))"])
    assert code == 0 and "Proved" in capsys.readouterr().out
