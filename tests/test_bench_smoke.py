"""CI smoke subset of the paper benchmark: real teachers and searches with small budgets.

Sine–Poisson 1D and one space–time problem go through `desyr bench`, must recover
the exact solution (relative L2 <= 1e-10), and a second invocation must resume
(skip finished runs) while a broken run is recorded without stopping the others.
"""
import json
import re
from importlib import resources

import pytest
from budgets import full_only

from desyr.cli.main import main

SMALL_TEACHER = {"adam_steps": 300, "lbfgs_steps": 300, "checkpoint_every": 50}
#: no polynomial is exact, however good the teacher: the misspecified run needs no better one
TINY_TEACHER = {"adam_steps": 100, "lbfgs_steps": 50, "checkpoint_every": 25}


def small_copy(tmp_path, stem, interior=None, teacher=SMALL_TEACHER):
    text = (resources.files("desyr_paper") / "problems" / f"{stem}.toml").read_text(encoding="utf-8")
    for key, value in teacher.items():
        if re.search(rf"^{key} = ", text, flags=re.M):
            text = re.sub(rf"^{key} = .*$", f"{key} = {value}", text, flags=re.M)
        else:
            text = text.replace("[teacher.options]\n", f"[teacher.options]\n{key} = {value}\n")
    if interior:
        text = re.sub(r"^interior_points = .*$", f"interior_points = {interior}", text, flags=re.M)
    path = tmp_path / f"{stem}.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
def test_smoke_subset_recovers_and_resumes(tmp_path, capsys):
    configs = [small_copy(tmp_path, "05_sine_poisson_1d"), small_copy(tmp_path, "09b_fokker_planck_2", interior=1000)]
    broken = tmp_path / "broken.toml"
    broken.write_text(configs[0].read_text().replace('plugin = "scipy"', 'plugin = "nope"'))
    out = tmp_path / "bench"
    args = ["bench", *map(str, configs), str(broken), "--seeds", "1", "--out", str(out), "--quiet"]
    assert main(args) == 0
    data = json.loads((out / "bench.json").read_text())
    results = {r["spec"]: r for r in data["runs"]}
    for cfg in configs:
        r = results[str(cfg)]["result"]
        assert r["converged"] and r["errors"]["rel_l2"] <= 1e-10, (cfg.name, r["expression"])
    assert "unknown refiner 'nope'" in " ".join(results[str(broken)]["error"])
    table = (out / "bench.md").read_text()
    assert "| 05 | Sine–Poisson 1D |" in table and "1/1" in table and "run failed" in table
    page = (out / "bench.html").read_text()      # the same rows, each finished run linked to its report.html
    links = re.findall(r'<a href="([^"]+)">report</a>', page)
    assert len(links) == 2 and all((out / link).is_file() for link in links)
    assert "Sine–Poisson 1D" in page and "unknown refiner" in page and "default-src 'none'" in page

    capsys.readouterr()
    assert main(args[:-1]) == 0                       # resume: the finished runs are skipped
    err = capsys.readouterr().err
    assert err.count("already done, skipped") == 2


@pytest.mark.slow
@full_only("the library study's quick run (tests/test_studies.py) flags the same misspecified library")
def test_misspecified_library_run_is_reported_as_not_exact(tmp_path):
    """§5.3.4 end to end: polynomial-only library for u = sin(4x), one attempt (the bundled
    config's [escalation] budget removed; tests/test_escalation.py covers the retries).  A tiny
    teacher and 10 generations (bundled: 100) keep it a test: no polynomial is exact however good the
    teacher or long the search, and the benchmark at full budgets is
    `desyr bench paper:param_poisson_polynomial`."""
    text = small_copy(tmp_path, "01m_param_poisson_polynomial", teacher=TINY_TEACHER).read_text(encoding="utf-8")
    assert re.search(r"^generations = 100$", text, flags=re.M)
    config = tmp_path / "mis.toml"
    config.write_text(re.sub(r"^generations = 100$", "generations = 10", text.split("[escalation]")[0], flags=re.M))
    out = tmp_path / "mis"
    assert main(["run", str(config), "--out", str(out), "--quiet",
                 "--cache-dir", str(tmp_path / "cache")]) == 0
    d = json.loads((out / "result.json").read_text())
    assert "sin" not in d["expression"]["u"]
    assert d["residuals"]["R_con"] <= 1e-10 and d["residuals"]["R_eq"] >= 1e-3
    assert d["exact"] is False
    assert "Not an exact solution" in (out / "report.md").read_text()
