"""Export formats (desyr.codegen.export / to_callable), each evaluated against the expressions."""
import ctypes
import importlib.util
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp
from helpers import in_a_fresh_process

from desyr.exact import FORMATS, export, to_callable
from desyr.symbolic.numeric import evaluate

x, t = sp.symbols("x t", real=True)
SOLUTION = {"u": x * sp.cos(5 * sp.pi * t) + t ** 3 * x ** 3 + sp.sqrt(2) * sp.log(2) * sp.exp(-t),
            "v": sp.Rational(1, 2) + sp.tanh(5 * t / 2 - 5 * x) / 2,
            "p": sp.Integer(3)}                                   # a constant field broadcasts
VARIABLES = ["x", "t"]


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).uniform(-1, 1, size=(64, 2))


@pytest.fixture(scope="module")
def expected(X):
    return np.column_stack([evaluate(e, [x, t], X) for e in SOLUTION.values()])


def close(got, want):
    got = np.asarray(got, dtype=float)
    assert got.shape == want.shape
    assert np.max(np.abs(got - want) / np.maximum(np.abs(want), 1.0)) <= 1e-12


def test_formats_and_unknowns():
    assert set(FORMATS) == {"latex", "sympy", "numpy", "torch", "jax", "c", "fortran", "julia"}
    with pytest.raises(ValueError, match="unknown export format"):
        export(SOLUTION, VARIABLES, "matlab")
    with pytest.raises(ValueError, match="not among the variables"):
        export(SOLUTION, ["x"], "numpy")
    with pytest.raises(ValueError, match="backend"):
        to_callable(SOLUTION, VARIABLES, "c")


def test_latex():
    text = export(SOLUTION, VARIABLES, "latex")
    assert r"u(x, t) = x \cos{\left(5 \pi t \right)}" in text
    assert text.count("\n") == 3 and "p(x, t) = 3" in text


def test_sympy_source_round_trips():
    ns = {}
    exec(export(SOLUTION, VARIABLES, "sympy"), ns)
    assert ns["VARIABLES"] == ("x", "t")
    for f, e in SOLUTION.items():
        assert sp.simplify(ns["SOLUTION"][f] - e) == 0


def test_numpy(X, expected):
    close(to_callable(SOLUTION, VARIABLES, "numpy")(X), expected)


def test_torch(X, expected):
    torch = pytest.importorskip("torch")
    out = to_callable(SOLUTION, VARIABLES, "torch")(torch.as_tensor(X))
    assert isinstance(out, torch.Tensor)
    close(out.numpy(), expected)


def _jax_values(X):
    return np.asarray(to_callable(SOLUTION, VARIABLES, "jax")(X))


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax not installed (pip install 'jax[cpu]')")
def test_jax(X, expected):
    close(in_a_fresh_process(_jax_values, X), expected)      # JAX runs threads: never loaded in the test process


@pytest.mark.slow
def test_core_does_not_import_backends():
    code = "import sys, desyr.exact; print('torch' in sys.modules, 'jax' in sys.modules)"
    import sys
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def _load_shared(tmp_path, source, compiler, suffix, extra):
    src = tmp_path / f"solution.{suffix}"
    src.write_text(source)
    lib = tmp_path / "libsolution.so"
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", *extra, str(src), "-o", str(lib), "-lm"],
                   check=True, capture_output=True, cwd=tmp_path)
    return ctypes.CDLL(str(lib))


def _call(lib, X, n_fields):
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    out = np.empty((X.shape[0], n_fields))
    lib.desyr_solution.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    lib.desyr_solution(X.shape[0], Xc.ctypes.data, out.ctypes.data)
    return out


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler (gcc) on this machine")
@pytest.mark.parametrize("std", ["-std=c99", "-std=gnu99"])
def test_c_compiles_and_agrees(tmp_path, X, expected, std):
    lib = _load_shared(tmp_path, export(SOLUTION, VARIABLES, "c"), "gcc", "c", [std])
    close(_call(lib, X, 3), expected)
    lib.desyr_u.restype = ctypes.c_double
    lib.desyr_u.argtypes = [ctypes.c_double, ctypes.c_double]
    assert lib.desyr_u(X[0, 0], X[0, 1]) == pytest.approx(expected[0, 0], rel=1e-12)


def test_fortran_text():
    text = export(SOLUTION, VARIABLES, "fortran")
    assert 'bind(C, name="desyr_solution")' in text and "module desyr_solution_mod" in text


@pytest.mark.skipif(shutil.which("gfortran") is None,
                    reason="gfortran not installed (./dev test installs it where apt-get can): Fortran export not compiled")
def test_fortran_compiles_and_agrees(tmp_path, X, expected):
    lib = _load_shared(tmp_path, export(SOLUTION, VARIABLES, "fortran"), "gfortran", "f90", [])
    close(_call(lib, X, 3), expected)


def test_julia_text():
    text = export(SOLUTION, VARIABLES, "julia")
    assert "u(x, t) = " in text and "cos(5 * pi * t)" in text and "function solution(X::AbstractMatrix)" in text


@pytest.mark.skipif(shutil.which("julia") is None, reason="julia not installed: Julia export checked as text only")
def test_julia_runs(tmp_path, X, expected):
    src = tmp_path / "solution.jl"
    np.savetxt(tmp_path / "X.txt", X)
    src.write_text(export(SOLUTION, VARIABLES, "julia")
                   + 'using DelimitedFiles\nwritedlm("out.txt", solution(readdlm("X.txt")))\n')
    subprocess.run(["julia", str(src)], check=True, cwd=tmp_path)
    close(np.loadtxt(tmp_path / "out.txt"), expected)


def test_single_field_export_is_a_column():
    f = to_callable({"u": sp.sin(sp.pi * x)}, ["x"])
    out = f(np.array([[0.5], [0.25]]))
    assert out.shape == (2, 1) and out[0, 0] == pytest.approx(1.0, rel=1e-15)
