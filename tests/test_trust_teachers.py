"""Issue 11, items 1 and 7/8: the light teachers refuse bad input on one line."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from desyr_light_teachers.teachers import CallableTeacher, SamplesTeacher

from desyr.config.loading import load_problem_file
from desyr.errors import DesyrError
from desyr.extension.roles import ComponentError
from desyr.model.context import RunContext
from desyr.model.points import make_point_sets

ROOT = Path(__file__).resolve().parents[1]
SINE = ROOT / "plugins" / "desyr_paper" / "problems" / "05_sine_poisson_1d.toml"


@pytest.fixture
def sine(tmp_path):
    problem = load_problem_file(SINE)
    return problem, RunContext(problem, make_point_sets(problem), cache_dir=tmp_path)


def one_line(exc_info) -> str:
    message = str(exc_info.value)
    assert "\n" not in message, message
    assert isinstance(exc_info.value, DesyrError)
    return message


# ---------------------------------------------------------------- callable: opt-in
@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "trust_user_fns.py").write_text(textwrap.dedent("""
        import os
        import numpy as np
        from builtins import eval as reexported_eval
        def u(X):
            return np.sin(np.pi * X[:, 0])
        def batch_only(X):
            if len(X) > 1:
                raise IndexError("only one point at a time")
            return np.sin(np.pi * X[:, 0])
        class Weird(BaseException):
            pass
        def weird(X):
            raise Weird("not an Exception")
        def leaves(X):
            raise SystemExit(3)
        def complex_values(X):
            return np.exp(1j * X[:, 0])
        def nan_values(X):
            return np.full(len(X), np.nan)
        def strings(X):
            return np.array(["1.0"] * len(X))
        def objects(X):
            return np.array([object()] * len(X), dtype=object)
        from desyr.cli.main import main as cli_main
    """))
    (tmp_path / "trust_exits.py").write_text("import sys\nsys.exit('bye')\n")
    (tmp_path / "trust_raises.py").write_text("raise KeyError('at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("trust_user_fns", "trust_exits", "trust_raises"):
        sys.modules.pop(name, None)
    return tmp_path


def test_callable_refused_without_opt_in(sine, user_module, monkeypatch):
    problem, ctx = sine
    monkeypatch.delenv("DESYR_ALLOW_CALLABLE", raising=False)
    with pytest.raises(ComponentError) as info:
        CallableTeacher(function="trust_user_fns:u").prepare(problem, ctx)
    assert "--allow-callable" in one_line(info) and "DESYR_ALLOW_CALLABLE=1" in str(info.value)
    assert "trust_user_fns" not in sys.modules          # nothing was imported
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "0")
    with pytest.raises(ComponentError, match="allow-callable"):
        CallableTeacher(function="trust_user_fns:u").prepare(problem, ctx)


def test_callable_works_with_opt_in(sine, user_module, monkeypatch):
    problem, ctx = sine
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
    model = CallableTeacher(function="trust_user_fns:u").prepare(problem, ctx)
    assert model.predict(np.array([[0.5]])).shape == (1, 1)


@pytest.mark.parametrize("spec", [
    "builtins:eval", "builtins:exec", "os:system", "subprocess:run", "shutil:rmtree", "posix:system",
    "os.path:join", "importlib:import_module", "json:loads",
    "trust_user_fns:os.system",           # through a module attribute to the stdlib
    "trust_user_fns:reexported_eval",     # a builtin re-exported by the user module
    "trust_user_fns:__builtins__",        # private / special names
    "trust_user_fns:u.__globals__",
    "__main__:main",
])
def test_callable_never_runs_builtins_or_stdlib(sine, user_module, monkeypatch, spec):
    problem, ctx = sine
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
    with pytest.raises(ComponentError) as info:
        CallableTeacher(function=spec).prepare(problem, ctx)
    one_line(info)


@pytest.mark.parametrize("spec,match", [
    ("numpy.f2py.__main__:main", "'__main__'"),       # importing it runs the f2py program
    ("numpy.f2py.f2py2e:main", "installer or build tool"),
    ("numpy.f2py:main", "installer or build tool"),
    ("pip:main", "installer or build tool"),
    ("setuptools:setup", "installer or build tool"),
    ("trust_user_fns.__main__:f", "'__main__'"),
    ("desyr.cli.main:main", "command-line program 'desyr'"),
    ("trust_user_fns:cli_main", "command-line program 'desyr'"),    # re-exported
])
def test_callable_never_runs_programs_or_tools(sine, user_module, monkeypatch, spec, match):
    """Programs and installers are not functions of points, even with the opt-in; nothing is imported."""
    problem, ctx = sine
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
    sys.modules.pop("numpy.f2py.__main__", None)
    with pytest.raises(ComponentError, match=match) as info:
        CallableTeacher(function=spec).prepare(problem, ctx)
    one_line(info)
    assert "numpy.f2py.__main__" not in sys.modules


@pytest.mark.parametrize("spec,match", [
    ("trust_exits:f", "SystemExit"),
    ("trust_raises:f", "KeyError"),
    ("trust_user_fns:batch_only", "IndexError"),
    ("trust_user_fns:weird", "Weird"),
    ("trust_user_fns:leaves", "SystemExit"),
    ("trust_user_fns:complex_values", "complex"),
    ("trust_user_fns:nan_values", "non-finite"),
    ("trust_user_fns:strings", "not real numbers"),
    ("trust_user_fns:objects", "not real numbers"),
    ("trust user:f", "dotted Python names"),
])
def test_callable_failures_are_one_line(sine, user_module, monkeypatch, spec, match):
    problem, ctx = sine
    monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
    with pytest.raises(ComponentError, match=match) as info:
        CallableTeacher(function=spec).prepare(problem, ctx)
    one_line(info)


CLI_CONFIG = SINE.read_text(encoding="utf-8")


def _cli_config(tmp_path: Path, function: str) -> Path:
    text = f"""
name = "sine"
[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx + pi**2*sin(pi*x)"
[[constraints]]
on = ["x = 0", "x = 1"]
value = 0
[teacher]
plugin = "callable"
[teacher.options]
function = "{function}"
"""
    path = tmp_path / "evil.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
def test_cli_config_alone_cannot_run_a_shell_command(tmp_path):
    """The issue's exploit: function = "builtins:eval" must not run anything, with or without opt-in."""
    cfg = _cli_config(tmp_path, "builtins:eval")
    env = {k: v for k, v in os.environ.items() if k != "DESYR_ALLOW_CALLABLE"}
    for extra in ({}, {"DESYR_ALLOW_CALLABLE": "1"}):
        proc = subprocess.run([sys.executable, "-m", "desyr", "run", str(cfg), "--out", str(tmp_path / "o"),
                               "--quiet", "--cache-dir", str(tmp_path / "c")],
                              capture_output=True, text=True, env={**env, **extra}, cwd=tmp_path, timeout=120)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("desyr: error: "), proc.stderr
        assert "Traceback" not in proc.stderr


# ----------------------------------------------------------------------- samples
def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _npz(tmp_path: Path, name: str, **arrays) -> Path:
    path = tmp_path / name
    np.savez(path, **arrays)
    return path


def samples_cases(tmp_path: Path) -> list[tuple[Path, str]]:
    x = np.linspace(0, 1, 11)
    return [
        (_npz(tmp_path, "obj.npz", x=np.array([object()] * 11, dtype=object), u=x), "cannot read array 'x'"),
        (_npz(tmp_path, "str.npz", x=x.astype(str), u=x), "not real numbers"),
        (_npz(tmp_path, "cplx.npz", x=x, u=x + 1j), "complex"),
        (_npz(tmp_path, "nan.npz", x=x, u=np.where(x > 0.5, np.nan, x)), "non-finite"),
        (_npz(tmp_path, "inf.npz", X=np.where(x > 0.5, np.inf, x).reshape(-1, 1), Y=x), "non-finite"),
        (_npz(tmp_path, "ragged.npz", x=x, u=x[:5]), "shape"),
        (_write(tmp_path / "corrupt.npz", b"PK\x03\x04 not really a zip"), "cannot read"),
        (_write(tmp_path / "latin1.csv", "x,u,note\n0,0,caf\xe9\n1,0,na\xefve\n0.5,1,x\n".encode("latin-1")),
         "not UTF-8"),
        (_write(tmp_path / "complex.csv", b"x,u\n0,0\n0.5,1+2j\n1,0\n"), "complex"),
        (_write(tmp_path / "nan.csv", b"x,u\n0,0\n0.5,nan\n1,0\n"), "non-finite"),
        (_write(tmp_path / "inf.csv", b"x,u\n0,0\n0.5,inf\n1,0\n"), "non-finite"),
        (_write(tmp_path / "nul.csv", b"x,u\n0,0\x00\n1,0\n"), "not a number"),
        (_write(tmp_path / "short.csv", b"x,u\n0,0\n0.5\n1,0\n"), "short"),
    ]


def test_samples_bad_files_are_one_line(sine, tmp_path):
    problem, ctx = sine
    for path, match in samples_cases(tmp_path):
        with pytest.raises(ComponentError) as info:
            SamplesTeacher(path=str(path)).prepare(problem, ctx)
        assert match in one_line(info), (path.name, str(info.value))


def test_samples_csv_with_bom_is_read(sine, tmp_path):
    problem, ctx = sine
    x = np.linspace(0, 1, 51)
    text = "x,u\n" + "".join(f"{float(a)!r},{float(np.sin(np.pi * a))!r}\n" for a in x)
    path = _write(tmp_path / "bom.csv", b"\xef\xbb\xbf" + text.encode())
    model = SamplesTeacher(path=str(path)).prepare(problem, ctx)
    assert np.allclose(model.predict(np.array([[0.5]])), 1.0, atol=1e-3)


def test_samples_option_type_checked():
    with pytest.raises(ComponentError, match="path"):
        SamplesTeacher(path=3)
