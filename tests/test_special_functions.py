"""Special functions end to end (issue 38): erf, erfc, Bessel, Airy, sech, csch, coth in the language,
the verifier and the exports."""
from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess

import mpmath
import numpy as np
import pytest
import sympy as sp
from helpers import in_a_fresh_process

from desyr.codegen.export import export, to_callable
from desyr.config.builder import sympy_problem
from desyr.errors import ConfigError
from desyr.plugin import UNARY_OPERATORS
from desyr.symbolic.expressions import ExpressionError, Vocabulary, parse_expression
from desyr.symbolic.numeric import evaluate
from desyr.testing import make_problem
from desyr.verify.intervals import Undefined, enclose, sign_on
from desyr.verify.proof import prove
from desyr.verify.regularity import rough_reason

RNG = np.random.default_rng(38)
X1 = RNG.uniform(0.2, 3.0, 6)
#: text -> the same function in mpmath
FUNCTIONS = {
    "erf(x)": mpmath.erf, "erfc(x)": mpmath.erfc, "airyai(x)": mpmath.airyai, "airybi(-x)": lambda v: mpmath.airybi(-v),
    "sech(x)": mpmath.sech, "csch(x)": mpmath.csch, "coth(x)": mpmath.coth,
    "besselj(0, x)": lambda v: mpmath.besselj(0, v), "besselj(3, 2*x)": lambda v: mpmath.besselj(3, 2 * v),
    "bessely(1, x)": lambda v: mpmath.bessely(1, v), "besseli(2, x)": lambda v: mpmath.besseli(2, v),
    "besselk(0, x)": lambda v: mpmath.besselk(0, v), "besselj(1/2, x)": lambda v: mpmath.besselj(0.5, v),
    "besselk(-3/2, x)": lambda v: mpmath.besselk(-1.5, v),
}


def _parse(text: str) -> sp.Expr:
    return parse_expression(text, Vocabulary(["x", "y"], ["u"]))


@pytest.mark.parametrize("text", sorted(FUNCTIONS))
def test_parse_then_evaluate_agrees_with_mpmath(text):
    x = sp.Symbol("x", real=True)
    values = evaluate(_parse(text), [x], X1[:, None])
    expected = np.array([float(FUNCTIONS[text](mpmath.mpf(float(v)))) for v in X1])
    assert np.allclose(values, expected, rtol=1e-12, atol=1e-14)


def test_reciprocal_hyperbolics_stay_finite_far_out():
    x = sp.Symbol("x", real=True)
    values = evaluate(_parse("coth(x) + sech(x)"), [x], np.array([[800.0], [-800.0]]))
    assert values.tolist() == [1.0, -1.0]


@pytest.mark.parametrize("text, words", [
    ("besselj(x, 2)", "order 'x' of besselj"), ("besselj(1/3, x)", "integer or half-integer"),
    ("bessely(sqrt(2), x)", "integer or half-integer"), ("besseli(60, x)", "at most 50"),
    ("besselk(0)", "two positional arguments"), ("besselj(0, x, y)", "two positional arguments"),
    ("besselj(nu=0, z=x)", "two positional arguments"), ("erf(x, y)", "one positional argument"),
    ("bessely(0, 0)", "undefined or infinite"), ("bessely(0, -3)", "real"), ("csch(0)", "undefined"),
    ("besselj(1/2, -2)", "non-real"),
])
def test_bad_orders_arities_and_values_are_one_line_errors(text, words):
    with pytest.raises(ExpressionError) as info:
        _parse(text)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_a_bad_order_in_a_config_is_one_config_error():
    with pytest.raises(ConfigError) as info:
        make_problem('[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx - besselj(x, 1)"\n')
    assert "order" in str(info.value) and "\n" not in str(info.value)


def test_sympy_problems_may_use_special_functions():
    x, u = sp.Symbol("x"), sp.Function("u")
    problem = sympy_problem(sp.Eq(u(x).diff(x, 2), x * u(x)), {x: (-2, 2)}, reference={u: sp.airyai(x)})
    assert problem.reference is not None


def test_searchers_get_reciprocal_hyperbolics_where_their_library_has_them():
    assert all(UNARY_OPERATORS[n].numpy(np.array([1.0]))[0] == pytest.approx(float(f(1)))
               for n, f in (("sech", mpmath.sech), ("csch", mpmath.csch), ("coth", mpmath.coth)))
    from desyr_operon.plugin import OperonSearcher
    with pytest.raises(Exception, match="sech"):
        OperonSearcher().check_operators(["+"], ["sin", "sech"])


# ------------------------------------------------------------------ verifier
DRUM = """[domain]
shape = "disk(center=(0, 0), radius=1)"
[[equations]]
lhs = "u_xx + u_yy + u"
[[constraints]]
on = "circle"
value = "besselj(0, 1)"
"""
AIRY = """[domain]
x = [-2, 2]
[[equations]]
lhs = "u_xx - x*u"
[[constraints]]
on = "x = -2"
value = "airyai(-2)"
[[constraints]]
on = "x = 2"
value = "airyai(2)"
"""
STEP = """time = "t"
[domain]
x = [0.1, 2]
t = [0.1, 1]
[[equations]]
lhs = "u_t - u_xx"
[[constraints]]
on = ["initial", "x = 0.1", "x = 2"]
value = "erf(x/(2*sqrt(t)))"
"""


def _verdict(config: str, candidate: str) -> tuple[str | None, bool]:
    problem = make_problem(config)
    exprs = {"u": problem.parse(candidate)}
    return rough_reason(problem, exprs), prove(problem, exprs).proved


@pytest.mark.parametrize("config, candidate", [
    pytest.param(DRUM, "besselj(0, sqrt(x**2 + y**2))", marks=pytest.mark.slow),
    (AIRY, "airyai(x)"), (STEP, "erf(x/(2*sqrt(t)))"),
])
def test_references_that_need_special_functions_are_proved(config, candidate):
    assert _verdict(config, candidate) == (None, True)


@pytest.mark.parametrize("config, candidate, why", [
    (AIRY, "airybi(x)", None), (STEP, "erfc(x/(2*sqrt(t)))", None),
    pytest.param(DRUM, "besselj(2, sqrt(x**2 + y**2))", None, marks=pytest.mark.slow),
    (DRUM, "besselj(1, sqrt(x**2 + y**2))", "sqrt"),            # r*g(r**2): a cone at the centre
    pytest.param(DRUM, "bessely(0, sqrt(x**2 + y**2))", "bessely", marks=pytest.mark.slow),   # singular at 0
])
def test_wrong_or_singular_references_are_refused(config, candidate, why, monkeypatch):
    monkeypatch.setattr("desyr.verify.intervals.SECONDS", 0.3)     # a sign not shown soon is not shown
    reason, proved = _verdict(config, candidate)
    assert not proved or reason is not None
    if why is not None:
        assert reason is not None and why in reason


def test_intervals_enclose_special_functions_or_say_they_cannot(monkeypatch):
    monkeypatch.setattr("desyr.verify.intervals.SECONDS", 0.3)
    x = sp.Symbol("x", real=True)
    box = {x: mpmath.iv.mpf([0.5, 2])}
    for f in (sp.erf, sp.erfc, sp.sech, sp.coth, lambda a: sp.besselj(0, a), lambda a: sp.besselk(1, a),
              lambda a: sp.besseli(2, a)):
        value = enclose(f(x), box)
        samples = [float(sp.N(f(sp.Float(v)))) for v in np.linspace(0.5, 2, 7)]
        assert all(value.a <= s <= value.b for s in samples)
    with pytest.raises(Undefined):
        enclose(sp.airyai(x), box)            # no rule on a box: not enclosed
    with pytest.raises(Undefined):
        enclose(sp.bessely(0, x), {x: mpmath.iv.mpf([-1, 1])})
    # the documented fallback: no rule, so no sign is claimed (callers treat it as failure)
    assert sign_on(sp.airyai(x) + 2, {x: (-2, 2)}, strict=True) == "unknown"
    assert sign_on(sp.erf(x) + 1, {x: (-2, 2)}, strict=True) == "positive"


# ------------------------------------------------------------------ exports
X2 = RNG.uniform(0.3, 2.0, (5, 2))
VARS = ["x", "y"]
x_, y_ = sp.symbols("x y", real=True)
#: the target -> a solution with every special function that target has
EXPORTED = {
    "numpy": sp.besselj(0, x_) + sp.bessely(1, x_ + y_) + sp.besseli(3, y_) + sp.besselk(1, x_) + sp.erf(y_)
    + sp.erfc(x_) + sp.airyai(x_) + sp.airybi(-y_) + sp.sech(x_) + sp.csch(y_) + sp.coth(x_ * y_)
    + sp.besselj(sp.Rational(3, 2), x_),
    "torch": sp.besseli(0, y_) + sp.besseli(1, x_) + sp.besselk(0, y_) + sp.besselk(1, x_ + y_) + sp.erf(y_)
    + sp.erfc(x_) + sp.sech(x_) + sp.coth(y_),
    "jax": sp.besseli(0, x_ + y_) + sp.besseli(1, x_) + sp.erf(y_) + sp.erfc(x_) + sp.csch(x_),
    "c": sp.besselj(2, x_) + sp.bessely(0, y_) + sp.erf(x_ * y_) + sp.erfc(y_) + sp.sech(x_) + sp.coth(y_),
}
EXPORTED["fortran"] = EXPORTED["c"]


def _expected(expr: sp.Expr) -> np.ndarray:
    f = sp.lambdify([x_, y_], expr, modules="mpmath")
    return np.array([[float(f(mpmath.mpf(a), mpmath.mpf(b)))] for a, b in X2])


def _exported_values(backend: str) -> tuple[np.ndarray, np.ndarray]:
    """The solution's values by ``to_callable`` and by the exported code's own ``solution``."""
    values = np.asarray(to_callable({"u": EXPORTED[backend]}, VARS, backend)(X2))
    namespace: dict = {}
    exec(compile(export({"u": EXPORTED[backend]}, VARS, backend), "<export>", "exec"), namespace)  # noqa: S102
    return values, np.asarray(namespace["solution"](X2))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("torch", marks=pytest.mark.slow),
                                     pytest.param("jax", marks=pytest.mark.slow)])
def test_python_exports_agree_with_mpmath(backend):
    if importlib.util.find_spec(backend) is None:
        pytest.skip(f"{backend} is not installed")
    # JAX runs threads of its own and the suite forks: it is loaded in a child only (conftest.py)
    values, exported = in_a_fresh_process(_exported_values, backend) if backend == "jax" else _exported_values(backend)
    assert np.allclose(values, _expected(EXPORTED[backend]), rtol=1e-12, atol=1e-13)
    assert np.allclose(exported, values, rtol=1e-14, atol=1e-15)


def _compiled(tmp_path, compiler: str, suffix: str, extra: list[str]) -> np.ndarray:
    src = tmp_path / f"solution.{suffix}"
    src.write_text(export({"u": EXPORTED[suffix if suffix == "c" else "fortran"]}, VARS,
                          "c" if suffix == "c" else "fortran"))
    lib = tmp_path / "libsolution.so"
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", *extra, str(src), "-o", str(lib), "-lm"],
                   check=True, capture_output=True, cwd=tmp_path)
    loaded = ctypes.CDLL(str(lib))
    loaded.desyr_solution.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    Xc, out = np.ascontiguousarray(X2), np.empty((X2.shape[0], 1))
    loaded.desyr_solution(X2.shape[0], Xc.ctypes.data, out.ctypes.data)
    return out


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler (gcc) on this machine")
@pytest.mark.parametrize("std", ["-std=c99", "-std=gnu99"])
def test_c_export_compiles_and_agrees_with_mpmath(tmp_path, std):
    assert np.allclose(_compiled(tmp_path, "gcc", "c", [std]), _expected(EXPORTED["c"]), rtol=1e-12, atol=1e-13)


@pytest.mark.skipif(shutil.which("gfortran") is None,
                    reason="gfortran not installed (./dev test installs it where apt-get can): Fortran export not compiled")
def test_fortran_export_compiles_and_agrees_with_mpmath(tmp_path):
    values = _compiled(tmp_path, "gfortran", "f90", ["-std=f2008"])
    assert np.allclose(values, _expected(EXPORTED["fortran"]), rtol=1e-12, atol=1e-13)


def test_fortran_julia_and_latex_texts_name_the_functions():
    fortran = export({"u": EXPORTED["fortran"]}, VARS, "fortran")
    assert "bessel_jn(2, x)" in fortran and "bessel_yn(0, y)" in fortran and "erfc(y)" in fortran
    julia = export({"u": EXPORTED["numpy"]}, VARS, "julia")
    assert "using SpecialFunctions" in julia and "airybi(-y)" in julia and "besselk(1, x)" in julia
    assert "J_{0}" in export({"u": EXPORTED["numpy"]}, VARS, "latex")


@pytest.mark.parametrize("expr, target, words", [
    (sp.airybi(x_), "torch", "airybi"), (sp.besselj(2, x_), "torch", "order 2"), (sp.besselk(0, x_), "jax", "besselk"),
    (sp.besseli(0, x_), "c", "besseli"), (sp.besselj(sp.Rational(1, 2), x_), "fortran", "only integer orders"),
    (sp.airyai(x_), "c", "airyai"),
])
def test_a_target_without_a_function_says_so_in_one_line(expr, target, words):
    with pytest.raises(ValueError) as info:
        export({"u": expr}, ["x"], target)
    assert words in str(info.value) and "numpy" in str(info.value) and "\n" not in str(info.value)
