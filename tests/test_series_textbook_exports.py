"""The exports of the issue's four textbook series (issue 46, acceptance 1): every target writes a
hyperbolic quotient so that no factor overflows (``sinh(n*pi*y)/sinh(n*pi)`` overflows past n ~ 226
and gave NaN), and agrees with an independent evaluation of the textbook series to 1e-8 at interior
points: mpmath at 30 digits with the terms the points need, or d'Alembert's closed form for the string
(its series has no decay in time)."""
from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess

import mpmath
import numpy as np
import pytest
import sympy as sp
from desyr_sympy import series
from desyr_sympy.shared.forms import coordinates
from helpers import in_a_fresh_process

from desyr.config.loading import load_problem
from desyr.exact import export
from desyr.symbolic.expressions import expression_text
from desyr.symbolic.numeric import evaluate_series
from desyr.symbolic.series import stable_term

AGREE = 1e-8
#: interior points: away from the sides where the data sit (a series there converges only like 1/n**3)
INSIDE = (0.05, 0.95)


def _problem(name: str):
    return load_problem(f"textbook:{name}")


def _domain(problem) -> dict[str, tuple[float, float]]:
    return {v.name: (float(v.lo), float(v.hi)) for v in problem.variables}


def _points(problem, count: int = 6) -> np.ndarray:
    rng = np.random.default_rng(11)
    return np.column_stack([v.lo + (v.hi - v.lo) * rng.uniform(*INSIDE, count) for v in problem.variables])


def _textbook_values(problem, X: np.ndarray) -> np.ndarray:
    """The textbook series of the config (its reference) at the rows of ``X``, independently: mpmath at 30
    digits, each sum cut where its terms have fallen below 1e-20 for 20 indices running (every point here is
    at least 0.05 from the data's side or from t = 0, where the terms decay exponentially); the string by
    d'Alembert: half the sum of the odd, 2-periodic extension of its initial shape carried both ways."""
    ref = problem.reference["u"]
    symbols = problem.symbols
    if problem.name == "plucked_string":
        def shape(s: mpmath.mpf) -> mpmath.mpf:
            s = mpmath.fmod(mpmath.fmod(s, 2) + 2, 2)
            return s * (1 - s) if s <= 1 else -(s - 1) * (2 - s)
        with mpmath.workdps(30):
            return np.array([float((shape(mpmath.mpf(x) - t) + shape(mpmath.mpf(x) + t)) / 2) for x, t in X])
    (total,) = ref.atoms(sp.Sum)
    (index, lower, _), = total.limits
    term = sp.lambdify([index, *symbols], total.function, modules="mpmath")
    rest = sp.lambdify(symbols, ref.xreplace({total: 0}), modules="mpmath")
    factor = sp.lambdify(symbols, ref.coeff(total), modules="mpmath")
    out = []
    with mpmath.workdps(30):
        for row in X:
            point = [mpmath.mpf(float(v)) for v in row]
            value, small, n = mpmath.mpf(0), 0, int(lower)
            while small < 20:
                piece = term(n, *point)
                value += piece
                small = small + 1 if abs(piece) < 1e-20 else 0
                n += 1
            out.append(float(rest(*point) + factor(*point) * value))
    return np.array(out)


def _answer(problem) -> sp.Expr:
    """The series solver's answer, as a run prints and reads it back."""
    found = series.solve(coordinates(problem))[0]["u"]
    return problem.parse(str(expression_text(found)))


def _numpy_values(expr: sp.Expr, problem, X: np.ndarray) -> np.ndarray:
    namespace: dict = {}
    exec(export({"u": expr}, problem.variable_names, "numpy", domain=_domain(problem)), namespace)  # noqa: S102
    return np.asarray(namespace["solution"](X))[:, 0]


@pytest.mark.parametrize("name", ["laplace_square", "square_torsion"])
def test_a_hyperbolic_quotient_as_the_textbook_writes_it_exports_without_overflow(name: str) -> None:
    problem = _problem(name)
    X = _points(problem)
    values = _numpy_values(problem.reference["u"], problem, X)
    assert np.all(np.isfinite(values))
    assert np.max(np.abs(values - _textbook_values(problem, X))) < AGREE
    own = evaluate_series(problem.reference["u"], problem.symbols, X).values      # the run's own numbers too
    assert np.max(np.abs(own - _textbook_values(problem, X))) < AGREE


def test_the_stable_form_combines_the_exponentials_and_drops_what_the_box_decides() -> None:
    n = sp.Symbol("n", integer=True, nonnegative=True)
    x, y = sp.symbols("x y", real=True)
    written = stable_term(sp.sin(n * sp.pi * x) * sp.sinh(n * sp.pi * y) / sp.sinh(n * sp.pi),
                          {x: (0.0, 1.0), y: (0.0, 1.0), n: (1.0, np.inf)})
    assert not written.has(sp.sinh, sp.Abs, sp.sign)
    growing = [e for e in written.atoms(sp.exp) if not e.args[0].xreplace({n: 1000, y: 1}).is_nonpositive]
    assert not growing, written             # every exponential is at most 1 on the box: none overflows
    at = {n: 500, x: sp.Rational(3, 10), y: sp.Rational(7, 10)}
    exact = (sp.sin(n * sp.pi * x) * sp.sinh(n * sp.pi * y) / sp.sinh(n * sp.pi)).xreplace(at)
    assert abs(float(written.xreplace(at)) - float(exact.evalf(40))) < 1e-300 + 1e-12 * abs(float(exact.evalf(40)))
    plain = sp.exp(-n**2 * sp.pi**2 * y) * sp.sin(n * sp.pi * x)
    assert stable_term(plain) == plain


def _c_values(text: str, compiler: str, suffix: str, flags: list[str], X: np.ndarray, tmp_path) -> np.ndarray:
    source = tmp_path / f"solution.{suffix}"
    source.write_text(text)
    library = tmp_path / f"lib{suffix}.so"
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", *flags, str(source), "-o", str(library), "-lm"],
                   check=True, capture_output=True, cwd=tmp_path)
    lib = ctypes.CDLL(str(library))
    Xc, out = np.ascontiguousarray(X, dtype=np.float64), np.empty(X.shape[0])
    lib.desyr_solution.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    lib.desyr_solution(X.shape[0], Xc.ctypes.data, out.ctypes.data)
    return out


def _python_values(texts: list[str], backend: str, points: list[np.ndarray]) -> list[np.ndarray]:
    """Exported modules for torch or JAX, each run on its points (JAX in a fresh process: tests/conftest.py)."""
    out = []
    for text, X in zip(texts, points):
        namespace: dict = {}
        exec(text, namespace)  # noqa: S102
        data = X
        if backend == "torch":
            import torch
            data = torch.as_tensor(X)
        out.append(np.asarray(namespace["solution"](data))[:, 0])
    return out


ISSUE = ("heat_rod", "laplace_square", "plucked_string", "square_torsion")


@pytest.fixture(scope="module")
def answers() -> dict[str, tuple[object, dict[str, sp.Expr], np.ndarray, np.ndarray]]:
    """Each issue problem's answer from the series solver, its interior points and the textbook's values."""
    out = {}
    for name in ISSUE:
        problem = _problem(name)
        answer = _answer(problem)
        assert answer.has(sp.Sum)
        X = _points(problem)
        out[name] = (problem, {"u": answer}, X, _textbook_values(problem, X))
    return out


def _agree(values: np.ndarray, expected: np.ndarray, target: str) -> None:
    assert np.all(np.isfinite(values)), target
    assert np.max(np.abs(values - expected)) < AGREE, (target, np.max(np.abs(values - expected)))


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["numpy", "torch", "jax"])
def test_the_python_exports_of_the_answers_agree_with_the_textbook(answers, backend: str) -> None:
    if importlib.util.find_spec(backend) is None:
        pytest.skip(f"{backend} not installed")
    # JAX (its own process, seconds to start) on the two hyperbolic quotients, which once overflowed
    cases = [c for name, c in answers.items() if backend != "jax" or name in ("laplace_square", "square_torsion")]
    texts = [export(exprs, problem.variable_names, backend, domain=_domain(problem)) for problem, exprs, _, _ in cases]
    points = [X for _, _, X, _ in cases]
    run = in_a_fresh_process if backend == "jax" else (lambda fn, *args: fn(*args))
    for (problem, _, _, expected), values in zip(cases, run(_python_values, texts, backend, points)):
        _agree(values, expected, f"{backend}: {problem.name}")


@pytest.mark.slow
@pytest.mark.parametrize("target", ["c", "fortran"])
def test_the_compiled_exports_of_the_answers_agree_with_the_textbook(answers, target: str, tmp_path) -> None:
    compiler, suffix, flags = {"c": ("gcc", "c", ["-std=c99"]), "fortran": ("gfortran", "f90", ["-std=f2008"])}[target]
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler} on this machine")
    for problem, exprs, X, expected in answers.values():
        folder = tmp_path / problem.name
        folder.mkdir()
        text = export(exprs, problem.variable_names, target, domain=_domain(problem))
        _agree(_c_values(text, compiler, suffix, flags, X, folder), expected, f"{target}: {problem.name}")


@pytest.mark.slow
def test_the_julia_exports_of_the_answers_write_no_hyperbolic_quotient(answers) -> None:
    for problem, exprs, _, _ in answers.values():       # no Julia here to run them: their code is written alike
        code = [line for line in export(exprs, problem.variable_names, "julia", domain=_domain(problem)).splitlines()
                if not line.startswith("#")]
        assert not any("sinh(" in line or "cosh(" in line for line in code), problem.name
