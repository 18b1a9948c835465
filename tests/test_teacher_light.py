"""The light teachers: ``samples`` (npz / csv interpolation) and ``callable``."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from desyr_light_teachers.teachers import CallableTeacher, SamplesTeacher

from desyr.config.loading import load_problem_file, problem_from_dict
from desyr.extension.roles import ComponentError
from desyr.model.context import RunContext
from desyr.model.points import make_point_sets

ROOT = Path(__file__).resolve().parents[1]
SINE = ROOT / "plugins" / "desyr_paper" / "problems" / "05_sine_poisson_1d.toml"


@pytest.fixture
def sine(tmp_path):
    problem = load_problem_file(SINE)
    return problem, RunContext(problem, make_point_sets(problem), cache_dir=tmp_path)


def problem_2d():
    return problem_from_dict({
        "domain": {"x": [0, 1], "y": [0, 1]}, "fields": ["u", "v"],
        "equations": [{"lhs": "u_xx + u_yy"}, {"lhs": "v_x"}],
        "constraints": [{"on": "boundary", "operator": "u", "value": 0}],
    })


@pytest.mark.slow
def test_registered_and_plugins_import_cheaply():
    from desyr_light_teachers import plugin
    assert [c.name for c in plugin.desyr_register_teachers()] == ["samples", "callable"]
    code = ("import sys; from desyr.extension.registry import load_registry; "
            "names = load_registry().names('teacher'); "
            "assert {'deepxde', 'samples', 'callable'} <= set(names), names; "
            "bad = [m for m in ('torch', 'deepxde') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_samples_npz_1d(sine, tmp_path):
    problem, ctx = sine
    x = np.linspace(0, 1, 401)
    path = tmp_path / "s.npz"
    np.savez(path, X=x.reshape(-1, 1), Y=np.sin(np.pi * x))
    model = SamplesTeacher(path=str(path)).prepare(problem, ctx)
    X = ctx.points.verify
    pred = model.predict(X)
    assert pred.shape == (len(X), 1) and pred.dtype == np.float64
    ref = np.sin(np.pi * X[:, 0])
    assert np.linalg.norm(pred[:, 0] - ref) / np.linalg.norm(ref) < 1e-4


def test_samples_npz_named_keys(sine, tmp_path):
    problem, ctx = sine
    x = np.linspace(0, 1, 101)[::-1]          # unsorted input is fine
    path = tmp_path / "named.npz"
    np.savez(path, x=x, u=np.sin(np.pi * x))
    model = SamplesTeacher(path=str(path)).prepare(problem, ctx)
    assert np.allclose(model.predict(np.array([[0.5]])), 1.0, atol=1e-3)


def test_samples_csv_2d_two_fields(tmp_path):
    problem = problem_2d()
    ctx = RunContext(problem, make_point_sets(problem), cache_dir=tmp_path)
    rng = np.random.default_rng(0)
    X = np.vstack([rng.random((3000, 2)), [[0, 0], [0, 1], [1, 0], [1, 1]]])
    u, v = X[:, 0] + 2 * X[:, 1], X[:, 0] * X[:, 1]
    path = tmp_path / "s.csv"
    lines = ["v,y,x,u"] + [f"{float(b)!r},{float(q)!r},{float(p)!r},{float(a)!r}" for (p, q), a, b in zip(X, u, v)]
    path.write_text("\n".join(lines) + "\n")
    model = SamplesTeacher(path=str(path)).prepare(problem, ctx)
    Q = ctx.points.verify
    pred = model.predict(Q)
    assert pred.shape == (len(Q), 2)
    assert np.max(np.abs(pred[:, 0] - (Q[:, 0] + 2 * Q[:, 1]))) < 1e-10      # linear: exact
    assert np.max(np.abs(pred[:, 1] - Q[:, 0] * Q[:, 1])) < 1e-2
    # outside the convex hull: nearest sample, never NaN
    out = model.predict(np.array([[1.5, 1.5], [-1.0, 0.5]]))
    assert np.all(np.isfinite(out))
    assert np.allclose(out[0], [3.0, 1.0])


def test_samples_errors(sine, tmp_path):
    problem, ctx = sine
    with pytest.raises(ComponentError, match="needs option path"):
        SamplesTeacher().prepare(problem, ctx)
    with pytest.raises(ComponentError, match="not found"):
        SamplesTeacher(path=str(tmp_path / "nope.npz")).prepare(problem, ctx)
    bad = tmp_path / "bad.csv"
    bad.write_text("x,w\n0,1\n1,2\n")
    with pytest.raises(ComponentError, match=r"no column\(s\) u"):
        SamplesTeacher(path=str(bad)).prepare(problem, ctx)
    badnpz = tmp_path / "bad.npz"
    np.savez(badnpz, X=np.zeros((3, 1)))
    with pytest.raises(ComponentError, match="'Y'"):
        SamplesTeacher(path=str(badnpz)).prepare(problem, ctx)
    txt = tmp_path / "s.txt"
    txt.write_text("x")
    with pytest.raises(ComponentError, match=".npz or .csv"):
        SamplesTeacher(path=str(txt)).prepare(problem, ctx)
    with pytest.raises(ComponentError, match="does not know option"):
        SamplesTeacher(file="x.npz")


def test_callable(sine, tmp_path, monkeypatch):
    problem, ctx = sine
    mod = tmp_path / "my_teacher_fn.py"
    mod.write_text(textwrap.dedent("""
        import numpy as np
        def u(X):
            return np.sin(np.pi * X[:, 0])
        def wrong(X):
            return np.zeros((len(X), 3))
        def boom(X):
            raise RuntimeError("kaputt")
        NOT_CALLABLE = 3
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
    model = CallableTeacher(function="my_teacher_fn:u").prepare(problem, ctx)
    X = ctx.points.verify
    assert np.allclose(model.predict(X)[:, 0], np.sin(np.pi * X[:, 0]))
    assert model.predict(X).shape == (len(X), 1)
    with pytest.raises(ComponentError, match="module:function"):
        CallableTeacher(function="my_teacher_fn.u").prepare(problem, ctx)
    with pytest.raises(ComponentError, match="cannot import module 'no_such_module_xyz'"):
        CallableTeacher(function="no_such_module_xyz:u").prepare(problem, ctx)
    with pytest.raises(ComponentError, match="no attribute 'v'"):
        CallableTeacher(function="my_teacher_fn:v").prepare(problem, ctx)
    with pytest.raises(ComponentError, match="not callable"):
        CallableTeacher(function="my_teacher_fn:NOT_CALLABLE").prepare(problem, ctx)
    with pytest.raises(ComponentError, match="shape"):
        CallableTeacher(function="my_teacher_fn:wrong").prepare(problem, ctx)
    with pytest.raises(ComponentError, match="kaputt"):
        CallableTeacher(function="my_teacher_fn:boom").prepare(problem, ctx)
