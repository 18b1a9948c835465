"""Fuzzing ``desyr verify``: candidate strings, exact forms and result files, as untrusted text.

Invariant: ``desyr verify`` exits 0 with a verdict or 2 with exactly one ``desyr: error:`` line; no
traceback. The verifier's entry point (``desyr.verify.__main__.main``) runs in this process with the
request on a replaced standard input, so examples stay cheap; ``test_verify.py`` covers the real
child process.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz import FUZZ, cli

import desyr.verify.child as child
import desyr.verify.command as command
from desyr.testing import SINE_POISSON_1D

TOML = SINE_POISSON_1D.replace("verify = 300", "verify = 40")
FUZZ = FUZZ.__class__(FUZZ, max_examples=40)    # each example is a whole verification


def in_process_verdict(request, timeout=300.0):
    from desyr.verify.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    stdin = io.StringIO(json.dumps(request, allow_nan=False))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin):
        rc = main()
    if rc != 0:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("desyr: error: "), err.getvalue()
        raise child.VerifierError(lines[0].removeprefix("desyr: error: "))
    return child.checked_verdict(out.getvalue())


@contextlib.contextmanager
def _stdin(stream):
    import sys

    saved, sys.stdin = sys.stdin, stream
    try:
        yield
    finally:
        sys.stdin = saved


@pytest.fixture(autouse=True)
def verifier_in_process(monkeypatch):
    monkeypatch.setattr(command, "request_verdict", in_process_verdict)


@pytest.fixture(scope="module")
def problem_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "p.toml"
    path.write_text(TOML)
    return str(path)


def assert_contract(rc: int, out: str, err: str) -> None:
    if rc == 0:
        assert out.split(":")[0] in ("Proved", "Verified (not proved)", "Not exact"), out
        assert err == "", err
    else:
        assert rc == 2, (rc, out, err)
        assert err.startswith("desyr: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err


ATOMS = st.sampled_from(["x", "pi", "E", "1", "0", "1/2", "3.14", "1e308", "-1e-308", "u", "y", "nan", "oo",
                         "abs(x - 1/2)", "sin(pi*x)", "exp(1000*x)", "log(x)", "sqrt(x - 1)", "x**1000",
                         "1/(x - 1/2)", "Abs(x)", "__import__('os')", "x.real", "[x]", "lambda: 1"])
OPS = st.sampled_from(["+", "-", "*", "/", "**", ", ", " ", ""])


@st.composite
def formulas(draw):
    parts = draw(st.lists(ATOMS, min_size=1, max_size=5))
    text = parts[0]
    for p in parts[1:]:
        text = f"{text}{draw(OPS)}{p}"
    wrap = draw(st.sampled_from(["{}", "sin({})", "abs({})", "({}", "u = {}", "u = {}; v = x", "{};", "=",
                                 "{}" * 2]))
    return wrap.replace("{}", text) if "{}" in wrap else wrap


@pytest.mark.slow
@FUZZ
@given(text=st.one_of(formulas(), st.text(max_size=60)))
def test_fuzz_desyr_verify_candidate(problem_file, text):
    if "\x00" in text:
        text = text.replace("\x00", "")
    assert_contract(*cli("verify", problem_file, f"--candidate={text}"))


@pytest.mark.slow
@FUZZ
@given(candidate=formulas(), exact=formulas())
def test_fuzz_desyr_verify_exact_form(problem_file, candidate, exact):
    assert_contract(*cli("verify", problem_file, f"--candidate={candidate}", f"--exact-form={exact}"))


JUNK = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=10)


@pytest.mark.slow
@FUZZ
@given(key=st.sampled_from(["expression", "exact_form", "seed", "config", "problem", "schema"]), value=JUNK)
def test_fuzz_desyr_verify_result_file(tmp_path_factory, key, value):
    folder = tmp_path_factory.mktemp("r")
    data = {"schema": "desyr.result/3", "seed": 0, "expression": {"u": "sin(pi*x)"},
            "exact_form": {"expressions": {"u": "sin(pi*x)"}},
            "config": {"format": "toml", "text": TOML, "source": "<fuzz>"},
            "problem": {"source": "<fuzz>", "fields": ["u"], "variables": ["x"]}}
    data[key] = value
    (folder / "result.json").write_text(json.dumps(data))
    assert_contract(*cli("verify", str(folder)))


def test_deeply_nested_result_file_is_one_line(tmp_path):
    (tmp_path / "result.json").write_text("[" * 100000 + "]" * 100000)
    assert_contract(*cli("verify", str(tmp_path)))
