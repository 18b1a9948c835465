"""The bench's jobserver: tokens held and borrowed, a dead holder's tokens back, a child's map on borrowed
tokens only, the children's executor, and the same bench with and without it."""
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from budgets import full_only
from scaling_helpers import ROOT, child_env, comparable, sine_config

from desyr.bench import suite as bench_mod
from desyr.extension.registry import load_registry
from desyr.extension.roles import Executor
from desyr.runtime.children import child_env as bench_child_env
from desyr.runtime.execution import make_executor
from desyr.runtime.jobserver import ENV, Tokens, borrowed_tokens, holding, jobserver_path
from desyr.runtime.progress import Progress

pytestmark = pytest.mark.skipif(sys.platform.startswith("win"), reason="no fcntl: no jobserver")


def free(path):
    with borrowed_tokens(99, path) as n:
        return n


def test_tokens_are_borrowed_once_and_come_back():
    with Tokens(3) as tokens:
        assert free(tokens.path) == 3
        with holding(tokens.path):
            with borrowed_tokens(5, tokens.path) as n:
                assert n == 2                        # the held token is not borrowed, not even here
                assert free(tokens.path) == 0        # nor a borrowed one
            with borrowed_tokens(1, tokens.path) as n:
                assert n == 1 and free(tokens.path) == 1
        assert free(tokens.path) == 3
    assert not os.path.exists(tokens.path)
    assert free(tokens.path) == 0                    # a jobserver that is gone lends nothing, quietly


def test_without_a_jobserver_nothing_is_borrowed(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert jobserver_path() is None
    with borrowed_tokens(4) as n:
        assert n == 0


HOLDER = textwrap.dedent("""
    import sys, time
    from desyr.runtime.jobserver import borrowed_tokens
    with borrowed_tokens(9, sys.argv[1]) as n:
        print(n, flush=True)
        time.sleep(60)
""")


def test_a_dead_processs_tokens_come_back():
    with Tokens(2) as tokens:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen([sys.executable, "-c", HOLDER, tokens.path], stdout=subprocess.PIPE, text=True,
                                env=env)
        try:
            assert proc.stdout.readline().strip() == "2"
            assert free(tokens.path) == 0
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        assert free(tokens.path) == 2                # the kernel dropped the dead holder's locks


def pid_and_free(path):
    return {"pid": os.getpid(), "free": free(path)}


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def test_a_map_that_borrows_nothing_runs_in_process(registry, monkeypatch):
    executor = make_executor(registry, name="processes", workers=4)
    assert type(executor).jobserver and executor.workers == 4
    with Tokens(2) as tokens:
        monkeypatch.setenv(ENV, tokens.path)
        assert executor.workers == 1                 # only the job's own token is sure
        with holding(tokens.path), holding(tokens.path):  # this job's and another job's
            with executor:
                answers = executor.map(pid_and_free, [tokens.path] * 3)
        assert answers == [{"pid": os.getpid(), "free": 0}] * 3
        assert free(tokens.path) == 2


@pytest.mark.slow
def test_a_map_runs_beside_its_job_on_a_borrowed_token_and_gives_it_back(registry, monkeypatch):
    executor = make_executor(registry, name="processes", workers=4)
    with Tokens(3) as tokens:
        monkeypatch.setenv(ENV, tokens.path)
        with holding(tokens.path), executor:         # the job's token; two are free
            answers = executor.map(pid_and_free, [tokens.path] * 4)
            assert free(tokens.path) == 2            # given back as the map ended
        assert all(a["pid"] != os.getpid() and a["free"] == 0 for a in answers)
        assert len({a["pid"] for a in answers}) <= 3


# ----------------------------------------------------------- the bench's side
class Remote(Executor):
    name = "remote-ish"

    @property
    def workers(self):
        return 4

    def map(self, fn, items):
        return [fn(i) for i in items]


def test_the_children_get_the_executor_that_honours_a_jobserver(registry):
    processes = make_executor(registry, name="processes", workers=2)
    serial = registry.in_process_executor()
    assert bench_mod._children_executor(processes, "processes", 3, registry) == (("--executor", "processes"), 2)
    assert bench_mod._children_executor(processes, "processes", 1, registry) == ((), 0)
    one = make_executor(registry, name="processes", workers=1)
    assert bench_mod._children_executor(one, "processes", 3, registry) == ((), 0)
    assert bench_mod._children_executor(make_executor(registry, name=serial), serial, 3, registry) \
        == (("--executor", serial), 0)
    assert bench_mod._children_executor(Remote(), "remote-ish", 3, registry) == (("--executor", serial), 0)


ENV_PROBE = "import os, sys; open(sys.argv[1], 'w').write(os.environ.get({env!r}, '-'))"


def test_the_jobserver_is_in_a_bench_childs_environment_only(tmp_path, monkeypatch):
    seen = tmp_path / "seen"
    monkeypatch.setattr(bench_mod, "child_command", lambda *a: [sys.executable, "-c",
                                                                ENV_PROBE.format(env=ENV), str(seen)])
    monkeypatch.setattr(bench_mod, "read_json", lambda path: {})
    monkeypatch.setenv(ENV, "/somewhere/stale")      # handed to this process: not passed on unasked
    assert ENV not in bench_child_env()
    bench_mod.run_one("a.toml", 0, tmp_path / "out", 30, Progress(), digest="0" * 64)
    assert seen.read_text() == "-"
    monkeypatch.delenv(ENV)
    with Tokens(1) as tokens:
        bench_mod.run_one("a.toml", 1, tmp_path / "out", 30, Progress(), digest="0" * 64, jobs=tokens.path)
        assert seen.read_text() == tokens.path and free(tokens.path) == 1
    assert ENV not in os.environ


@pytest.mark.slow
@full_only("the map and child tests above hold the jobserver's tokens and executor")
def test_a_bench_gives_the_same_results_with_and_without_the_jobserver(tmp_path):
    configs = [str(sine_config(tmp_path, runs=k, name=f"sine{k}.toml", generations=20)) for k in (2, 3)]
    rows, executors = {}, {}
    for name in ("serial", "processes"):
        out = tmp_path / name
        # a bench of its own: a fork server an earlier test started would hand its workers an environment
        # without the tests' helpers on PYTHONPATH
        subprocess.run([sys.executable, "-m", "desyr", "bench", *configs, "--out", str(out), "--quiet",
                        "--executor", name, "--workers", "2"], env=child_env(), check=True, timeout=600)
        data = json.loads((out / "bench.json").read_text())
        assert all("result" in r for r in data["runs"]), data["runs"]
        rows[name] = {(r["spec"], r["seed"]): comparable(r["result"]) for r in data["runs"]}
        executors[name] = {r["result"]["provenance"]["execution"]["executor"] for r in data["runs"]}
    assert executors == {"serial": {"serial"}, "processes": {"processes"}}   # the children shared the tokens
    assert rows["serial"] == rows["processes"] and len(rows["processes"]) == 2
