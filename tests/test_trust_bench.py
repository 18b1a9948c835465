"""Issue 11, items 1 (bench children), 3, 4, 5: bench run dirs, resume, atomic files, locks, orphans."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from budgets import full_only

from desyr.bench import suite as bench_mod
from desyr.cli.main import main
from desyr.errors import ConfigError
from desyr.runtime import children as children_mod
from desyr.runtime.atomic import read_json, run_lock, write_json_atomic, write_text_atomic

TINY = """
name = "sine"
[domain]
x = [0, {hi}]
[[equations]]
lhs = "u_xx + pi**2*sin(pi*x)"
[[constraints]]
on = ["x = 0", "x = {hi}"]
value = 0
[reference]
u = "sin(pi*x)"
[points]
refine = 100
verify = 100
search = 50
validate = 50
[teacher]
plugin = "samples"
[teacher.options]
path = "{npz}"
[search]
plugin = "operon"
binary = ["*"]
unary = ["sin"]
max_size = 10
runs = 1
[search.options]
generations = 5
population_size = 50
time_limit = 0
[refine]
plugin = "{refiner}"
"""


@pytest.fixture
def samples(tmp_path):
    x = np.linspace(0, 2, 801)
    path = tmp_path / "s.npz"
    np.savez(path, x=x, u=np.sin(np.pi * x))
    return path


def tiny(path: Path, npz: Path, hi: int = 1, refiner: str = "scipy") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TINY.format(hi=hi, npz=npz, refiner=refiner), encoding="utf-8")
    return path


def runs_of(out: Path) -> dict[str, dict]:
    return {r["spec"]: r for r in json.loads((out / "bench.json").read_text())["runs"]}


# ------------------------------------------------------------- item 3: identity
@pytest.mark.slow
@full_only("test_run_dir_names_are_unique_per_config holds the rule on its own")
def test_same_file_name_in_two_folders_keeps_results_apart(tmp_path, samples, capsys):
    good = tiny(tmp_path / "a" / "tiny.toml", samples)
    broken = tiny(tmp_path / "b" / "tiny.toml", samples, refiner="nope")
    flat = tiny(tmp_path / "bench_tiny.toml", samples, hi=2)
    nested = tiny(tmp_path / "bench" / "tiny.toml", samples, hi=2, refiner="nope")
    out = tmp_path / "out"
    assert main(["bench", str(good), str(broken), str(flat), str(nested), "--out", str(out), "--quiet"]) == 0
    runs = runs_of(out)
    assert "result" in runs[str(good)] and "result" in runs[str(flat)]
    assert "unknown refiner 'nope'" in " ".join(runs[str(broken)]["error"])
    assert "unknown refiner 'nope'" in " ".join(runs[str(nested)]["error"])
    assert len(list((out / "runs").iterdir())) == 4

    # resume: the finished runs are skipped, the failed ones tried again
    capsys.readouterr()
    assert main(["bench", str(good), str(broken), str(flat), str(nested), "--out", str(out)]) == 0
    assert capsys.readouterr().err.count("already done, skipped") == 2

    # the config changes: its old result is not reused
    tiny(good, samples, hi=2)
    capsys.readouterr()
    assert main(["bench", str(good), "--out", str(out)]) == 0
    assert "already done" not in capsys.readouterr().err


@pytest.mark.slow
def test_truncated_or_foreign_result_is_run_again(tmp_path, samples, capsys):
    cfg = tiny(tmp_path / "tiny.toml", samples)
    out = tmp_path / "out"
    assert main(["bench", str(cfg), "--out", str(out), "--quiet"]) == 0
    (where,) = list((out / "runs").glob("*/seed0"))
    text = (where / "result.json").read_text()
    (where / "result.json").write_text(text[: len(text) // 2])         # killed mid-write (old code)
    capsys.readouterr()
    assert main(["bench", str(cfg), "--out", str(out)]) == 0
    assert "already done" not in capsys.readouterr().err
    assert isinstance(read_json(where / "result.json"), dict)
    marker = json.loads((where / "run.json").read_text())
    marker["config_sha256"] = "0" * 64                                   # a result of another config
    write_json_atomic(where / "run.json", marker)
    capsys.readouterr()
    assert main(["bench", str(cfg), "--out", str(out)]) == 0
    assert "already done" not in capsys.readouterr().err


def test_run_dir_names_are_unique_per_config(tmp_path):
    a = bench_mod.run_dir(tmp_path, "a/tiny.toml", 0, "1" * 64)
    b = bench_mod.run_dir(tmp_path, "b/tiny.toml", 0, "2" * 64)
    c = bench_mod.run_dir(tmp_path, "bench_tiny.toml", 0, "3" * 64)
    d = bench_mod.run_dir(tmp_path, "bench/tiny.toml", 0, "4" * 64)
    assert len({a, b, c, d}) == 4


def test_config_digest_covers_the_text(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "t.toml").write_text("x = 1\n")
    (tmp_path / "b" / "t.toml").write_text("x = 2\n")
    assert bench_mod.config_digest(None, str(tmp_path / "a" / "t.toml")) != \
        bench_mod.config_digest(None, str(tmp_path / "b" / "t.toml"))


class _StubRegistry:
    """A problem library with no 'paper:' prefix at all."""

    def problem_library(self):
        return [("lab:heat", "[H] Heat"), ("lab:wave", "[W] Wave")]

    def problem_sets(self):
        return []

    def default_problem_set(self):
        return None

    def load_problem(self, spec):
        if spec in ("lab:heat", "lab:h"):
            return type("P", (), {"source": "lab:heat", "name": "heat"})()
        raise ConfigError(f"no config file or known problem called {spec!r}")


def test_names_resolve_through_the_problem_hooks():
    reg = _StubRegistry()
    assert bench_mod.resolve_names(reg, ["heat"], False) == ["lab:heat"]
    assert bench_mod.resolve_names(reg, ["lab:h"], False) == ["lab:heat"]
    with pytest.raises(ConfigError):
        bench_mod.resolve_names(reg, ["burgers"], False)


def test_paper_names_still_resolve(registry):
    assert bench_mod.resolve_names(registry, ["sine_poisson_1d", "05"], False) == ["paper:sine_poisson_1d"] * 2


# ------------------------------------------------------- item 1: bench children
@pytest.mark.slow
def test_bench_child_does_not_import_from_the_working_directory(tmp_path, samples, monkeypatch):
    cfg = tiny(tmp_path / "tiny.toml", samples)
    work = tmp_path / "work"
    work.mkdir()
    pwned = tmp_path / "PWNED"
    for name in ("sympy", "numpy", "desyr_light_teachers", "desyr_operon"):
        (work / f"{name}.py").write_text(f"open({str(pwned)!r}, 'a').write({name!r})\n")
    monkeypatch.chdir(work)
    out = tmp_path / "out"
    assert main(["bench", str(cfg), "--out", str(out), "--quiet"]) == 0
    assert not pwned.exists(), pwned.read_text()
    assert "result" in runs_of(out)[str(cfg)]


def test_child_command_is_isolated_from_cwd():
    cmd = children_mod.child_command("x.toml", 0, Path("w"), Path("o"))
    assert cmd[0] == sys.executable and ("-P" in cmd[1:3] or cmd[1] == "-c")


def test_child_env_drops_empty_pythonpath_entries(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["", "/opt/x", ".", "/opt/y"]))
    assert children_mod.child_env()["PYTHONPATH"] == os.pathsep.join(["/opt/x", "/opt/y"])


# ----------------------------------------------------- item 4: atomic and lock
def test_atomic_writes_leave_no_temporaries(tmp_path):
    target = tmp_path / "r.json"
    write_json_atomic(target, {"a": 1})
    write_text_atomic(tmp_path / "r.md", "hello\n")
    with pytest.raises(TypeError):
        write_json_atomic(target, {"a": object()})
    assert read_json(target) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.md"]
    target.write_text('{"a": ')
    assert read_json(target) is None and read_json(tmp_path / "missing.json") is None


def test_run_lock_is_exclusive(tmp_path):
    with run_lock(tmp_path / "out"):
        with pytest.raises(ConfigError, match="another desyr run is using") as info:
            with run_lock(tmp_path / "out"):
                pass
        assert "\n" not in str(info.value)
        code = ("import sys; from desyr.runtime.atomic import run_lock\n"
                f"with run_lock({str(tmp_path / 'out')!r}): pass\n")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0 and "another desyr run is using" in proc.stderr
    with run_lock(tmp_path / "out"):          # released
        pass


def test_two_benches_cannot_share_an_out_dir(tmp_path, capsys):
    out = tmp_path / "out"
    with run_lock(out):
        assert main(["bench", "paper:sine_poisson_1d", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "another desyr run is using" in err[0]


def test_write_failure_is_a_failed_run_and_the_bench_goes_on(tmp_path, monkeypatch, capsys):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text("x = 1\n")
    b.write_text("x = 2\n")
    calls = []

    def failing(path, obj, **kw):
        if Path(path).name == bench_mod.MARKER:
            raise OSError(28, "No space left on device")
        return write_json_atomic(path, obj, **kw)

    monkeypatch.setattr(bench_mod, "write_json_atomic", failing)
    monkeypatch.setattr(bench_mod, "run_child", lambda cmd, timeout: calls.append(cmd) or (True, []))
    # in process: the monkeypatched writer must be the one that runs
    assert main(["bench", str(a), str(b), "--out", str(tmp_path / "out"), "--quiet", "--executor", "serial"]) == 0
    runs = runs_of(tmp_path / "out")
    assert not calls
    assert all("No space left" in " ".join(runs[str(p)]["error"]) for p in (a, b))


# ------------------------------------------------------------ item 5: orphans
DRIVER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from desyr.bench import suite as bench
    from desyr.runtime.progress import Progress
    from desyr.extension.registry import load_registry

    pidfile, cfg, out = sys.argv[1:4]
    bench.child_command = lambda *a: [sys.executable, "-c",
        f"import os, time; open({pidfile!r}, 'w').write(str(os.getpid())); time.sleep(120)"]
    bench.bench(load_registry(), [cfg], False, 1, out, 600, Progress(verbose=False), "test")
""")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _start_driver(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("x = 1\n")
    pidfile = tmp_path / "child.pid"
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(pidfile), str(cfg), str(tmp_path / "out")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not (pidfile.is_file() and pidfile.read_text().strip()):
        assert driver.poll() is None, driver.stderr.read().decode()
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.05)
    return driver, int(pidfile.read_text())


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_child_dies_with_the_bench(tmp_path, sig):
    driver, child = _start_driver(tmp_path)
    try:
        assert _alive(child)
        driver.send_signal(sig)
        driver.wait(timeout=30)
        assert _gone_within(child, 5), f"child {child} survived {sig!r} of the bench"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)
        if driver.poll() is None:
            driver.kill()
