"""A real LocalCluster(n_workers=2, threads_per_worker=1, processes=True): a 3-configuration bench and a
K = 4 run give the same results as serial."""
import json
import os

import pytest
from budgets import full_only
from scaling_helpers import child_env, comparable, sine_config

from desyr.api import Execution, run
from desyr.cli.main import main
from desyr.config.loading import load_problem
from desyr.extension.registry import load_registry

pytestmark = pytest.mark.slow

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler():
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = child_env()["PYTHONPATH"]          # the workers import the tests' helpers
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def test_run_on_dask_equals_serial(tmp_path, scheduler):
    registry = load_registry()
    problem = load_problem(str(sine_config(tmp_path, runs=4)), registry)
    run(problem, registry=registry, out=tmp_path / "serial", execution=Execution("serial"))
    result = run(problem, registry=registry, out=tmp_path / "dask",
                 execution=Execution("dask", options={"scheduler": scheduler}))
    assert result.provenance.execution.executor == "dask" and result.provenance.execution.workers == 2
    assert comparable(tmp_path / "dask" / "result.json") == comparable(tmp_path / "serial" / "result.json")


@full_only("a run on dask equals the serial run above; the bench on dask is bench/scaling.py's")
def test_bench_on_dask_equals_serial(tmp_path, scheduler, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", child_env()["PYTHONPATH"])    # bench children find the helpers too
    # two specs, one with two searches: a third took 10 s more and added nothing the two do not show
    configs = [str(sine_config(tmp_path, runs=k, name=f"sine{k}.toml", generations=20)) for k in (1, 2)]
    rows = {}
    for name, extra in (("serial", []), ("dask", ["--scheduler", scheduler])):
        out = tmp_path / name
        assert main(["bench", *configs, "--out", str(out), "--quiet", "--executor", name, *extra]) == 0
        data = json.loads((out / "bench.json").read_text())
        assert all("result" in r for r in data["runs"]), data["runs"]
        rows[name] = {(r["spec"], r["seed"]): comparable(r["result"]) for r in data["runs"]}
    assert rows["serial"] == rows["dask"] and len(rows["dask"]) == 2
