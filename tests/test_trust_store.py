"""Stored records with the run's key but any shape: each is a cache miss (one warning line, the unit
computed again), never a traceback.

A finished run's store is copied, one record (a search or a refit) is damaged, and ``desyr run
--resume`` runs on the copy.  Invariant (as in test_fuzz.py): exit 0 with a result, or exit 2 with
one ``desyr: error:`` line; no traceback; and at most one warning line for the one damaged file.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from budgets import examples
from helpers import SINE_RUN
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_fuzz import assert_contract, cli

STORE_FUZZ = settings(max_examples=examples(6, 15), deadline=None, derandomize=True, database=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                             HealthCheck.data_too_large])

#: two cheap searches and small point sets: a search computed again costs a fraction of a second
CONFIG = (SINE_RUN.replace("generations = 30", "generations = 10").replace("population_size = 200", "population_size = 50")
          .replace("refine = 300", "refine = 60").replace("verify = 300", "verify = 40"))
PLACEHOLDER = "\u0000damage\u0000"


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, Path]:
    """A config and the folder of a finished run of it (searches and refits stored)."""
    root = tmp_path_factory.mktemp("store_fuzz")
    config = root / "sine.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with pytest.MonkeyPatch.context() as env:       # the autouse consent of conftest.py is per test
        env.setenv("DESYR_ALLOW_CALLABLE", "1")
        rc, _, err = cli("run", str(config), "--out", str(root / "done"), *RUN_OPTIONS, "--cache-dir", str(root / "c"))
    assert rc == 0, err
    assert len(list((root / "done" / "store" / "search").glob("*.json"))) == 2
    return config, root / "done"


RUN_OPTIONS = ("--quiet", "--no-plots", "--executor", "serial")
_copies = iter(range(10**9))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8)
raw_values = st.one_of(
    json_values.map(json.dumps),
    st.integers(1, 5000).map(lambda n: "[" * n + "]" * n),                  # deep, and deeper than the parser's stack
    st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.sampled_from(['"sin(x)"', '"import os"', '"x**10**10**10"', '"u_xx"', "-1", "1e999", "NaN", "true", '""',
                     '{"u": 5}', '{"u": "sin(pi*x)", "v": "x"}', '[{"expression": 1}]']),
)
SEARCH_PATHS = [(), ("key",), ("record",), ("record", "front"), ("record", "front", 0), ("record", "front", 0, "expression"),
                ("record", "front", 0, "complexity"), ("record", "front", 0, "loss"), ("record", "field"),
                ("record", "seed"), ("record", "seconds"), ("record", "info"), ("record", "dropped"),
                ("record", "warnings"), ("record", "extra")]
REFIT_PATHS = [(), ("key",), ("record",), ("record", "refit"), ("record", "refit", "expressions"),
               ("record", "refit", "status"), ("record", "refit", "converged"), ("record", "refit", "params"),
               ("record", "refit", "nfev"), ("record", "refit", "unknown"), ("record", "expressions"),
               ("record", "expressions", "u"), ("record", "phi"), ("record", "eps_T_fields"), ("record", "cleaned")]


@st.composite
def damages(draw) -> tuple[str, int, tuple[Any, ...], str]:
    kind = draw(st.sampled_from(["search", "refit"]))
    path = draw(st.sampled_from(SEARCH_PATHS if kind == "search" else REFIT_PATHS))
    return kind, draw(st.integers(0, 1)), path, draw(raw_values)


def damaged_copy(done: Path, kind: str, index: int, path: tuple[Any, ...], raw: str) -> Path:
    """A copy of the finished run with ``raw`` JSON text at ``path`` of one record file."""
    out = done.parent / f"copy{next(_copies)}"
    shutil.copytree(done, out)
    target = sorted((out / "store" / kind).glob("*.json"))[index]
    if not path:
        target.write_text(raw, encoding="utf-8")
        return out
    stored = json.loads(target.read_text(encoding="utf-8"))
    node = stored
    for step in path[:-1]:
        node = node[step] if isinstance(node, dict) or (isinstance(node, list) and step < len(node)) else node
    last = path[-1]
    if isinstance(node, list) and not (isinstance(last, int) and last < len(node)):
        node.append(PLACEHOLDER)
    else:
        node[last] = PLACEHOLDER
    target.write_text(json.dumps(stored).replace(json.dumps(PLACEHOLDER), raw), encoding="utf-8")
    return out


@pytest.mark.slow
@STORE_FUZZ
@given(damage=damages())
@example(damage=("refit", 0, ("record", "refit"), "5"))
@example(damage=("refit", 0, ("record", "refit"), "{}"))
@example(damage=("refit", 1, ("record", "expressions"), '"sin(pi*x)"'))
@example(damage=("refit", 0, ("record", "refit", "status"), "3"))
@example(damage=("search", 0, ("record", "front"), '"sin(pi*x)"'))
@example(damage=("search", 1, ("record", "front", 0, "expression"), '"__import__(\'os\')"'))
@example(damage=("search", 0, ("record", "info"), "[" * 5000 + "]" * 5000))
@example(damage=("refit", 1, (), "[" * 100_000 + "]" * 100_000))
@example(damage=("search", 1, ("key",), '"0000"'))
def test_fuzz_stored_records(finished, damage):
    config, done = finished
    out = damaged_copy(done, *damage)
    try:
        rc, stdout, stderr = cli("run", str(config), "--out", str(out), "--resume", *RUN_OPTIONS,
                                 "--cache-dir", str(done.parent / "c"))
        assert_contract(rc, stdout, stderr, damage[:3])
        assert sum(line.startswith("desyr: warning: run store:") for line in stderr.splitlines()) <= 1, stderr
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_depth_check_needs_no_recursion():
    from desyr.runtime.store import check_depth

    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError, match="deeper"):
        check_depth(deep)
    check_depth({"a": [1, {"b": [2]}]})


@pytest.mark.slow
def test_a_malformed_record_is_computed_again_with_one_warning(finished):
    config, done = finished
    out = damaged_copy(done, "refit", 0, ("record", "refit"), "5")
    rc, stdout, stderr = cli("run", str(config), "--out", str(out), "--resume", *RUN_OPTIONS,
                             "--cache-dir", str(done.parent / "c"))
    assert rc == 0, stderr
    (warning,) = [line for line in stderr.splitlines() if line.startswith("desyr: warning:")]
    assert "malformed" in warning and "computed again" in warning
    execution = json.loads((out / "result.json").read_text())["provenance"]["execution"]
    assert (execution["units_computed"], execution["units_reused"]) == (1, 3)
    assert json.loads((out / "result.json").read_text())["expression"] == \
        json.loads((done / "result.json").read_text())["expression"]


