"""Issue 45, acceptance 1: with a component that sleeps 40 s, whichever its role, ``desyr run --budget B``
ends within B + 10 s, names the component in one line, and returns its best result with the verdict.

Each sleeping component is its own plugin module, loaded with ``desyr -p`` as an outside author's would
be; the other roles are quick (a samples teacher, a searcher with a fixed front), so every run reaches
the sleeping one. What the sleeping components print never lands among the result's lines on standard
output."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import SINE_1D

BUDGET = 10.0
SLEEP = 40

PLUGINS = {
    "sleepy_teacher": '''
import os
import time
from desyr.plugin import Teacher, hookimpl

class SleepyTeacher(Teacher):
    name = "sleepy_teacher"

    def prepare(self, problem, context):
        print("sleepy_teacher is sleeping")
        os.write(1, b"sleepy_teacher wrote to descriptor 1\\n")     # as a C library would
        time.sleep({sleep})

@hookimpl
def desyr_register_teachers():
    return [SleepyTeacher]
''',
    "sleepy_searcher": '''
import time
from desyr.plugin import Searcher, hookimpl

class SleepySearcher(Searcher):
    name = "sleepy_searcher"
    supported_binary = frozenset({{"+", "-", "*", "/"}})
    supported_unary = frozenset({{"sin"}})

    def search(self, task):
        print("sleepy_searcher is sleeping")
        time.sleep({sleep})
        return []

@hookimpl
def desyr_register_searchers():
    return [SleepySearcher]
''',
    "sleepy_refiner": '''
import time
from desyr.plugin import Refiner, hookimpl

class SleepyRefiner(Refiner):
    name = "sleepy_refiner"

    def refine(self, candidate, problem, points):
        print("sleepy_refiner is sleeping")
        time.sleep({sleep})

@hookimpl
def desyr_register_refiners():
    return [SleepyRefiner]
''',
    "sleepy_gate": '''
import time
from desyr.plugin import Gate, GateDecision, hookimpl

class SleepyGate(Gate):
    name = "sleepy_gate"

    def apply(self, pool, context):
        print("sleepy_gate is sleeping")
        time.sleep({sleep})
        return GateDecision(list(pool))

@hookimpl
def desyr_register_gates():
    return [SleepyGate]
''',
    "quick_searcher": '''
import sympy as sp
from desyr.plugin import ParetoMember, SearchResult, Searcher, hookimpl, teacher_fit_mse

class QuickSearcher(Searcher):
    name = "quick_searcher"
    supported_binary = frozenset({{"+", "-", "*", "/"}})
    supported_unary = frozenset({{"sin"}})

    def search(self, task):
        x = sp.Symbol(task.variables[0])
        members = [sp.sin(3.1 * x)]
        return SearchResult([ParetoMember(m, 4, teacher_fit_mse(m, [x], task.X, task.y)) for m in members])

@hookimpl
def desyr_register_searchers():
    return [QuickSearcher]
''',
}

SAMPLES = Path(__file__).parent / "fixtures" / "sine_samples.csv"


def config(role: str) -> str:
    """The testing problem with quick components, the sleeping one in ``role``'s place."""
    teacher = "sleepy_teacher" if role == "teacher" else "samples"
    options = "" if role == "teacher" else f'[teacher.options]\npath = "{SAMPLES.as_posix()}"\n'
    searcher = "sleepy_searcher" if role == "searcher" else "quick_searcher"
    # the sleeping searcher's two searches go to worker processes; the quick one's single search, and its
    # single candidate's refit, run here (a worker's start would cost the budget seconds on a busy machine)
    runs = 2 if role == "searcher" else 1
    text = SINE_1D + (f'[teacher]\nplugin = "{teacher}"\n{options}'
                      f'[search]\nplugin = "{searcher}"\nunary = ["sin"]\nruns = {runs}\n')
    if role == "refiner":
        text += '[refine]\nplugin = "sleepy_refiner"\n'
    if role == "gate":
        text += '[selection]\ngates = ["convergence", "sleepy_gate", "physics_equivalence", "complexity"]\n'
    return text


@pytest.mark.slow
@pytest.mark.parametrize("role", ["teacher", "searcher", "refiner", "gate"])
def test_a_sleeping_component_of_any_role_cannot_hold_the_run_past_its_budget(tmp_path, role):
    for module, source in PLUGINS.items():
        (tmp_path / f"{module}.py").write_text(source.format(sleep=SLEEP), encoding="utf-8")
    (tmp_path / f"{role}.toml").write_text(config(role), encoding="utf-8")
    name = f"sleepy_{role}"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "desyr", "-p", name, "-p", "quick_searcher", "run", f"{role}.toml",
                           "--budget", str(BUDGET), "--out", "out", "--cache-dir", "cache", "--no-plots"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=SLEEP + 60)
    seconds = time.perf_counter() - start
    out, err = done.stdout, done.stderr
    assert seconds < BUDGET + 10, (seconds, err)
    # one line names the component, its role, how long it ran and what the run did instead
    lines = [line for line in err.splitlines() if f"{role} '{name}' was stopped after" in line]
    assert len(lines) == 1 and lines[0].startswith("desyr: warning: ") and "share of the budget" in lines[0], err
    result = json.loads((tmp_path / "out" / "result.json").read_text())
    assert [(s["role"], s["name"]) for s in result["stopped"]] == [(role, name)]
    # the plugin's print never lands among the result's lines (a search stopped in a worker that had not
    # started it yet printed nothing; the other sleeping components run here)
    assert f"{name} is sleeping" not in out
    assert role == "searcher" or f"{name} is sleeping" in err
    assert role != "teacher" or ("wrote to descriptor 1" in err and "wrote to descriptor 1" not in out)
    assert out.splitlines()[-1] == "wrote out/result.json, out/report.md and out/report.html"
    if role == "gate":      # the best result so far, with the verifier's verdict
        assert done.returncode == 0 and result["verification"]["verdict"] == "proved", err
        assert "verdict: Proved" in out
    else:                   # nothing was left to select: a result file all the same, exit 1
        assert done.returncode == 1 and result["expression"] is None, err
        # and no further attempt would meet anything else
        assert result["escalation_stop"].startswith(f"{role} '{name}' was stopped")
    origins = {(o["role"], o["name"]): o for o in result["provenance"]["origins"]}
    assert origins[(role, name)]["distribution"] is None and origins[(role, name)]["origin"] == f"-p {name}"
