"""The separate verifier: its process, its three verdicts, the smoothness rule and ``desyr verify``."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from desyr.api import refine
from desyr.cli.main import main
from desyr.config.loading import load_problem
from desyr.model.result import Residuals
from desyr.testing import SINE_POISSON_1D, make_problem
from desyr.verify import make_request, request_verdict
from desyr.verify.attach import _disagreement
from desyr.verify.child import verifier_command, verifier_env
from desyr.verify.proof import exact_number

KINKED = "sin(pi*x) + abs(x - 1/2) - 1/2"        # R_eq = 0 pointwise, relative L2 0.41
FAST = SINE_POISSON_1D.replace("verify = 300", "verify = 200") + "\n[refine.options]\nstarts = 1\n"


def verdict_of(text: str, exact: str | None = None, toml: str = FAST, seed: int = 0) -> dict:
    problem = make_problem(toml)
    return request_verdict(make_request(problem, {"u": text}, {"u": exact} if exact else None, seed))


# ------------------------------------------------------------------ three verdicts
@pytest.mark.slow
def test_exact_constants_are_proved():
    answer = verdict_of("sin(pi*x)")
    assert answer["verdict"] == "proved" and answer["exact"]
    assert [s["zero"] for s in answer["exact_form"]["steps"]] == [True, True, True]


@pytest.mark.slow
def test_float_constants_are_verified_not_proved_and_say_why():
    answer = verdict_of("sin(3.141592653589793*x)")
    assert answer["verdict"] == "verified"
    assert "constants not identified" in answer["reason"]


@pytest.mark.slow
def test_an_exact_form_that_agrees_is_proved():
    answer = verdict_of("sin(3.141592653589793*x)", exact="sin(pi*x)")
    assert answer["verdict"] == "proved" and answer["exact_form"]["agreement"] < 1e-12


@pytest.mark.slow
def test_an_exact_form_that_disagrees_proves_nothing():
    # sin(2*pi*x) is not a solution of this problem: its own check fails, the numeric one stands
    answer = verdict_of("sin(3.141592653589793*x)", exact="sin(2*pi*x)")
    assert answer["verdict"] == "verified" and "exact form fails" in answer["reason"]


@pytest.mark.slow
def test_wrong_formula_is_not_exact():
    answer = verdict_of("x*(1 - x)")
    assert answer["verdict"] == "not_exact" and not answer["exact"]
    assert answer["residuals"]["R_eq"] > 1


@pytest.mark.slow
def test_residuals_at_roundoff_of_a_non_solution_are_not_proved():
    """The Taylor conspiracy: floats agree with the polynomial to round-off; only 'verified' at best."""
    toml = """
name = "poly6"
[domain]
x = [-1, 1]
[[equations]]
lhs = "u_xx"
rhs = "from_reference"
[[constraints]]
on = ["x = -1", "x = 1"]
value = "reference"
[reference]
u = "x + x**2 + x**3 + x**4 + x**5 + x**6"
"""
    conspiracy = ("(x + x**4)*(1.0000051451505796*x + 0.9999999999867727*x**2 + "
                  "exp(-5.145150579633083e-06*x))")
    answer = verdict_of(conspiracy, toml=toml)
    assert answer["verdict"] != "proved"
    assert verdict_of("x + x**2 + x**3 + x**4 + x**5 + x**6", toml=toml)["verdict"] == "proved"


# ------------------------------------------------------------------ smoothness
@pytest.mark.slow
def test_kinked_candidate_is_not_smooth_enough():
    answer = verdict_of(KINKED)
    assert answer["verdict"] == "not_exact"
    assert answer["reason"].startswith("not smooth enough for this equation")
    assert answer["residuals"]["rel_l2"] > 0.3


@pytest.mark.slow
def test_abs_of_a_one_signed_quantity_is_smooth_and_provable():
    assert verdict_of("sin(pi*x) + abs(x + 2) - x - 2")["verdict"] == "proved"


def test_kinked_candidate_through_refine_is_not_exact():
    result = refine(load_problem("paper:sine_poisson_1d"), [KINKED])
    assert not result.exact and result.verdict == "not_exact"
    # Stage B already fails it (its second derivative is a delta, evaluated as nan), or the verifier refuses it
    reasons = [result.verification.reason] + [c.reason or "" for c in result.candidates]
    assert any("not smooth enough" in r or "finite" in r for r in reasons), reasons


# ------------------------------------------------------------------ the process boundary
@pytest.mark.slow
def test_the_verifier_process_imports_no_plugin_and_no_registry():
    request = make_request(make_problem(FAST), {"u": "sin(pi*x)"}, None, 0)
    probe = ("import sys, io, json; sys.path.insert(0, sys.argv[1]); sys.stdin = io.StringIO(sys.argv[2]);"
             "from desyr.verify.__main__ import main; main();"
             "print(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    root = verifier_command()[-1]
    done = subprocess.run([sys.executable, "-I", "-c", probe, root, json.dumps(request)], capture_output=True,
                          text=True, env=verifier_env(), check=True)
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert json.loads(done.stdout)["verdict"] == "proved"
    plugins = [m for m in modules if m.startswith("desyr_") or m in ("desyr.extension.registry", "desyr.api", "torch",
                                                                       "deepxde", "pyoperon", "gplearn")]
    assert plugins == []
    assert not any(m.startswith("importlib.metadata") and "entry" in m for m in modules)


def test_the_verifier_environment_carries_nothing_of_the_run(monkeypatch):
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
    monkeypatch.setenv("PYTHONPATH", "/tmp/evil")
    env = verifier_env()
    assert "DESYR_ALLOW_CALLABLE" not in env and "PYTHONPATH" not in env
    assert env["OPENBLAS_NUM_THREADS"] == "1"
    assert verifier_command()[1] == "-I"


@pytest.mark.slow
def test_bad_requests_are_one_line_errors():
    for bad in ["not json", "[]", json.dumps({"schema": "desyr.verify-request/1", "config": {"format": "toml",
                                                                                               "text": "x = ["}})]:
        done = subprocess.run(verifier_command(), input=bad, capture_output=True, text=True, env=verifier_env())
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("desyr: error: ") and done.stderr.count("\n") == 1, done.stderr


# ------------------------------------------------------------------ desyr verify
@pytest.mark.slow
def test_desyr_verify_candidate(capsys):
    assert main(["verify", "paper:sine_poisson_1d", "--candidate", KINKED]) == 0
    assert capsys.readouterr().out.startswith("Not exact: not smooth enough")
    assert main(["verify", "paper:sine_poisson_1d", "--candidate", "sin(pi*x)", "--require", "proved"]) == 0
    assert main(["verify", "paper:sine_poisson_1d", "--candidate", "sin(3.14*x)", "--require", "verified"]) == 1


@pytest.mark.slow
def test_desyr_verify_candidate_errors_are_one_line(capsys):
    assert main(["verify", "paper:sine_poisson_1d", "--candidate", "sin(pi*x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("desyr: error:") and err.count("\n") == 1
    assert main(["verify", "paper:sine_poisson_1d", "--candidate", "v = x"]) == 2


def hand_edited_result(tmp_path):
    """A not-exact result whose file is edited to claim Verified/Proved."""
    out = tmp_path / "o"
    refine(make_problem(FAST), ["x*(1 - x)"], out=out, plots=False)
    data = json.loads((out / "result.json").read_text())
    data["exact"] = True
    data["verification"]["verdict"] = "proved"
    data["residuals"]["R_eq"] = 0.0
    (out / "result.json").write_text(json.dumps(data))
    return out


@pytest.mark.slow
def test_desyr_verify_result_ignores_a_hand_edited_verdict(tmp_path, capsys):
    out = hand_edited_result(tmp_path)
    capsys.readouterr()
    assert main(["verify", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "not_exact"


@pytest.mark.slow
def test_exact_and_export_reverify_a_hand_edited_result(tmp_path, capsys):
    out = hand_edited_result(tmp_path)
    assert main(["export", str(out), "--to", "numpy"]) == 0
    assert "desyr verdict: not_exact" in capsys.readouterr().out
    assert main(["exact", str(out)]) == 0
    data = json.loads((out / "result.json").read_text())
    assert data["exact"] is False and data["verification"]["verdict"] == "not_exact"
    assert "**Not an exact solution**" in (out / "report.md").read_text()


@pytest.mark.slow
def test_result_carries_the_config_and_the_verifiers_answer(tmp_path):
    out = tmp_path / "o"
    result = refine(make_problem(FAST), ["sin(3.1*x)"], out=out, plots=False)
    data = json.loads((out / "result.json").read_text())
    assert data["schema"] == "desyr.result/3"
    assert data["config"]["text"] == FAST and data["config"]["format"] == "toml"
    answer = data["verification"]["answer"]
    assert answer["verdict"] == data["verification"]["verdict"] == result.verdict == "proved"
    assert data["residuals"]["R_eq"] == answer["residuals"]["R_eq"]
    assert data["verification"]["run_residuals"]["R_eq"] < 1e-8
    assert "**Proved**" in (out / "report.md").read_text()


# ------------------------------------------------------------------ small rules
def test_disagreement_is_reported_beyond_roundoff_only():
    assert _disagreement(Residuals(1e-14, 1e-15), Residuals(3e-14, 1e-15), 1e-8) is None
    assert _disagreement(Residuals(1e-3, None), Residuals(2e-3, None), 1e-8) is None
    assert "differ" in _disagreement(Residuals(1e-14, None), Residuals(5.0, None), 1e-8)
    assert "differ" in _disagreement(Residuals(1e-3, None), Residuals(1.0, None), 1e-8)


@pytest.mark.parametrize("value,expected", [(0.5, "1/2"), (-1.0, "-1"), (3.141592653589793, "pi"),
                                            (6.283185307179586, "2*pi"), (0.1, "1/10")])
def test_face_values_are_read_as_the_exact_numbers_a_config_meant(value, expected):
    assert str(exact_number(value)) == expected


# ------------------------------------------------------------------ the red team's candidates (0.4 review)
@pytest.mark.parametrize("candidate", [
    "sin(pi*x) + (atan(tan(pi*x)) - pi*x)*(1 - x)",                  # a step function whose derivative is 0
    "sin(pi*x) + sqrt(x**2 - x + 1/4) - 1/2",                         # abs(x - 1/2) without abs
    "sin(pi*x) + exp(log((x - 1/2)**2)/2) - 1/2",
    "sin(pi*x) + acos(cos(pi*x - pi/2)) - pi/2",
    "sin(pi*x) + 10**12*(abs((x - 4019/8000)**2 - 10**(-10)) - ((x - 4019/8000)**2 - 10**(-10)))",  # between samples
    "sin(pi*x) + 10**-30*x*(1 - x)/(x - 4019/8000)",                  # a pole between samples
])
def test_hidden_kinks_steps_and_poles_are_not_exact(candidate):
    from desyr.verify.verdict import decide

    answer = decide(make_request(make_problem(FAST), {"u": candidate}, None, 0))
    assert answer["verdict"] == "not_exact", answer["reason"]
    assert answer["reason"].startswith(("not smooth enough", "not finite on the domain")), answer["reason"]


def test_signs_are_proved_on_the_whole_box_not_at_samples():
    import sympy as sp

    from desyr.verify.intervals import sign_on

    x = sp.Symbol("x", real=True)
    narrow = (x - sp.Rational(4019, 8000)) ** 2 - sp.Rational(1, 10**10)      # negative only 2e-5 wide
    assert sign_on(narrow, {x: (0, 1)}, strict=False) == "changes"
    assert sign_on(sp.cos(x), {x: (0, 1)}, strict=True) == "positive"
    assert sign_on(x, {x: (0, 1)}, strict=False) == "positive"
    assert sign_on(x, {x: (0, 1)}, strict=True) == "unknown"                 # reaches 0 at the boundary


def test_the_proof_is_bounded_in_time(monkeypatch):
    import time

    import sympy as sp

    import desyr.verify.proof as proof

    monkeypatch.setattr(proof, "SECONDS_PER_RESIDUAL", 0.5)
    x, y, z = sp.symbols("x y z", real=True)
    clock = time.perf_counter()
    assert not proof.is_zero(((x + y + z) / 4) ** 400 - ((x + y + z) / 4) ** 399 * (x / 4 + y / 4 + z / 4 + 1) + 1,
                             [{x: 0.1, y: 0.2, z: 0.3}])
    assert time.perf_counter() - clock < 10


@pytest.mark.slow
def test_a_verifier_crash_is_one_line(capsys, monkeypatch):
    import io

    import desyr.verify.__main__ as child
    import desyr.verify.verdict as verdict

    # sin(10**300*x) was the crash here (OverflowError); it has a verdict now (issue 35, item 10)
    assert main(["verify", "paper:sine_poisson_1d", "--candidate", "sin(10**300*x)"]) == 0
    assert capsys.readouterr().out.startswith("Not exact")

    def crash(request):
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(verdict, "decide", crash)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(make_request(make_problem(FAST), {"u": "x"}, None, 0))))
    assert child.main() == 2
    err = capsys.readouterr().err
    assert err.startswith("desyr: error: the verifier could not evaluate this (OverflowError") and err.count("\n") == 1


@pytest.mark.slow
def test_result_and_export_targets_that_are_not_regular_files(tmp_path, capsys):
    import os

    out = tmp_path / "o"
    refine(make_problem(FAST), ["sin(pi*x)"], out=out, plots=False)
    assert main(["export", str(out), "--to", "c", "-o", str(tmp_path)]) == 2
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert main(["export", str(out), "--to", "c", "-o", str(fifo)]) == 2
    (tmp_path / "r").mkdir()
    os.mkfifo(tmp_path / "r" / "result.json")
    assert main(["verify", str(tmp_path / "r")]) == 2
    assert main(["export", str(tmp_path / "r"), "--to", "c"]) == 2
    err = capsys.readouterr().err
    assert err.count("desyr: error:") == 4 and "Traceback" not in err


@pytest.mark.slow
def test_a_result_carrying_a_different_config_than_its_source_is_flagged(tmp_path, capsys):
    out = tmp_path / "o"
    refine(load_problem("paper:sine_poisson_1d"), ["x*(1 - x)"], out=out, plots=False)
    data = json.loads((out / "result.json").read_text())
    # a forger's config for which x*(1 - x) is the solution
    data["config"]["text"] = data["config"]["text"].replace("u_xx + pi**2*sin(pi*x)", "u_xx + 2")
    assert "u_xx + 2" in data["config"]["text"]
    (out / "result.json").write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    captured = capsys.readouterr()
    assert "differs from paper:sine_poisson_1d" in captured.err
    assert main(["verify", str(out), "--problem", "paper:sine_poisson_1d", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "not_exact"
