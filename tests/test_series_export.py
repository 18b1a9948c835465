"""Series in every export: a truncated sum, the terms kept and the tail bound stated in a comment, named
eigenvalues as precomputed literals; each exported program runs (C and Fortran compiled where the
compilers exist) and agrees with the series' own evaluation to the stated bound."""
from __future__ import annotations

import ctypes
import importlib.util
import re
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp
from helpers import in_a_fresh_process

from desyr.exact import export, to_callable
from desyr.symbolic.expressions import Vocabulary, parse_expression
from desyr.symbolic.numeric import evaluate_series

SERIES = {   # name: (variables, text, domain)
    "rod": (["x", "t"], "x*(1 - x)/10 + Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))",
            {"x": (0, 1), "t": (0, 1)}),
    "disk": (["r", "t"], "Sum(8*besselj(0, besseljzero(0, k)*r)*exp(-besseljzero(0, k)**2*t)/(besseljzero(0, k)**3"
                         "*besselj(1, besseljzero(0, k))), (k, 1, oo))", {"r": (0, 1), "t": (0, 1)}),
    "robin": (["x", "t"], "Sum(sin(robinroot(k, 1, 0, 1)*x)*exp(-robinroot(k, 1, 0, 1)**2*t)/robinroot(k, 1, 0, 1)**2,"
                          " (k, 1, oo))", {"x": (0, 1), "t": (0, 1)}),
    "growing": (["x", "t"], "cosh(robinsinhroot(1, 0, 1, -1)*x/2)*exp(robinsinhroot(1, 0, 1, -1)**2*t/4) + Sum(sin("
                            "robinroot(k, 0, 1, -1))*cos(robinroot(k, 0, 1, -1)*x/2)*exp(-robinroot(k, 0, 1, -1)**2*t/4)/"
                            "robinroot(k, 0, 1, -1)**3, (k, 1, oo))", {"x": (0, 2), "t": (0, 1)}),
    "dini": (["r", "t"], "Sum(4*besselj(0, dinizero(0, 2, k)*r)*exp(-dinizero(0, 2, k)**2*t)/((dinizero(0, 2, k)**2 + 4)"
                         "*besselj(0, dinizero(0, 2, k))), (k, 1, oo))", {"r": (0, 1), "t": (0, 1)}),
    "double": (["x", "y", "t"], "Sum(Sum((1 - (-1)**m)*sin(n*pi*x)*sin(m*pi*y)*exp(-(n**2 + m**2)*pi**2*t)/(n*m)**3,"
                                " (m, 1, oo)), (n, 1, oo))", {"x": (0, 1), "y": (0, 1), "t": (0, 1)}),
    "cold": (["x", "t"], "Sum(2*(1 - (-1)**n)/(pi*n)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))",
             {"x": (0, 1), "t": (0, 1)}),
}


def _case(name: str) -> tuple[dict[str, sp.Expr], list[str], dict[str, tuple[float, float]], np.ndarray, np.ndarray]:
    variables, text, domain = SERIES[name]
    vocab = Vocabulary(variables, ["u"])
    expr = parse_expression(text, vocab)
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.uniform(lo, hi, 40) for lo, hi in domain.values()])
    X[:, -1] = np.maximum(X[:, -1], 0.02)               # interior times: the bounds there are tiny
    exact = evaluate_series(expr, [vocab.var_symbols[v] for v in variables], X, tolerance=1e-16, cap=4000).values
    return {"u": expr}, variables, domain, X, exact


def _stated_bound(text: str) -> float:
    """The bound the export's comment states where t >= 0.001 (or on the whole domain)."""
    found = re.findall(r"<= ([0-9.e+-]+) where", text) or re.findall(r"<= ([0-9.e+-]+) on the whole domain", text)
    return float(found[0]) if found else 1e-12


@pytest.mark.parametrize("name", sorted(SERIES))
def test_the_numpy_export_states_its_truncation_and_agrees(name: str) -> None:
    exprs, variables, domain, X, exact = _case(name)
    text = export(exprs, variables, "numpy", domain=domain)
    assert "written truncated to" in text and "docs/series.md" in text
    if name == "cold":
        assert "no tail bound holds on the whole domain" in text
    if name in ("disk", "robin", "dini"):
        assert "precomputed to double precision" in text and "desyr_table0 = numpy.array([" in text
    namespace: dict = {}
    exec(compile(text, "<export>", "exec"), namespace)       # noqa: S102 - the test runs what it exported
    values = namespace["solution"](X)[:, 0]
    assert np.max(np.abs(values - exact)) <= _stated_bound(text) + 1e-12


def test_the_python_api_callable_evaluates_the_series() -> None:
    exprs, variables, _, X, exact = _case("rod")
    assert np.max(np.abs(to_callable(exprs, variables)(X)[:, 0] - exact)) < 1e-12


def test_latex_and_sympy_write_the_series_exactly() -> None:
    exprs, variables, domain, _, _ = _case("rod")
    assert "\\sum_{n=1}^{\\infty}" in export(exprs, variables, "latex", domain=domain)
    namespace: dict = {}
    exec(export(exprs, variables, "sympy", domain=domain), namespace)      # noqa: S102
    assert namespace["SOLUTION"]["u"] == exprs["u"]


def _shared(tmp_path, source: str, compiler: str, suffix: str, flags: list[str]) -> ctypes.CDLL:
    src = tmp_path / f"solution.{suffix}"
    src.write_text(source)
    lib = tmp_path / "libsolution.so"
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", *flags, str(src), "-o", str(lib), "-lm"], check=True,
                   capture_output=True, cwd=tmp_path)
    return ctypes.CDLL(str(lib))


def _run(lib: ctypes.CDLL, X: np.ndarray) -> np.ndarray:
    Xc, out = np.ascontiguousarray(X, dtype=np.float64), np.empty(X.shape[0])
    lib.desyr_solution.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    lib.desyr_solution(X.shape[0], Xc.ctypes.data, out.ctypes.data)
    return out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler (gcc) on this machine")
@pytest.mark.parametrize("name", ["rod", "disk", "robin", "double"])
def test_the_c_export_compiles_and_agrees(tmp_path, name: str) -> None:
    exprs, variables, domain, X, exact = _case(name)
    text = export(exprs, variables, "c", domain=domain)
    assert text.startswith("// u: ")
    values = _run(_shared(tmp_path, text, "gcc", "c", ["-std=c99"]), X)
    assert np.max(np.abs(values - exact)) <= _stated_bound(text) + 1e-12


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gfortran") is None, reason="gfortran not installed: Fortran export not compiled")
@pytest.mark.parametrize("name", ["rod", "disk", "robin", "double"])
def test_the_fortran_export_compiles_and_agrees(tmp_path, name: str) -> None:
    exprs, variables, domain, X, exact = _case(name)
    text = export(exprs, variables, "fortran", domain=domain)
    values = _run(_shared(tmp_path, text, "gfortran", "f90", ["-std=f2008"]), X)
    assert np.max(np.abs(values - exact)) <= _stated_bound(text) + 1e-12


def test_the_julia_export_loops_over_its_terms() -> None:
    exprs, variables, domain, _, _ = _case("disk")
    text = export(exprs, variables, "julia", domain=domain)
    assert "const desyr_table0 = [2.40482555769577" in text and "for desyr_k0 in 0:" in text
    assert "u(r, t) = desyr_s0(r, t)" in text


def _backend_errors(backend: str) -> tuple[float, float]:
    exprs, variables, domain, X, exact = _case("rod")
    namespace: dict = {}
    exec(export(exprs, variables, backend, domain=domain), namespace)      # noqa: S102
    values = np.asarray(namespace["solution"](X))[:, 0]
    called = np.asarray(to_callable(exprs, variables, backend)(X))[:, 0]
    return float(np.max(np.abs(values - exact))), float(np.max(np.abs(called - exact)))


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_the_torch_and_jax_exports_run_and_agree(backend: str) -> None:
    if importlib.util.find_spec(backend) is None:
        pytest.skip(f"{backend} not installed")
    # JAX runs threads of its own and the suite forks: it is loaded only in a child
    errors = in_a_fresh_process(_backend_errors, backend) if backend == "jax" else _backend_errors(backend)
    assert max(errors) < 1e-12


def test_two_forms_of_one_laplace_series_match_without_simplify(monkeypatch) -> None:
    """The torsion answer's shifted cosh and the reference's sum of sinh: the exponentials cancel over one
    denominator (desyr.exact.series_match), and a wrong coefficient does not."""
    import desyr.exact.series_match as series_match
    from desyr.config.loading import load_problem
    problem = load_problem("textbook:square_torsion")
    answer = problem.parse("x*(1 - x) + Sum((-4 + 4*(-1)**n)*cosh(pi*n*(-1/2 + y))*sin(pi*x*n)/(pi**3*n**3*cosh(pi*n/2)), "
                           "(n, 1, oo))")
    monkeypatch.setattr(series_match, "bounded_simplify", lambda *a, **k: None)     # the cheap reading alone
    spans = [(float(v.lo), float(v.hi)) for v in problem.variables]
    (total,) = series_match.merge_sums(sp.expand(answer - problem.reference["u"])).atoms(sp.Sum)
    assert series_match._term_is_zero(total)
    wrong = answer.xreplace({sp.Integer(-4): sp.Integer(-5)})
    (off,) = series_match.merge_sums(sp.expand(wrong - problem.reference["u"])).atoms(sp.Sum)
    assert not series_match._term_is_zero(off)
    assert series_match.series_match(answer, problem.reference["u"], problem.symbols, spans, 0)
