"""Issue 11, items 7/8 and 10: deepxde options are ranged, the teacher cache is consistent and never crashes."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from desyr_deepxde import cache as cache_mod
from desyr_deepxde.plugin import DeepXDETeacher

from desyr.config.loading import load_problem_file
from desyr.extension.roles import ComponentError
from desyr.model.context import RunContext
from desyr.model.points import make_point_sets

ROOT = Path(__file__).resolve().parents[1]
SINE = ROOT / "plugins" / "desyr_paper" / "problems" / "05_sine_poisson_1d.toml"
TINY = {"adam_steps": 20, "lbfgs_steps": 0, "checkpoint_every": 10, "interior_points": 50, "boundary_points": 4,
        "layers": [8]}


@pytest.mark.parametrize("options", [
    {"adam_steps": -5}, {"lbfgs_steps": -1}, {"interior_points": 0}, {"boundary_points": -3},
    {"checkpoint_every": 0}, {"lr": 0}, {"lr": -1e-3}, {"lr": float("nan")}, {"layers": []}, {"layers": [0, 5]},
    {"layers": [5, True]}, {"layers": "50,50"}, {"activation": "rm -rf"}, {"initializer": "nope"},
    {"seed": -1}, {"seed": 2.5}, {"float64": "yes"}, {"loss_weights": [1, -1]}, {"loss_weights": []},
    {"initial_points": 0}, {"adam_steps": 1.5}, {"adam_steps": True},
])
def test_bad_options_fail_at_load_on_one_line(options):
    with pytest.raises(ComponentError) as info:
        DeepXDETeacher(**options)
    assert "\n" not in str(info.value) and next(iter(options)) in str(info.value)


def test_good_options_accepted():
    s = DeepXDETeacher(layers=[20, 20], lr=1, activation="LAAF-10 tanh", loss_weights=[1, 2], seed=3).settings
    assert s["lr"] == 1.0 and s["loss_weights"] == [1.0, 2.0]


# ------------------------------------------------------------------ cache entries
def test_key_covers_the_teacher_code(monkeypatch):
    problem = load_problem_file(SINE)
    key = cache_mod.cache_key(problem, {"a": 1}, 0)
    monkeypatch.setattr(cache_mod, "code_fingerprint", lambda: "changed")
    assert cache_mod.cache_key(problem, {"a": 1}, 0) != key


def test_code_fingerprint_changes_with_a_source_file(tmp_path, monkeypatch):
    import shutil
    pkg = tmp_path / "desyr_deepxde"
    shutil.copytree(Path(cache_mod.__file__).parent, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache_mod, "__file__", str(pkg / "cache.py"))
    before = cache_mod.code_fingerprint.__wrapped__()
    (pkg / "training.py").write_text((pkg / "training.py").read_text() + "\n# changed\n")
    assert cache_mod.code_fingerprint.__wrapped__() != before


def _entry(tmp_path):
    w, m = cache_mod.entry_paths(tmp_path, "ab" * 32)
    cache_mod.write_entry(w, m, b"weights", {"S_val_selected": 0.5, "selected_step": 10})
    return w, m


def test_entry_round_trip_and_no_temporaries(tmp_path):
    w, m = _entry(tmp_path)
    meta, data = cache_mod.read_entry(w, m)
    assert data == b"weights" and meta["selected_step"] == 10
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([w.name, m.name])


@pytest.mark.parametrize("corrupt", [
    lambda w, m: m.write_text('{"S_val_selected": 0.5, "sel'),           # truncated json
    lambda w, m: m.write_text("[1, 2]"),                                   # not an object
    lambda w, m: m.write_bytes(b"\xff\xfe\x00garbage"),                    # not text
    lambda w, m: m.write_text('{"S_val_selected": "x", "selected_step": 1, "pt_sha256": ""}'),
    lambda w, m: m.write_text(json.dumps({"S_val_selected": 1.0, "selected_step": 1})),   # no pt hash
    lambda w, m: w.write_bytes(b"other weights"),                          # pair out of step
    lambda w, m: w.unlink(),
])
def test_corrupt_entry_is_a_miss(tmp_path, corrupt):
    w, m = _entry(tmp_path)
    corrupt(w, m)
    assert isinstance(cache_mod.read_entry(w, m), str)


@pytest.mark.slow
def test_corrupt_cache_json_is_ignored_and_retrained(tmp_path):
    problem = load_problem_file(SINE)
    points = make_point_sets(problem)
    ctx = RunContext(problem, points, cache_dir=tmp_path)
    first = DeepXDETeacher(**TINY).prepare(problem, ctx)
    assert first.info()["cached"] is False
    (meta,) = list((tmp_path / "deepxde").glob("*.json"))
    assert DeepXDETeacher(**TINY).prepare(problem, ctx).info()["cached"] is True
    meta.write_text('{"S_val_selected": [}')
    again = DeepXDETeacher(**TINY).prepare(problem, ctx)
    assert again.info()["cached"] is False
    assert np.all(np.isfinite(again.predict(points.verify)))
    meta.write_text(json.dumps({"history": []}))     # valid JSON without the facts (KeyError before)
    assert DeepXDETeacher(**TINY).prepare(problem, ctx).info()["cached"] is False
    assert DeepXDETeacher(**TINY).prepare(problem, ctx).info()["cached"] is True
