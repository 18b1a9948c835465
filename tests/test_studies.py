"""``desyr study``: every study's quick setting (or the shipped tiny bench) and its numbers."""
import json
import math
from pathlib import Path

import pytest
from budgets import full_only
from figure_checks import check_png

from desyr.cli.main import main
from desyr.studies import STUDIES, run_study

BENCH = Path(__file__).parent / "fixtures" / "study_bench"


def _run(name, tmp_path, **kw):
    out = tmp_path / name
    output = run_study(name, out, **kw)
    data = json.loads((out / "study.json").read_text())
    md = (out / "study.md").read_text()
    assert md.startswith(f"# Study `{name}`")
    for fig in output.figures:
        check_png(fig.path)
        assert f"]({fig.path.name})" in md
    return data, md


def test_help_lists_every_study(capsys):
    with pytest.raises(SystemExit):
        main(["study", "--help"])
    text = capsys.readouterr().out
    assert all(name in text for name in STUDIES)


def test_bench_study_needs_bench_or_quick(tmp_path, capsys):
    assert main(["study", "gates", "--out", str(tmp_path / "g")]) == 2
    assert "--bench" in capsys.readouterr().err
    assert main(["study", "nope", "--out", str(tmp_path / "n"), "--quick"]) == 2


@pytest.mark.slow
def test_correction_quick_gains_more_than_six_orders(tmp_path):
    data, md = _run("correction", tmp_path, quick=True)
    assert len(data["rows"]) == 6
    assert all(r["orders"] > 6 and r["converged"] for r in data["rows"])
    assert "orders gained" in md


@pytest.mark.slow
def test_correction_from_bench(tmp_path):
    data, _ = _run("correction", tmp_path, bench=BENCH)
    assert {r["config"] for r in data["rows"]} == {"tiny_sine", "tiny_poisson4"}
    assert all(r["orders"] > 6 for r in data["rows"])


@pytest.mark.slow
def test_jacobian_quick_full_column_rank(tmp_path):
    data, _ = _run("jacobian", tmp_path, quick=True)
    assert data["audited"] == 6 and data["full_rank"] == 6
    assert all(r["condition"] < 1e6 for r in data["rows"])


@pytest.mark.slow
def test_objective_physics_only_beats_mixed_by_orders(tmp_path):
    data, _ = _run("objective", tmp_path, quick=True)
    med = data["medians"]
    mixed = [med[k] for k in med if k.startswith("mixed")]
    assert mixed == sorted(mixed, reverse=True)              # more physics weight, smaller error
    assert med["physics-only"] < 1e-6 * mixed[0]
    assert med["physics-only"] < med["mixed, beta=1e6"]
    assert med["teacher-only"] > mixed[0]


@pytest.mark.slow
@full_only("the init study's claim is a benchmark (desyr study init); the quick studies above run the same machinery")
def test_init_teacher_starts_recover(tmp_path):
    data, _ = _run("init", tmp_path, quick=True)
    teacher = [r for r in data["rows"] if r["start"] == "teacher"]
    assert len(teacher) == 6 and all(r["rel_l2"] <= 1e-10 for r in teacher)
    assert data["n_random"] == 18


@pytest.mark.slow
def test_noise_error_grows_with_level(tmp_path):
    data, _ = _run("noise", tmp_path, quick=True)
    assert all(r["converged"] for r in data["rows"])
    for config, medians in data["medians"].items():
        assert all(a < b for a, b in zip(medians, medians[1:])), (config, medians)


@pytest.mark.slow
def test_gates_removing_convergence_exposes_a_worse_worst_case(tmp_path):
    data, md = _run("gates", tmp_path, bench=BENCH)
    crafted = data["crafted"]["variants"]
    assert crafted["full"]["rel_l2"] < 1e-12 and crafted["full"]["converged"]
    assert crafted["convergence"]["rel_l2"] > 1e3 * crafted["full"]["rel_l2"]
    assert not crafted["convergence"]["converged"]
    assert len(data["pools"]) == 4 and data["summary"]["full"]["worst_rel_l2"] < 1e-10


@pytest.mark.slow
def test_convergence_audit_matches_the_fixture(tmp_path):
    data, _ = _run("convergence", tmp_path, bench=BENCH)
    counts = {}
    for path in BENCH.glob("runs/*/seed*/result.json"):
        for c in json.loads(path.read_text())["candidates"]:
            if c["params_initial"]:
                counts[c["status"]] = counts.get(c["status"], 0) + 1
    assert data["with_free"] == sum(counts.values()) > 0
    assert all(data["total"][k] == v for k, v in counts.items())


@pytest.mark.slow
def test_cost_table_from_the_fixture(tmp_path):
    data, _ = _run("cost", tmp_path, bench=BENCH)
    for config, row in data["configs"].items():
        assert row["n"] == 2
        totals = [json.loads(p.read_text())["timings"]["total"] for p in BENCH.glob(f"runs/{config}-*/seed*/result.json")]
        assert math.isclose(row["medians"]["total"], sorted(totals)[0] / 2 + sorted(totals)[1] / 2)


@pytest.mark.slow
def test_coverage_pools_the_first_k_searches(tmp_path):
    data, md = _run("coverage", tmp_path, bench=BENCH)
    assert data["counts"] == {"1": [4, 4], "2": [4, 4], "3": [4, 4]}
    assert "K > 3 not evaluated" in md


@pytest.mark.slow
def test_library_quick_misspecified_is_flagged(tmp_path):
    data, _ = _run("library", tmp_path, quick=True)
    poly = [r for r in data["rows"] if r["setting"].startswith("misspecified")]
    assert poly and all(not r["recovered"] and r["R_eq"] > 1e-3 and not r["raw_front_hit"] for r in poly)
    base = [r for r in data["rows"] if r["setting"] == "baseline"]
    assert base and all(r["recovered"] and r["raw_front_hit"] and r["pool_hit"] for r in base)


@pytest.mark.slow
def test_no_plots_writes_no_png(tmp_path):
    # the cost table: a study that draws a figure from the tiny bench in a second (the figure switch is the
    # studies' common context, whichever study draws)
    run_study("cost", tmp_path / "plots", bench=BENCH)
    assert list((tmp_path / "plots").glob("*.png"))
    run_study("cost", tmp_path / "none", bench=BENCH, plots=False)
    assert not list((tmp_path / "none").glob("*.png"))


# ------------------------------------------- the quick studies' tiny bench comes from a plugin (issue 37)
def test_quick_bench_is_what_a_plugin_offers(tmp_path, monkeypatch):
    import os

    import desyr.bench.suite as suite
    from desyr.extension.registry import load_registry
    from desyr.plugin import StudyBench, hookimpl
    from desyr.studies.quickbench import make_quick_bench

    class Offer:
        @hookimpl
        def desyr_study_bench(self):
            return StudyBench({"one": "name = 'one'\n"}, "one stand-in", {"DESYR_TEST_CONSENT": "1"})

    seen = {}

    def fake_bench(registry, paths, all_, seeds, out, *rest):
        seen.update(paths=paths, consent=os.environ.get("DESYR_TEST_CONSENT"))

    monkeypatch.setattr(suite, "bench", fake_bench)
    monkeypatch.delenv("DESYR_TEST_CONSENT", raising=False)
    out, note = make_quick_bench(load_registry(extra_plugins=[Offer()], entry_points=False), tmp_path / "b")
    assert note == "one stand-in" and seen["consent"] == "1" and "DESYR_TEST_CONSENT" not in os.environ
    assert [Path(p).read_text() for p in seen["paths"]] == ["name = 'one'\n"] and out == tmp_path / "b"


def test_quick_bench_without_a_plugin_is_one_line(tmp_path):
    from desyr.errors import ConfigError
    from desyr.extension.registry import load_registry
    from desyr.studies.quickbench import make_quick_bench

    with pytest.raises(ConfigError, match="desyr_study_bench"):
        make_quick_bench(load_registry(entry_points=False), tmp_path)


def test_the_shipped_bench_names_functions_that_exist_and_its_folders_match_its_configs():
    """The tiny bench's stand-in teachers moved to desyr_light_teachers.tinybench; the fixture
    named the old module, which loads nothing now."""
    import importlib
    import re

    from desyr.bench.suite import config_digest

    named = set()
    for path in [BENCH / "bench.json", *BENCH.glob("configs/*.toml"), *BENCH.glob("runs/*/seed*/result.json")]:
        named |= set(re.findall(r'"function"\s*[:=]\s*"([\w.]+):(\w+)"', path.read_text()))
    assert len(named) == 2
    for module, function in named:
        assert callable(getattr(importlib.import_module(module), function))
    for config in BENCH.glob("configs/*.toml"):
        digest = config_digest(None, str(config))
        (folder,) = BENCH.glob(f"runs/{config.stem}-*")
        assert folder.name == f"{config.stem}-{digest[:12]}"
        assert all(json.loads(m.read_text())["config_sha256"] == digest for m in folder.glob("seed*/run.json"))
