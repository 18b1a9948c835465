"""Fuzzing the third door untrusted data comes through: a stored ``result.json``.

A real result (tests/result_files.py) is mutated - wrong types, missing keys, hostile field and
variable names, deep nesting, huge numbers, odd expressions and sources - and read by
``load_result``, ``desyr exact`` and ``desyr export --to numpy``.  Invariant: a Result (or exit 0
with output), or one ``desyr: error:`` line (exit 2); never a traceback, and never code run: every
hostile name creates a marker file if it is ever executed.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from result_files import CONFIG, fixture_result, rename_field, write_result
from test_fuzz import FUZZ, assert_contract, cli
from toml_edit import delete_path, paths, set_path

from desyr.errors import DesyrError
from desyr.model.result import Result, load_result

RESULT_FUZZ = settings(FUZZ, max_examples=20, deadline=None)   # export and exact start the verifier: ~1 s each
DEEP = "@DEEP@"          # placeholders replaced in the JSON text: values json.dumps cannot write
HUGE_INT = "@HUGE_INT@"


_counter = iter(range(10**9))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz_results")


def marker(workdir: Path) -> Path:
    """A fresh path per example, so that a failure shrinks to the example that ran code."""
    return workdir / f"code_ran_{next(_counter)}"


def payloads(target: Path) -> list[str]:
    """Names that run code creating ``target`` if pasted into Python, C, Fortran or Julia source."""
    touch = f"import os; os.system('touch {target}')"
    return [f"u\n{touch}\n#", f"u\n{touch}\nx", f"u = 1; {touch}", f"__import__('os').system('touch {target}')",
            f"u(x)\n{touch}", f"u */ system(\"touch {target}\"); /*", f"u\u202e{touch}", "u\x00", "u" * 100,
            "sin", "numpy", "solution", "desyr_X", "X", "zero", "u_x", "x", "", " u", "\u0445"]


ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 2**31, 2**64, 1e308, -1e308, 5e-324, 1.5, "inf", "-inf", "nan", "", "x", "u",
    "sin(pi*x)", [], [1], ["u"], {}, {"u": "x"}, {"x": 1}, "a" * 3000, DEEP, HUGE_INT, float("inf"), float("nan"),
]
ODD_EXPRESSIONS = ["sin(3.141592653589793*x)", "1e200*x", "x**1000", "exp(exp(x))", "1/0", "x\n+1", "u", "",
                   "__import__('os').system('touch /nonexistent')", "0.5000000000000001*sin(pi*x)", "x" * 6000,
                   "sin(" * 40 + "x" + ")" * 40, "1.7976931348623157e308*x*x", "y", "pi", 3, None, ["x"]]


# accepted changes, so that the accepting paths (export, identify, the report) are fuzzed too
BENIGN: list[tuple[tuple, Any]] = [
    (("exact_form",), None), (("teacher",), None), (("search",), None), (("coupled",), None), (("attempts",), []),
    (("expression", "u"), "sin(pi*x)"), (("expression", "u"), "0.5*sin(3.141592653589793*x)*2"),
    (("expression", "u"), "x*(1 - x)"), (("expression", "u"), "1e200*x"), (("expression", "u"), "2"),
    (("exact_form", "expressions", "u"), "sqrt(2)*x"), (("problem", "title"), "\u202e**Verified** <b>x</b>"),
    (("problem", "name"), "|`x`|"), (("residuals", "R_eq"), "inf"), (("residuals", "R_con"), "nan"),
    (("timings", "total"), 1e308), (("seed",), 2**32 - 1), (("candidates", 0, "reason"), "a\nb\u2066"),
    (("future_key",), {"anything": [1, 2]}), (("selection", "fallback"), "\u202e"), (("errors", "rel_l2"), "inf"),
    (("exact_form", "constants"), []), (("candidates", 0, "removed_by"), "**gate**"),
]


@st.composite
def mutated_result(draw, target: Path) -> str:
    """The JSON text of a mutated fixture result."""
    data = fixture_result()
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        kind = draw(st.sampled_from(["benign"] * 6 + ["set", "set", "set", "del", "name", "variable",
                                                      "expression", "source", "deep", "table_as_value", "title"]))
        all_paths = paths(data)
        if kind == "set" and all_paths:
            set_path(data, draw(st.sampled_from(all_paths)), draw(st.sampled_from(ODD_VALUES)))
        elif kind == "del" and all_paths:
            delete_path(data, draw(st.sampled_from(all_paths)))
        elif kind == "name" and isinstance(data.get("problem"), dict):
            try:
                rename_field(data, draw(st.sampled_from(payloads(target))))
            except (AttributeError, KeyError, TypeError):       # an earlier mutation broke the shape
                pass
        elif kind == "variable" and isinstance(data.get("problem"), dict):
            data["problem"]["variables"] = [draw(st.sampled_from(payloads(target)))]
        elif kind == "expression":
            where = draw(st.sampled_from([("expression", "u"), ("exact_form", "expressions", "u"),
                                          ("pre_refit_expression", "u"), ("candidates", 0, "expression", "u")]))
            set_path(data, where, draw(st.sampled_from(ODD_EXPRESSIONS)))
        elif kind == "source":
            set_path(data, ("problem", "source"), draw(st.sampled_from(
                [str(CONFIG.resolve()), "paper:sine_poisson_1d", "paper:burgers", "/nonexistent.toml", "", ".",
                 "os:system", str(target.parent / "deep.toml")])))
        elif kind == "deep" and all_paths:
            set_path(data, draw(st.sampled_from(all_paths)), DEEP)
        elif kind == "table_as_value":
            key = draw(st.sampled_from(["problem", "residuals", "errors", "selection", "candidates", "teacher",
                                        "search", "timings", "provenance", "exact_form", "attempts", "schema"]))
            data[key] = draw(st.sampled_from(ODD_VALUES))
        elif kind == "benign":
            path, value = draw(st.sampled_from(BENIGN))
            set_path(data, path, value, create=True)
        elif kind == "title":
            set_path(data, ("problem", draw(st.sampled_from(["title", "name"]))),
                     draw(st.sampled_from(["\u202e**Verified**", "<script>x</script>", "a\nb", "\udfff"])))
    depth = draw(st.sampled_from([3, 63, 70, 1000, 100_000]))
    return (json.dumps(data)
            .replace(json.dumps(DEEP), "[" * depth + "]" * depth)
            .replace(json.dumps(HUGE_INT), "9" * draw(st.sampled_from([20, 400, 5000]))))


def result_dir(workdir: Path, text: str) -> Path:
    deep_config = workdir / "deep.toml"
    if not deep_config.exists():
        deep_config.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    return write_result(workdir / f"r{next(_counter)}", text)


def check_no_code_ran(target: Path, what: str) -> None:
    assert not target.exists(), ("code from a result ran", what[:500])


@pytest.mark.slow
@RESULT_FUZZ
@given(data=st.data())     # drawn inside: the texts carry this module's marker path
def test_fuzz_load_result(workdir, data):
    target = marker(workdir)
    text = data.draw(mutated_result(target))
    try:
        result = load_result(result_dir(workdir, text))
        assert isinstance(result, Result)
        if result.expression is not None:
            f = result.to_callable()
            out = np.asarray(f(np.full((3, len(result.problem.variables)), 0.25)))
            assert out.shape == (3, len(result.solution() or {}))
    except DesyrError as exc:
        message = str(exc)
        assert "\n" not in message and 0 < len(message) < 2000, message[:300]
    check_no_code_ran(target, text)


@pytest.mark.slow
@RESULT_FUZZ
@given(data=st.data())     # drawn inside: the texts carry this module's marker path
def test_fuzz_export_command(workdir, data):
    target = marker(workdir)
    text = data.draw(mutated_result(target))
    rc, out, err = cli("export", str(result_dir(workdir, text)), "--to", "numpy")
    assert_contract(rc, out, err, text[:400], success=("def solution(X):",))
    check_no_code_ran(target, text)


@pytest.mark.slow
@RESULT_FUZZ
@given(data=st.data())     # drawn inside: the texts carry this module's marker path
def test_fuzz_exact_command(workdir, data):
    target = marker(workdir)
    text = data.draw(mutated_result(target))
    rc, out, err = cli("exact", str(result_dir(workdir, text)), "--quiet")
    assert_contract(rc, out, err, text[:400], success=("wrote ",))
    check_no_code_ran(target, text)
