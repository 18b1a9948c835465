# ruff: noqa: F811  (desyr_cli is a fixture imported by name)
"""What an outside plugin author found missing (issue 45, item 2): a component's print lands among the
result's lines on standard output; the reports do not say where a component came from."""
from __future__ import annotations

import json
import sys

import pytest
import sympy as sp
from helpers import sine_model

from desyr.plugin import Gate, GateDecision, ParetoMember, Searcher, SearchResult, Teacher, hookimpl, teacher_fit_mse
from desyr.testing import SINE_POISSON_1D, desyr_cli  # noqa: F401  (the fixture)


class ChattyTeacher(Teacher):
    name = "chatty_teacher"

    def prepare(self, problem, context):
        print("chatty teacher: training")
        return sine_model()


class ChattySearcher(Searcher):
    name = "chatty_searcher"
    supported_binary = frozenset({"+", "-", "*", "/"})
    supported_unary = frozenset({"sin"})

    def search(self, task):
        print("chatty searcher: searching")
        x = sp.Symbol("x")
        return SearchResult([ParetoMember(sp.sin(3.1 * x), 4, teacher_fit_mse(sp.sin(3.1 * x), [x], task.X, task.y))])


class ChattyGate(Gate):
    name = "chatty_gate"

    def apply(self, pool, context):
        print("chatty gate: deciding")
        return GateDecision(list(pool))


def plugin():
    module = type(sys)("chatty_plugin")
    module.desyr_register_teachers = hookimpl(lambda: [ChattyTeacher])
    module.desyr_register_searchers = hookimpl(lambda: [ChattySearcher])
    module.desyr_register_gates = hookimpl(lambda: [ChattyGate])
    return module


CONFIG = SINE_POISSON_1D + """
[teacher]
plugin = "chatty_teacher"
[search]
plugin = "chatty_searcher"
unary = ["sin"]
runs = 1
[selection]
gates = ["convergence", "chatty_gate", "complexity"]
"""


@pytest.mark.slow
def test_stdout_holds_the_result_alone_and_the_reports_say_where_each_component_came_from(desyr_cli):
    desyr_cli.register(plugin())
    result = desyr_cli.run("run", desyr_cli.write("p.toml", CONFIG), "--out", "out", "--no-plots", "--quiet",
                           "--executor", "serial")
    assert result.ret == 0, result.stderr
    # what the components printed went to stderr; stdout holds the result's lines alone
    for line in ("chatty teacher: training", "chatty searcher: searching", "chatty gate: deciding"):
        assert line in result.stderr and line not in result.stdout
    lines = result.stdout.splitlines()
    assert lines[:2] == ["u = sin(3.141592653589793*x)", "exact form: u = sin(pi*x)"]
    assert lines[2].startswith("converged=True complexity=4 ") and len(lines) == 5
    assert lines[3:] == ["verdict: Proved (every residual reduces to 0 (3 checked))",
                         "wrote out/result.json, out/report.md and out/report.html"]
    # each component's distribution and version, or that it has none
    origins = json.loads((desyr_cli.path / "out" / "result.json").read_text())["provenance"]["origins"]
    by_name = {(o["role"], o["name"]): o for o in origins}
    assert by_name[("gate", "chatty_gate")] == {"role": "gate", "name": "chatty_gate", "origin": "(registered in process)",
                                                "distribution": None, "version": None}
    scipy = by_name[("refiner", "scipy")]
    assert scipy["distribution"] == "desyr" and scipy["origin"] == f"desyr {scipy['version']}"
    roles = ["teacher", "searcher", "refiner", "gate", "executor"]
    assert [o["role"] for o in origins] == sorted([o["role"] for o in origins], key=roles.index)
    for report in ("report.md", "report.html"):
        text = (desyr_cli.path / "out" / report).read_text()
        assert "gate chatty_gate (registered in process, no distribution)" in text
        assert f"refiner scipy (desyr {scipy['version']})" in text and "executor serial (desyr " in text
