"""Red-team regressions of issue 38: an export refuses a function its library computes inaccurately, the
Fortran export compiles with a constant argument, and Airy derivatives evaluate and are witnessed."""
from __future__ import annotations

import ctypes
import shutil
import subprocess

import mpmath
import numpy as np
import pytest
import sympy as sp

from desyr.codegen.export import export
from desyr.symbolic.numeric import lambdify
from desyr.testing import make_problem
from desyr.verify.proof import prove
from desyr.verify.witness import vanishes

x, y = sp.symbols("x y", real=True)


@pytest.mark.parametrize("expr, target, words", [
    (sp.besselj(0, x), "jax", "besselj"), (sp.besselj(3, x), "jax", "nan at 0"),
    *[pytest.param(e, "torch", w, marks=pytest.mark.slow)         # the torch printer imports torch (2 s)
      for e, w in [(sp.besselj(0, x), "1e-6"), (sp.besselj(1, x), "besselj"), (sp.bessely(0, x), "bessely"),
                   (sp.bessely(1, x), "1e-6"), (sp.airyai(x), "airyai")]],
])
def test_python_targets_refuse_functions_their_library_gets_wrong(expr, target, words):
    with pytest.raises(ValueError) as info:
        export({"u": expr}, ["x"], target)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_fortran_writes_a_real_argument_for_a_constant():
    text = export({"u": sp.besselj(0, 2 * x) / sp.besselj(0, 2) + sp.erf(1) + sp.erfc(-3) + sp.bessely(1, 3)},
                  ["x"], "fortran")
    for bad in ("bessel_jn(0, 2)", "erf(1)", "erfc(-3)", "bessel_yn(1, 3)"):
        assert bad not in text
    assert "bessel_jn(0, 2.0" in text and "bessel_yn(1, 3.0" in text and "erf(1.0" in text


@pytest.mark.skipif(shutil.which("gfortran") is None,
                    reason="gfortran not installed (./dev test installs it where apt-get can): Fortran export not compiled")
def test_a_drum_mode_over_its_rim_value_compiles_with_gfortran(tmp_path):
    r = sp.sqrt(x**2 + y**2)
    u = sp.besselj(0, 2 * r) / sp.besselj(0, 2) + sp.erf(1) * sp.bessely(1, 3)
    src, lib = tmp_path / "drum.f90", tmp_path / "libdrum.so"
    src.write_text(export({"u": u}, ["x", "y"], "fortran"))
    subprocess.run(["gfortran", "-std=f2008", "-shared", "-fPIC", str(src), "-o", str(lib)],
                   check=True, capture_output=True, cwd=tmp_path)
    loaded = ctypes.CDLL(str(lib))
    loaded.desyr_solution.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    X, out = np.ascontiguousarray([[0.3, 0.4], [0.1, -0.2]]), np.empty((2, 1))
    loaded.desyr_solution(2, X.ctypes.data, out.ctypes.data)
    f = sp.lambdify([x, y], u, modules="mpmath")
    assert np.allclose(out[:, 0], [float(f(*row)) for row in X], rtol=1e-12, atol=1e-13)


def test_airy_derivatives_evaluate_with_numpy():
    values = lambdify([x], [sp.airyaiprime(x), sp.airybiprime(x)])(np.array([-1.5, 0.5]))
    expected = [[float(mpmath.airyai(v, derivative=1)) for v in (-1.5, 0.5)],
                [float(mpmath.airybi(v, derivative=1)) for v in (-1.5, 0.5)]]
    assert np.allclose(np.asarray(values, dtype=float), expected, rtol=1e-13)


def test_airy_derivatives_are_witnessed_by_mpmath():
    zero = (sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1) * sp.airyaiprime(x) + (sp.cosh(x) ** 2 - sp.sinh(x) ** 2 - 1) \
        * sp.airybiprime(x)
    points = [{x: -1.2}, {x: 0.7}]
    assert vanishes(zero, points)
    assert not vanishes(sp.airyaiprime(x) + 1e-20, points)


LKDV = """time = "t"
[domain]
x = [-3, 3]
t = [1, 2]
[[equations]]
lhs = "u_t + u_xxx"
[[constraints]]
on = "initial"
value = "airyai(x/3**(1/3))/3**(1/3)"
"""


def test_the_airy_similarity_solution_of_linearised_kdv_is_proved():
    problem = make_problem(LKDV)
    assert prove(problem, {"u": problem.parse("airyai(x/(3*t)**(1/3))/(3*t)**(1/3)")}).proved
