"""The typed settings of a run: read once, frozen, and never shared as mutable objects."""
import dataclasses

import pytest

from desyr.config.settings import SECTIONS, read_section
from desyr.extension.options import Option, validate
from desyr.extension.roles import Gate, GateDecision
from desyr.testing import SINE_POISSON_1D, make_problem


def _problem(extra: str = ""):
    return make_problem(SINE_POISSON_1D + extra)


def test_mutating_a_returned_default_leaves_the_declaration_alone():
    declared = list(SECTIONS["search"]["binary"].default)
    values = read_section(_problem(), "search")
    values["binary"].append("^")
    values["budget"]["iterations"] = 3
    assert SECTIONS["search"]["binary"].default == declared
    assert SECTIONS["search"]["budget"].default == {}
    assert read_section(_problem(), "search")["binary"] == declared


def test_mutating_a_returned_value_leaves_the_config_alone():
    problem = _problem('[search]\nunary = ["sin"]\n')
    read_section(problem, "search")["unary"].append("cos")
    assert problem.sections["search"]["unary"] == ("sin",)


class _Layered(Gate):
    name = "layered"
    options = {"layers": Option([32, 32], "hidden widths", kind=list, item=int),
               "extra": {"nested": [1]}}

    def apply(self, pool, context):
        return GateDecision(list(pool))


def test_two_components_from_one_default_share_no_list():
    first, second = _Layered(), _Layered()
    first.settings["layers"].append(64)
    first.settings["extra"]["nested"].append(2)
    assert second.settings["layers"] == [32, 32]
    assert second.settings["extra"] == {"nested": [1]}
    assert _Layered.options["layers"].default == [32, 32]
    assert _Layered.options["extra"] == {"nested": [1]}


def test_validate_copies_given_tables():
    given = {"options": {"a": [1]}}
    out = validate({"options": Option({}, "", kind=dict)}, given, "[t]")
    out["options"]["a"].append(2)
    assert given == {"options": {"a": [1]}}


def test_run_spec_is_frozen_and_escalation_derives_new_specs():
    from desyr.config.spec import read_spec
    from desyr.escalation import _changes
    from desyr.extension.registry import load_registry

    registry = load_registry()
    problem = _problem('[search]\nadd_unary = ["sin"]\n')
    raw = repr(problem.sections)
    spec = read_spec(problem, registry)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.search = spec.search   # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.search.options["x"] = 1   # type: ignore[index]
    derived = [c.spec for c in _changes(spec, registry, ("more_searches", "other_searcher", "enrich_library"), True)]
    assert derived and all(isinstance(s, type(spec)) for s in derived)
    assert any(s.search.unary and "exp" in s.search.unary for s in derived)
    assert spec.search.unary is None and spec.search.add_unary == ("sin",) and spec.search.plugins is None
    assert repr(problem.sections) == raw


def test_the_config_hash_names_an_escalated_spec_and_keeps_an_unchanged_ones():
    from dataclasses import replace

    from desyr.config.spec import read_spec
    from desyr.runtime.store import config_hash
    from desyr.testing import make_problem

    spec = read_spec(make_problem())
    assert config_hash(spec) == config_hash(read_spec(make_problem()))
    more = replace(spec, search=replace(spec.search, runs=spec.search.runs + 1))
    assert config_hash(more) != config_hash(spec)
    assert config_hash(replace(spec, execution=replace(spec.execution, workers=3))) == config_hash(spec)
