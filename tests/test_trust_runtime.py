"""What a run does to the files and folders around it, and what a config may not ask for.

Each test reproduces a reported defect: a scheduler named by a config, a symlinked lock,
a user's ``store/`` folder deleted, finished work deleted by a late error, results
written 0600, and an option range that claimed to include inf.
"""
from __future__ import annotations

import contextlib
import io
import math
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hostile_components import RIGHT_FIT, TOML, WRONG, HostilePlugin, LateFailureGate

from desyr.api import Execution, refine
from desyr.cli.main import main
from desyr.config.spec import read_spec
from desyr.errors import ConfigError, PluginError
from desyr.extension.options import Option, OptionError
from desyr.extension.registry import load_registry
from desyr.model.frozen import frozen
from desyr.runtime.atomic import run_lock, write_text_atomic
from desyr.runtime.execution import make_executor
from desyr.testing import make_problem

FAST = TOML + "\n[refine.options]\nstarts = 1\n"


def cli(*args: str) -> tuple[int, str, str]:
    """``desyr ARGS`` in process (a subprocess would spend seconds importing)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def one_error(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("desyr: error: "), stderr
    return lines[0]


def refine_cli(config: Path, out: str, *extra: str) -> tuple[int, str, str]:
    return cli("refine", str(config), "--candidate", "sin(pi*x)", "--out", out, "--quiet", "--no-plots", *extra)


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "sine.toml"
    path.write_text(FAST, encoding="utf-8")
    return path


# ------------------------------------------------------------ 1. scheduler
@pytest.mark.parametrize("table", [
    '[execution]\nplugin = "dask"\nscheduler = "tcp://127.0.0.1:9"',
    '[execution]\nplugin = "dask"\n[execution.options]\nscheduler = "tcp://127.0.0.1:9"',
])
@pytest.mark.parametrize("executor", [[], ["--executor", "serial"]])
def test_a_config_may_not_name_a_scheduler(tmp_path, table, executor):
    path = tmp_path / "remote.toml"
    path.write_text(FAST + "\n" + table + "\n", encoding="utf-8")
    code, _, err = refine_cli(path, str(tmp_path / "out"), *executor)
    line = one_error(err)
    assert code == 2 and "scheduler" in line and "--scheduler" in line and "DASK_SCHEDULER_ADDRESS" in line
    assert not (tmp_path / "out").exists()


def test_an_executor_declares_the_options_a_config_may_not_set(tmp_path):
    from desyr_executors.cluster import DaskExecutor

    assert "scheduler" in DaskExecutor.command_line_only
    problem = make_problem(FAST + '\n[execution]\nplugin = "dask"\n[execution.options]\nretries = 2\n')
    spec = read_spec(problem, load_registry())
    options = {**spec.execution.options, "scheduler": "tcp://127.0.0.1:9"}       # past the loader's check
    spec = replace(spec, execution=replace(spec.execution, options=frozen(options)))
    with pytest.raises(ConfigError, match=r"\[execution.options\] scheduler: a config may not set"):
        make_executor(load_registry(), spec)


def test_the_command_line_may_name_a_scheduler():
    executor = make_executor(load_registry(), read_spec(make_problem(FAST)), "dask", options={"scheduler": "tcp://head:8786"})
    assert executor.settings["scheduler"] == "tcp://head:8786"      # connected only when units run


# --------------------------------------------------------------- 2. lock
def test_a_symlinked_lock_is_not_followed(tmp_path, config):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / ".desyr.lock").symlink_to(precious)
    code, _, err = refine_cli(config, str(out))
    assert code == 2 and "symbolic link" in one_error(err)
    assert precious.read_text() == "keep me\n"


def test_an_existing_lock_file_is_never_truncated(tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    out = tmp_path / "out"
    out.mkdir()
    os.link(precious, out / ".desyr.lock")           # a hard link: O_NOFOLLOW cannot see it
    with run_lock(out):
        pass
    assert precious.read_text() == "keep me\n"


# ------------------------------------------------------- 3. foreign folders
def test_a_users_store_folder_is_not_deleted(tmp_path, config):
    proj = tmp_path / "proj"
    (proj / "store").mkdir(parents=True)
    (proj / "store" / "notes.txt").write_text("data\n")
    code, _, err = refine_cli(config, str(proj))
    assert code == 2 and "not a desyr run store" in one_error(err)
    assert (proj / "store" / "notes.txt").read_text() == "data\n"


def test_a_symlinked_store_is_refused(tmp_path, config):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.json").write_text("{}")
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "store").symlink_to(elsewhere)
    code, _, err = refine_cli(config, str(tmp_path / "proj"))
    assert code == 2 and "symbolic link" in one_error(err)
    assert (elsewhere / "keep.json").exists()


@pytest.mark.parametrize("command", ["refine", "bench"])
def test_an_empty_out_is_refused(tmp_path, config, command, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "notes.txt").write_text("data\n")
    args = (["refine", str(config), "--candidate", "sin(pi*x)"] if command == "refine" else ["bench", str(config)])
    code, _, err = cli(*args, "--out", "", "--quiet")
    assert code == 2 and "--out is empty" in one_error(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sine.toml", "store"]


@pytest.mark.slow
def test_only_desyr_files_leave_a_desyr_store(tmp_path, config):
    out = tmp_path / "out"
    assert refine_cli(config, str(out))[0] == 0
    (out / "store" / "refit" / "notes.txt").write_text("mine\n")
    assert refine_cli(config, str(out))[0] == 0                       # a fresh run clears the old records
    assert (out / "store" / "refit" / "notes.txt").read_text() == "mine\n"


# ------------------------------------------------------- 4. late failures
@pytest.mark.slow
def test_a_late_failure_keeps_finished_units_for_resume(tmp_path, monkeypatch):
    registry = load_registry(extra_plugins=[HostilePlugin()])
    problem = make_problem(FAST + '\n[selection]\ngates = ["g_late_failure"]\n')
    out = tmp_path / "out"
    with pytest.raises(PluginError, match="g_late_failure"):
        refine(problem, [RIGHT_FIT, WRONG], registry=registry, out=out, execution=Execution("serial"))
    assert len(list((out / "store" / "refit").glob("*.json"))) == 2
    monkeypatch.setattr(LateFailureGate, "fails", False)
    result = refine(problem, [RIGHT_FIT, WRONG], registry=registry, out=out,
                    execution=Execution("serial", resume=True))
    assert (result.provenance.execution.units_reused, result.provenance.execution.units_computed) == (2, 0)
    assert result.exact


def test_an_early_failure_leaves_no_folder(tmp_path):
    registry = load_registry(extra_plugins=[HostilePlugin()])
    problem = make_problem(FAST + '\n[selection]\ngates = ["no_such_gate"]\n')
    with pytest.raises(PluginError):
        refine(problem, [WRONG], registry=registry, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------ 8. file modes
@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.slow
def test_written_files_get_the_mode_open_would_give(tmp_path, umask_022):
    out = tmp_path / "out"
    refine(make_problem(FAST), [RIGHT_FIT], out=out, plots=False)
    for name in ("result.json", "report.md", "store/key.json"):
        assert oct((out / name).stat().st_mode & 0o777) == oct(0o644), name
    kept = tmp_path / "kept.txt"
    kept.write_text("old")
    kept.chmod(0o640)
    write_text_atomic(kept, "new")                  # an existing file keeps its mode, as with open()
    assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_text() == "new"


# ------------------------------------------------------------- 10. inf
def test_an_unbounded_range_says_it_excludes_inf():
    spec = Option(1.0, "", kind=float, low=0.0, open_low=True)
    assert spec.range_text() == "(0, inf)"
    with pytest.raises(OptionError, match=r"finite number in \(0, inf\), got inf"):
        spec.check("tolerance", math.inf)
    closed = Option(1.0, "", kind=float, low=0.0, open_low=True, high=math.inf)
    assert closed.range_text() == "(0, inf]" and closed.check("timeout", math.inf) == math.inf
    with pytest.raises(OptionError):
        closed.check("timeout", -math.inf)


@pytest.mark.slow
def test_refiner_timeout_may_be_inf(tmp_path):
    path = tmp_path / "inf.toml"
    path.write_text(FAST.replace("starts = 1", "starts = 1\ntimeout = inf"), encoding="utf-8")
    code, out, err = cli("refine", str(path), "--candidate", RIGHT_FIT, "--quiet", "--no-plots")
    assert code == 0, err
    assert "u = sin(3.14159265358979" in out


def test_bench_timeout_may_be_inf():
    from desyr.runtime.children import run_child

    ok, _ = run_child([sys.executable, "-c", "pass"], math.inf)
    assert ok
    with pytest.raises(ConfigError, match=r"\(0, inf\]"):
        from desyr.bench.suite import bench
        from desyr.runtime.progress import Progress

        bench(load_registry(), [], False, 1, "unused", math.nan, Progress(verbose=False), "")
