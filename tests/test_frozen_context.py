"""What components receive is frozen: a teacher or gate that assigns to its run context raises
``FrozenInstanceError``, and through ``desyr.api.run`` the run ends with one line naming it."""
from __future__ import annotations

import dataclasses
import sys

import pytest
import sympy as sp
from helpers import sine_model

from desyr.api import run
from desyr.extension.registry import load_registry
from desyr.plugin import (
    Gate,
    GateDecision,
    ParetoMember,
    PluginError,
    Searcher,
    SearchResult,
    Teacher,
    hookimpl,
)
from desyr.testing import make_context, make_problem


class PlainTeacher(Teacher):
    name = "ctx_plain_teacher"

    def prepare(self, problem, context):
        return sine_model()


class SeedWritingTeacher(Teacher):
    name = "ctx_seed_teacher"

    def prepare(self, problem, context):
        context.seed = 12345
        return sine_model()


class ValuesWritingGate(Gate):
    name = "ctx_values_gate"

    def apply(self, pool, context):
        context.teacher_values = None
        return GateDecision(list(pool))


class OneSineSearcher(Searcher):
    name = "ctx_one_sine"
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = frozenset({"sin"})

    def search(self, task):
        return SearchResult([ParetoMember(sp.sin(3.1 * sp.Symbol("x")), 4, 1e-6)])


def tiny_plugin():
    module = type(sys)("ctx_writers")
    module.desyr_register_teachers = hookimpl(lambda: [PlainTeacher, SeedWritingTeacher])
    module.desyr_register_searchers = hookimpl(lambda: [OneSineSearcher])
    module.desyr_register_gates = hookimpl(lambda: [ValuesWritingGate])
    return module


@pytest.fixture(scope="module")
def registry():
    return load_registry(extra_plugins=[tiny_plugin()])


def config(teacher: str, gates: str = "") -> str:
    sections = f'[teacher]\nplugin = "{teacher}"\n[search]\nplugin = "ctx_one_sine"\nunary = ["sin"]\nruns = 1\n'
    if gates:
        sections += f'[selection]\ngates = ["{gates}"]\n'
    return make_problem().config_text.replace("[points]", sections + "[points]")


def test_assigning_to_a_context_raises():
    ctx = make_context(make_problem())
    with pytest.raises(dataclasses.FrozenInstanceError):
        SeedWritingTeacher().prepare(ctx.problem, ctx)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ValuesWritingGate().apply([], ctx)


def test_the_tiny_plugin_runs_when_it_leaves_its_context_alone(registry):
    result = run(make_problem(config("ctx_plain_teacher")), registry=registry, plots=False)
    assert result.exact and result.verdict == "proved", (result.expression, result.verdict)


@pytest.mark.parametrize("teacher, gate, role, name", [
    ("ctx_seed_teacher", "", "teacher", "ctx_seed_teacher"),
    ("ctx_plain_teacher", "ctx_values_gate", "gate", "ctx_values_gate"),
])
def test_a_run_whose_component_writes_its_context_fails_with_one_line(registry, teacher, gate, role, name):
    with pytest.raises(PluginError, match="FrozenInstanceError") as info:
        run(make_problem(config(teacher, gate)), registry=registry, plots=False)
    message = str(info.value)
    assert "\n" not in message and f"{role} '{name}'" in message
