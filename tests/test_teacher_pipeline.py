"""The light teachers drive `desyr refine --teacher` and `desyr run` (no torch involved)."""
import json

import numpy as np
import pytest
from helpers import SINE_RUN, rough_sine, write_config

from desyr.api import refine, run
from desyr.cli.main import main
from desyr.config.loading import load_problem_file
from desyr.runtime.progress import Progress


def samples_config(tmp_path):
    X = np.linspace(0, 1, 401)[:, None]
    np.savez(tmp_path / "fem.npz", X=X, Y=rough_sine(X))
    return SINE_RUN.replace('plugin = "callable"', 'plugin = "samples"').replace(
        'function = "helpers:rough_sine"', f'path = "{tmp_path / "fem.npz"}"')


def teacher_gate(data):
    return next(g for g in data["selection"]["gates"] if g["gate"] == "teacher_compatibility")


@pytest.mark.slow
def test_samples_teacher_drives_refine(tmp_path):
    problem = load_problem_file(write_config(tmp_path, samples_config(tmp_path)))
    d = refine(problem, ["sin(3.1415536*x)", "2.9*x*(1.0 - x)"], use_teacher=True,
               progress=Progress(verbose=False)).to_dict()
    assert teacher_gate(d)["active"] is True
    assert d["teacher"]["plugin"] == "samples"
    assert all(isinstance(c["eps_T"], float) for c in d["candidates"])
    assert d["errors"]["rel_l2"] <= 1e-12


@pytest.mark.slow
def test_samples_teacher_drives_run(tmp_path):
    problem = load_problem_file(write_config(tmp_path, samples_config(tmp_path)))
    d = run(problem, progress=Progress(verbose=False), cache_dir=tmp_path / "cache").to_dict()
    assert d["teacher"]["plugin"] == "samples"
    assert d["converged"] and d["errors"]["rel_l2"] <= 1e-10


@pytest.mark.slow
def test_callable_teacher_drives_refine_cli(tmp_path):
    cfg = write_config(tmp_path, SINE_RUN)
    out = tmp_path / "out"
    assert main(["refine", str(cfg), "--teacher", "--candidate", "sin(3.1415536*x)",
                 "--candidate", "1.0001*sin(3.1413*x) + 0.01*x", "--out", str(out), "--quiet"]) == 0
    d = json.loads((out / "result.json").read_text())
    assert teacher_gate(d)["active"] is True and d["teacher"]["plugin"] == "callable"
    assert d["expression"]["u"].startswith("sin(3.14159265358979")


@pytest.mark.slow
def test_refine_without_teacher_reports_gate_inactive(tmp_path):
    problem = load_problem_file(write_config(tmp_path, SINE_RUN))
    d = refine(problem, ["sin(3.1415536*x)"], progress=Progress(verbose=False)).to_dict()
    gate = teacher_gate(d)
    assert gate["active"] is False and "inactive" in gate["note"]
