"""`desyr run`: the whole pipeline with tiny budgets, swapping only the searcher name."""
import json

import pytest
from helpers import SINE_RUN, write_config

from desyr.api import run
from desyr.cli.main import main
from desyr.config.loading import load_problem_file
from desyr.errors import ConfigError
from desyr.runtime.progress import Progress

GPLEARN = SINE_RUN.replace('plugin = "operon"', 'plugin = "gplearn"').replace(
    "generations = 30\npopulation_size = 200\ntime_limit = 0\n", "generations = 8\npopulation_size = 500\n")


def quiet_run(tmp_path, text, **kw):
    problem = load_problem_file(write_config(tmp_path, text))
    return run(problem, progress=Progress(verbose=False), cache_dir=tmp_path / "cache", **kw).to_dict()


@pytest.mark.slow
def test_operon_recovers_sine_poisson(tmp_path):
    d = quiet_run(tmp_path, SINE_RUN)
    assert d["converged"] and d["errors"]["rel_l2"] <= 1e-10
    assert d["errors"]["teacher_rel_l2"] > 1e-4           # the teacher was rough ...
    assert d["errors"]["pre_refit_rel_l2"] > 1e-10        # ... and so were the search constants
    assert d["search"]["plugin"] == "operon" and len(d["search"]["runs"]) == 2
    assert all(c["search_seed"] in d["search"]["seeds"] for c in d["candidates"])
    assert set(d["timings"]) >= {"teacher", "search", "refine", "select", "verify", "total"}
    assert d["pre_refit_expression"]["u"] != d["expression"]["u"]


@pytest.mark.slow
def test_gplearn_by_changing_only_the_searcher_name(tmp_path):
    assert GPLEARN.count("gplearn") == 1
    d = quiet_run(tmp_path, GPLEARN)
    assert d["search"]["plugin"] == "gplearn"
    assert d["converged"] is True
    assert d["errors"]["rel_l2"] <= 1e-10


@pytest.mark.slow
def test_same_config_and_seed_same_expression(tmp_path):
    a = quiet_run(tmp_path, SINE_RUN, seed=4)
    b = quiet_run(tmp_path, SINE_RUN, seed=4)
    assert a["expression"] == b["expression"]
    assert [c["pre_refit_expression"] for c in a["candidates"]] == [c["pre_refit_expression"] for c in b["candidates"]]


def test_unknown_searcher_option_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="does not know option\\(s\\) generatoins"):
        quiet_run(tmp_path, SINE_RUN.replace("generations = 30", "generatoins = 30"))


def test_operator_a_searcher_cannot_express(tmp_path):
    text = GPLEARN.replace('unary = ["sin"]', 'unary = ["sin", "sinh"]')
    with pytest.raises(ConfigError, match="searcher 'gplearn' cannot express operator\\(s\\) sinh"):
        quiet_run(tmp_path, text)


@pytest.mark.slow
def test_cli_run_writes_result(tmp_path, capsys):
    cfg = write_config(tmp_path, SINE_RUN)
    assert main(["run", str(cfg), "--out", str(tmp_path / "out"), "--quiet",
                 "--cache-dir", str(tmp_path / "cache")]) == 0
    d = json.loads((tmp_path / "out" / "result.json").read_text())
    assert d["command"] == "run" and "teacher_rel_l2" in d["errors"]
    assert "u = sin(3.14159265358979" in capsys.readouterr().out
