"""Imports made ahead while a run waits on a forked child (desyr.runtime.ahead, issue 37 item 8): a
run that stage 0 settles imports its refiner's heavy modules while the solver child works, and no
child is ever forked while that import is half done."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from desyr.extension.registry import load_registry
from desyr.extension.roles import Refiner

LOGISTIC = Path(__file__).parent / "fixtures" / "logistic.toml"
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs fork")


def _run(code: str, tmp_path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_forking_block_imports_ahead_and_a_later_fork_waits_for_the_import(tmp_path):
    # the module takes 0.4 s to import; the second child is forked while the thread is in the middle
    (tmp_path / "slowmod.py").write_text("import time\ntime.sleep(0.4)\nDONE = True\n")
    (tmp_path / "idle.py").write_text("DONE = True\n")
    code = f"""
import json, multiprocessing as mp, sys, time
sys.path.insert(0, {str(tmp_path)!r})
from desyr.runtime.ahead import imports_ahead

def look(q):
    q.put(getattr(sys.modules.get("slowmod"), "DONE", "half or not imported"))

ctx = mp.get_context("fork")
with imports_ahead(["idle"]):        # no fork in the block: nothing is imported
    pass
for odd in (5, "idle", None):        # a refiner's odd declaration is ignored
    with imports_ahead(odd):
        ctx.Process(target=int).start()
with imports_ahead([42, "slowmod"]):
    q = ctx.SimpleQueue()
    first = ctx.Process(target=time.sleep, args=(1.0,))
    first.start()                    # the thread starts importing shortly after this fork
    time.sleep(0.25)
    second = ctx.Process(target=look, args=(q,))
    second.start()                   # forked only once the import is done
    seen = q.get()
    second.join()
    first.kill()
print(json.dumps({{"seen": seen, "idle": "idle" in sys.modules, "slowmod": "slowmod" in sys.modules}}))
"""
    assert _run(code, tmp_path) == {"seen": True, "idle": False, "slowmod": True}


def test_a_block_whose_child_answers_at_once_does_not_wait_to_import(tmp_path):
    (tmp_path / "slowmod.py").write_text("DONE = True\n")
    code = f"""
import json, multiprocessing as mp, sys, time
sys.path.insert(0, {str(tmp_path)!r})
import desyr.runtime.ahead as ahead

ahead.SETTLE = 30.0                  # the thread would still be waiting when the block ends
start = time.perf_counter()
with ahead.imports_ahead(["slowmod"]):
    child = mp.get_context("fork").Process(target=int)
    child.start()
    child.join()
print(json.dumps({{"quick": time.perf_counter() - start < 10, "slowmod": "slowmod" in sys.modules}}))
"""
    assert _run(code, tmp_path) == {"quick": True, "slowmod": False}


def test_the_default_refiner_names_the_module_its_first_refit_imports():
    refiner = load_registry().create("refiner", load_registry().default("refiner"), {})
    assert isinstance(refiner, Refiner) and "scipy.optimize" in refiner.imports_ahead
    assert Refiner.imports_ahead == ()


@pytest.mark.slow
def test_a_run_that_stage_0_settles_imports_the_refiners_modules_while_the_solver_child_works(tmp_path):
    code = f"""
import json, threading
import desyr.runtime.ahead as ahead
from desyr.api import run
from desyr.config.loading import load_problem

seen = []
real = ahead.importlib.import_module      # importlib's own: every caller's imports pass here


def watched(name, package=None):
    if threading.current_thread().name == "desyr-imports-ahead":
        seen.append(name)
    return real(name, package)


ahead.importlib.import_module = watched
result = run(load_problem({str(LOGISTIC)!r}), plots=False)
print(json.dumps({{"verdict": result.verdict, "first": seen[:1]}}))      # then scipy's own imports
"""
    assert _run(code, tmp_path) == {"verdict": "proved", "first": ["scipy.optimize"]}
