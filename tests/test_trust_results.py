"""Stored results are untrusted data (docs/security.md): a ``result.json`` whose names are code, whose
values have the wrong types or that nests 100000 levels deep gives one error line; names never
reach generated code, and callables are built from parsed sympy, never from exported text."""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp
from result_files import fixture_result, hostile_name, rename_field, write_result
from test_fuzz import assert_contract, cli

from desyr.errors import ConfigError
from desyr.exact import FORMATS, export, to_callable
from desyr.model.result import load_result
from desyr.runtime.atomic import read_json

x = sp.Symbol("x", real=True)


def one_line_error(rc: int, out: str, err: str, what: object) -> str:
    assert rc == 2, (what, rc, out, err)
    assert_contract(rc, out, err, what)
    return err.strip()


# ------------------------------------------------------------ names that are code
@pytest.fixture
def hostile(tmp_path):
    """A result folder whose field is called "u\\nimport os; os.system('touch MARKER')\\n#", and MARKER."""
    marker = tmp_path / "MARKER"
    return write_result(tmp_path / "run", rename_field(fixture_result(), hostile_name(marker))), marker


def test_load_result_refuses_a_field_name_that_is_code(hostile):
    folder, marker = hostile
    with pytest.raises(ConfigError, match="invalid field name") as info:
        load_result(folder)
    assert "\n" not in str(info.value)
    assert not marker.exists()


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_refuses_a_field_name_that_is_code(hostile, fmt):
    folder, marker = hostile
    rc, out, err = cli("export", str(folder), "--to", fmt)
    assert "invalid field name" in one_line_error(rc, out, err, fmt)
    assert out == "" and not marker.exists()


def test_exact_refuses_a_field_name_that_is_code(hostile):
    folder, marker = hostile
    before = (folder / "result.json").read_bytes()
    rc, out, err = cli("exact", str(folder), "--quiet")
    assert "invalid field name" in one_line_error(rc, out, err, "exact")
    assert (folder / "result.json").read_bytes() == before and not marker.exists()


@pytest.mark.parametrize("where", ["variables", "fields"])
@pytest.mark.parametrize("name", ["x y", "import", "numpy", "sin", "x_1", "\u0445", "a" * 33, "1x", "", 7])
def test_names_follow_the_config_rules(tmp_path, where, name):
    data = fixture_result()
    data["problem"][where] = [name]
    with pytest.raises(ConfigError, match=r"invalid|reserved|clashes|ASCII|must be a str"):
        load_result(write_result(tmp_path, data))


def test_every_field_keyed_mapping_uses_the_problem_fields(tmp_path):
    for mutate in (lambda d: d["expression"].update(v="x"),
                   lambda d: d["exact_form"]["latex"].update({"v\nw": "x"}),
                   lambda d: d["candidates"][0]["expression"].update({"os.system('x')": "x"}),
                   lambda d: d["search"]["runs"][0].update(field="v")):
        data = fixture_result()
        mutate(data)
        with pytest.raises(ConfigError, match="which is not one of the problem's fields"):
            load_result(write_result(tmp_path, data))


def test_exporters_refuse_names_that_are_not_identifiers(tmp_path):
    """Defence in depth: export() and to_callable() check names themselves, whoever calls them."""
    marker = tmp_path / "MARKER"
    for fmt in FORMATS:
        with pytest.raises(ValueError, match="field name"):
            export({hostile_name(marker): sp.sin(x)}, ["x"], fmt)
        with pytest.raises(ValueError, match="variable name"):
            export({"u": sp.Integer(1)}, [f"x\nimport os; os.system('touch {marker}')"], fmt)
        for bad in ("desyr_X", "DESYR_u", "torch", "a" * 58):
            with pytest.raises(ValueError):
                export({"u": sp.Symbol(bad, real=True)}, [bad], fmt)
    for backend in ("numpy", "torch", "jax"):
        with pytest.raises(ValueError, match="field name"):
            to_callable({hostile_name(marker): sp.sin(x)}, ["x"], backend)
    assert not marker.exists()


def test_exported_numpy_code_keeps_variables_named_like_its_locals():
    """A variable called zero or X once overwrote the generated code's own locals: wrong values."""
    zero, X = sp.symbols("zero X", real=True)
    namespace: dict = {}
    exec(export({"u": zero + 10 * X}, ["zero", "X"], "numpy"), namespace)   # noqa: S102 - our own output
    points = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert np.array_equal(namespace["solution"](points)[:, 0], [21.0, 43.0])
    assert np.array_equal(to_callable({"u": zero + 10 * X}, ["zero", "X"])(points)[:, 0], [21.0, 43.0])


def test_result_to_callable_evaluates_the_parsed_expression(tmp_path):
    f = load_result(write_result(tmp_path, fixture_result())).to_callable()
    out = f(np.array([0.5, 0.25]))
    assert out.shape == (2, 1)
    assert np.allclose(out[:, 0], np.sin(np.pi * np.array([0.5, 0.25])), rtol=1e-15)


# ------------------------------------------------------------ shape and size
def deep_texts() -> list[str]:
    too_deep_for_json = "[" * 100_000 + "]" * 100_000
    data = fixture_result()
    data["teacher"] = {"plugin": "x", "facts": {"history": "DEEP"}}
    parses_but_too_deep = json.dumps(data).replace('"DEEP"', "[" * 70 + "]" * 70)     # json reads it
    return [too_deep_for_json, '{"schema": "desyr.result/2", "problem": ' + too_deep_for_json + "}",
            parses_but_too_deep]


@pytest.mark.parametrize("text", deep_texts(), ids=["array", "in_problem", "70_levels"])
def test_deeply_nested_result_is_one_error_line(tmp_path, text):
    folder = write_result(tmp_path / "run", text)
    with pytest.raises(ConfigError, match="nested more than 64 levels deep"):
        load_result(folder)
    for argv in (["exact", str(folder), "--quiet"], ["export", str(folder), "--to", "numpy"]):
        rc, out, err = cli(*argv)
        assert "nested more than" in one_line_error(rc, out, err, argv)
    assert read_json(folder / "result.json") is None


@pytest.mark.parametrize("path,value", [
    (("timings", "total"), "slow"), (("seed",), -1), (("seed",), 2**40), (("seed",), "0"), (("seed",), True),
    (("problem", "source"), 3), (("expression",), ["sin(x)"]), (("expression", "u"), 1.5),
    (("candidates", 0, "nfev"), "7"), (("errors",), [1]), (("errors", "rel_l2"), {}), (("exact_form",), 1),
    (("selection", "gates"), {}), (("provenance",), None), (("problem",), "u"), (("schema",), ["x"] * 10**4),
    (("seed",), "HUGE"), (("candidates", 0, "objective"), "BIG"),
])
def test_wrong_types_are_one_error_line(tmp_path, path, value):
    data = fixture_result()
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    # more digits than Python reads; an integer no float can hold
    text = json.dumps(data).replace('"HUGE"', "1" * 5000).replace('"BIG"', "9" * 400)
    folder = write_result(tmp_path / "run", text)
    with pytest.raises(ConfigError) as info:
        load_result(folder)
    assert len(str(info.value)) < 1000
    for argv in (["exact", str(folder), "--quiet"], ["export", str(folder), "--to", "numpy"]):
        one_line_error(*cli(*argv), argv)


@pytest.mark.slow
def test_the_fixture_still_reads_and_exports(tmp_path):
    folder = write_result(tmp_path / "run", fixture_result())
    rc, out, err = cli("export", str(folder), "--to", "numpy")
    assert rc == 0 and "def solution(X):" in out, err
    rc, out, err = cli("exact", str(folder), "--quiet")
    assert rc == 0 and "u = sin(pi*x)" in out, err
    assert load_result(folder).exact_form.expressions == {"u": "sin(pi*x)"}
