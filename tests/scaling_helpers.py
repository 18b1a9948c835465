"""Shared pieces of the executor, store and dask tests: tiny configs and result comparison."""
import json
import os
from pathlib import Path

from helpers import SINE_RUN

TESTS = Path(__file__).parent
ROOT = TESTS.parent


def sine_config(tmp_path, runs=4, name="sine.toml", generations=30, waves=True):
    """``waves=False``: every seed searched at once (a test that counts the stored searches)."""
    text = SINE_RUN.replace("runs = 2", f"runs = {runs}" + ("" if waves else "\nseed_waves = false"))
    text = text.replace("generations = 30", f"generations = {generations}")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def child_env():
    """Children (bench runs, workers) import this worktree's desyr and the tests' helpers."""
    env = dict(os.environ)
    parts = [str(ROOT), str(ROOT / "plugins"), str(TESTS)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    env["DESYR_ALLOW_CALLABLE"] = "1"
    return env


def comparable(result):
    """A result.json minus what may differ between executors and resumes: timings, execution, the
    executor's origin, and the verifier's numbers on its fresh points."""
    def strip(o):
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items()
                    if k not in ("timings", "execution", "time") and "second" not in k}
        if isinstance(o, list):
            return [strip(v) for v in o if not (isinstance(v, dict) and v.get("role") == "executor")]
        return o
    if isinstance(result, (str, Path)):
        result = json.loads(Path(result).read_text(encoding="utf-8"))
    kept = strip(result)
    # the verifier draws its points from fresh entropy: its numbers differ from run to run, its verdict not
    for key in ("residuals", "errors"):
        kept.pop(key, None)
    if isinstance(kept.get("verification"), dict):
        kept["verification"].pop("answer", None)
    return kept
