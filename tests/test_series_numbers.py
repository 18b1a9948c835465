"""Numbers of a series: proved tail bounds (checked against the actual remainders), the eigenvalue
bounds they rest on, vectorised evaluation with the truncation reported, truncate()."""
from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp

from desyr.symbolic.eigen_bounds import at_zero, linear
from desyr.symbolic.eigenvalues import EIGENVALUES, besseljpzero, besseljzero, dinizero, robinroot
from desyr.symbolic.expressions import Vocabulary, parse_expression
from desyr.symbolic.numeric import evaluate, evaluate_series, lambdify
from desyr.symbolic.robin import layout, roots_float
from desyr.symbolic.series import bound_on_part, series_index, sum_bound, tail_bound, truncate

ROD = "Sum(8/(pi**3*(2*k - 1)**3)*sin((2*k - 1)*pi*x)*exp(-(2*k - 1)**2*pi**2*t), (k, 1, oo))"
SERIES = {   # name: (variables, text, box)
    "rod": (["x", "t"], ROD, {"x": (0, 1), "t": (0, 1)}),
    "laplace": (["x", "y"], "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*sinh(n*pi*y)/sinh(n*pi), (n, 1, oo))",
                {"x": (0, 1), "y": (0, 1)}),
    "disk": (["r", "t"], "Sum(8*besselj(0, besseljzero(0, k)*r)*exp(-besseljzero(0, k)**2*t)/(besseljzero(0, k)**3"
                         "*besselj(1, besseljzero(0, k))), (k, 1, oo))", {"r": (0, 1), "t": (0, 1)}),
    "robin": (["x", "t"], "Sum(sin(robinroot(k, 1, 0, 1)*x)*exp(-robinroot(k, 1, 0, 1)**2*t)/robinroot(k, 1, 0, 1)**2,"
                          " (k, 1, oo))", {"x": (0, 1), "t": (0, 1)}),
    "neumann disk": (["r", "t"], "Sum(besselj(0, besseljpzero(0, k)*r)*exp(-besseljpzero(0, k)**2*t)/(besseljpzero(0, k)"
                                 "**2*besselj(0, besseljpzero(0, k))), (k, 1, oo))", {"r": (0, 1), "t": (0, 1)}),
    "double": (["x", "y", "t"], "Sum(Sum(sin(n*pi*x)*sin(m*pi*y)*exp(-(n**2 + m**2)*pi**2*t)/(n*m)**3, (m, 1, oo)),"
                                " (n, 1, oo))", {"x": (0, 1), "y": (0, 1), "t": (0, 1)}),
    "cosh": (["x", "y"], "Sum(cos(n*pi*x)*cosh(n*pi*y)/(n**2*cosh(n*pi)), (n, 1, oo))", {"x": (0, 1), "y": (0, 1)}),
    # a sum of hyperbolic functions in one term (torsion's textbook form): bounded addend by addend
    "two sides": (["x", "y"], "Sum((1 - (-1)**n)*sin(n*pi*x)*(sinh(n*pi*y) + sinh(n*pi*(1 - y)))/(n**3*sinh(n*pi)),"
                              " (n, 1, oo))", {"x": (0, 1), "y": (0, 1)}),
}


def _read(name: str) -> tuple[list[sp.Symbol], sp.Sum, dict[sp.Symbol, tuple[float, float]]]:
    variables, text, box = SERIES[name]
    vocab = Vocabulary(variables, ["u"])
    symbols = [vocab.var_symbols[v] for v in variables]
    return symbols, parse_expression(text, vocab), {vocab.var_symbols[k]: v for k, v in box.items()}


FAST = ("rod", "laplace", "double", "two sides")


@pytest.mark.parametrize("name", FAST)
def test_the_tail_bound_holds_over_the_box_and_the_values_are_right(name: str) -> None:
    _check_bound_and_values(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(SERIES) - set(FAST)))
def test_the_tail_bound_holds_with_named_eigenvalues(name: str) -> None:
    _check_bound_and_values(name)


def _check_bound_and_values(name: str) -> None:
    symbols, series, box = _read(name)
    bound = sum_bound(series, box)
    assert bound is not None
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.uniform(lo, hi, 60) for lo, hi in box.values()])
    X[:5, -1] = box[symbols[-1]][0]                     # the box's edge (t = 0, y = 0) too
    cap = 300 if len(series.limits) == 1 else 60
    long = evaluate_series(series, symbols, X, tolerance=1e-15, cap=cap).values      # within after(cap) of the sum
    for terms in (2, 8):
        short = evaluate_series(truncate(series, terms), symbols, X).values
        assert np.max(np.abs(long - short)) <= bound.after(terms) + bound.after(cap) + 1e-12
    if len(series.limits) == 1:      # two points against SymPy's evaluation, term by term at 30 digits
        index = series.limits[0][0]
        for row in X[:2]:
            at = series.function.xreplace({s: sp.Float(v, 40) for s, v in zip(symbols, row)})
            exact = sum(sp.N(at.xreplace({index: k}), 30) for k in range(1, 21))
            assert abs(float(exact) - evaluate_series(series, symbols, row[None, :]).values[0]) < 1e-9 + bound.after(20)


def test_the_rod_at_t_0_is_its_initial_data_and_its_bound_is_a_cubes_tail() -> None:
    symbols, series, box = _read("rod")
    x = np.linspace(0, 1, 41)
    result = evaluate_series(series, symbols, np.column_stack([x, np.zeros_like(x)]))
    assert np.max(np.abs(result.values - x * (1 - x))) < 1e-8
    assert result.capped and result.terms == 2000 and result.bound is not None and result.bound < 1e-7
    later = evaluate_series(series, symbols, np.column_stack([x, np.full_like(x, 0.1)]))
    assert not later.capped and later.terms < 10 and later.bound is not None and later.bound < 1e-12


def test_coefficients_like_one_over_n_have_no_bound_at_t_0_but_one_where_t_is_positive() -> None:
    vocab = Vocabulary(["x", "t"], ["u"])
    x, t = vocab.var_symbols["x"], vocab.var_symbols["t"]
    cold = parse_expression("Sum(2*(1 - (-1)**n)/(pi*n)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))", vocab)
    assert sum_bound(cold, {x: (0, 1), t: (0, 1)}) is None
    part = bound_on_part(cold, {x: (0, 1), t: (0, 1)})
    assert part is not None and "0.001 <= t" in part.where() and part.after(200) < 1e-10
    values = evaluate_series(cold, [x, t], np.array([[0.5, 0.0], [0.5, 0.2]]))
    assert values.capped and values.bound is None and "no tail bound" in values.report.describe()


def test_a_growing_or_unknown_term_has_no_bound() -> None:
    n, x = series_index("n"), sp.Symbol("x", real=True)
    assert tail_bound(sp.exp(n * x) / n**2, n, 1, {x: (0, 1)}) is None
    assert tail_bound(sp.sin(n * x) / n, n, 1, {x: (0, 1)}) is None
    assert tail_bound(sp.gamma(n * x) / n**3, n, 1, {x: (1, 2)}) is None
    assert tail_bound(sp.sin(n * x) / n**2, n, 1, {}) is None          # x has no range


def test_the_eigenvalue_bounds_hold_for_the_first_hundreds_of_values() -> None:
    k = series_index("k")
    for node in (besseljzero(0, k), besseljzero(2, k), besseljpzero(0, k), besseljpzero(3, k), robinroot(k, 1, 0, 1),
                 robinroot(k, 2, 3, -1), dinizero(0, 2, k), dinizero(3, -2, k)):
        bounds = linear(node, k)
        values = type(node).numpy_values(node.constants, 400)
        ks = np.arange(1, 401)[bounds.start - 1:]
        assert np.all(bounds.lo0 + bounds.lo1 * ks <= values[ks - 1]) and np.all(values[ks - 1] <= bounds.hi0 + bounds.hi1 * ks)
    for call in (sp.besselj(1, besseljzero(0, k)), sp.besselj(3, besseljzero(2, k)), sp.besselj(0, besseljpzero(0, k)),
                 sp.besselj(2, besseljpzero(2, k)), sp.besselj(0, dinizero(0, 2, k)), sp.besselj(2, dinizero(2, sp.Rational(1, 3), k))):
        low, high = at_zero(call, k)
        zero = call.args[1]
        for i in (1, 2, 5, 40, 300):
            at = call.xreplace({k: i}).evalf(30) * sp.sqrt(zero.xreplace({k: i}).evalf(30))
            assert low <= abs(float(at)) <= high


@pytest.mark.slow
def test_robin_roots_are_each_alone_in_their_brackets() -> None:
    for constants in ((1, 0, 1), (0, 1, 1), (-5, 1, 1), (sp.pi, 1, -sp.pi), (10, sp.Rational(1, 100), 3)):
        exact = tuple(sp.sympify(c) for c in constants)
        roots = roots_float(exact, 60)
        a, b, c = (float(v) for v in exact)
        s = np.linspace(1e-6, roots[-1] + 1e-3, 400_000)
        f = (a - b * s * s) * np.sin(s) + c * s * np.cos(s)
        crossings = s[:-1][np.sign(f[:-1]) != np.sign(f[1:])]
        crossings = crossings[crossings > 1e-3]               # a + c = 0 makes s = 0 a (not counted) root
        assert len(crossings) == 60 and np.max(np.abs(crossings - roots)) < 1e-3
        shape = layout(exact)
        assert all(lo < hi for lo, hi in shape.low)
    assert abs(float(robinroot(1, 1, 0, 1).evalf(40)) - 2.028757838110434) < 1e-14


@pytest.mark.slow
def test_dini_roots_are_each_alone_between_consecutive_zeros_of_j() -> None:
    from scipy.special import jv, jvp
    for nu, h in ((0, 2), (1, sp.Rational(1, 2)), (3, -2), (0, sp.Rational(1, 100)), (2, 7)):
        roots = dinizero.numpy_values((sp.Integer(nu), sp.sympify(h)), 60)
        s = np.linspace(1e-6, roots[-1] + 1e-3, 400_000)
        g = s * jvp(nu, s, 1) + float(h) * jv(nu, s)
        crossings = s[:-1][np.sign(g[:-1]) != np.sign(g[1:])]
        assert len(crossings) == 60 and np.max(np.abs(crossings - roots)) < 1e-3
        zeros = besseljzero.numpy_values((sp.Integer(nu),), 60)
        assert np.all(roots < zeros) and np.all(roots[1:] > zeros[:-1])
    assert abs(float(dinizero(0, 1, 1).evalf(40)) - 1.2557837117945935) < 1e-14     # s*J1(s) = J0(s)


def test_thousands_of_terms_at_thousands_of_points_take_seconds_and_residuals_cancel() -> None:
    symbols, series, _ = _read("rod")
    x, t = symbols
    X = np.random.default_rng(0).random((2000, 2))
    X[:, 1] *= 1e-6                                     # so close to t = 0 that the cap is reached
    start = time.perf_counter()
    result = evaluate_series(series, symbols, X)
    assert result.terms == 2000 and time.perf_counter() - start < 5.0
    residual = sp.diff(series, t) - sp.diff(series, x, 2)
    assert np.max(np.abs(evaluate(residual, symbols, X))) < 1e-9
    function = lambdify(symbols, [residual])
    function(*X.T)
    assert "terms" in function.report.describe()


@pytest.mark.parametrize("name", ["laplace", "two sides"])      # data on one side; on two opposite sides
def test_points_far_from_the_data_keep_fewer_terms_and_their_values_agree(monkeypatch, name: str) -> None:
    import desyr.symbolic.numeric as series_numeric
    symbols, series, _ = _read(name)
    X = np.random.default_rng(5).random((2000, 2))
    work = []
    block = series_numeric.SumEvaluator._block

    def counted(self, start, stop, arrays, shape):
        work.append((stop - start) * int(np.prod(shape)))
        return block(self, start, stop, arrays, shape)
    monkeypatch.setattr(series_numeric.SumEvaluator, "_block", counted)
    split = evaluate_series(series, symbols, X)
    split_work, work[:] = sum(work), []
    monkeypatch.setattr(series_numeric, "FEW_TERMS", 10**9)         # every point in one box
    monkeypatch.setattr(series_numeric, "_VALUES", {})               # ... measured again
    whole = evaluate_series(series, symbols, X)
    assert whole.terms == split.terms == 2000       # the points next to the data's sides need the cap either way
    assert split.bound is not None and whole.bound is not None and split.bound <= whole.bound
    assert np.max(np.abs(split.values - whole.values)) < 1e-12
    assert split_work < sum(work) / 5               # the points away from those sides need a few dozen terms


@pytest.mark.parametrize("name", ["two sides", "disk"])
def test_a_bound_read_after_other_boxes_is_the_bound_read_afresh(name: str) -> None:
    """The term's box-free reading is shared across boxes (desyr.symbolic.majorant.remembered): what one box
    left behind must not change another's bound."""
    import desyr.symbolic.majorant_form as majorant
    symbols, series, box = _read(name)
    boxes = [box, *({s: (lo + (hi - lo) * a, lo + (hi - lo) * b) for s, (lo, hi) in box.items()}
                    for a, b in ((0.1, 0.4), (0.5, 0.55), (0.0, 0.02)))]
    shared = [sum_bound(series, b) for b in boxes]
    for b, seen in zip(boxes, shared):
        majorant._READ.clear()
        fresh = sum_bound(series, b)
        assert (fresh is None) == (seen is None)
        assert fresh is None or seen is None or [fresh.after(k) for k in (1, 10, 100)] == [seen.after(k) for k in (1, 10, 100)]
    assert any(s is not None for s in shared)


def test_a_sum_at_the_same_points_is_computed_once_and_each_caller_gets_its_own_values(monkeypatch) -> None:
    import desyr.symbolic.numeric as series_numeric
    symbols, series, _ = _read("rod")
    X = np.random.default_rng(9).random((300, 2))
    monkeypatch.setattr(series_numeric, "_VALUES", {})
    blocks = []
    block = series_numeric.SumEvaluator._block
    monkeypatch.setattr(series_numeric.SumEvaluator, "_block", lambda self, *a: blocks.append(1) or block(self, *a))
    first = evaluate_series(series, symbols, X)
    made = len(blocks)
    first.values[:] = 0.0                                             # a caller's change stays its own
    again = evaluate_series(series, symbols, X)
    assert len(blocks) == made and again.terms == first.terms and again.bound == first.bound
    assert np.all(again.values != 0.0)
    evaluate_series(series, symbols, X[:-1])                          # other points: computed
    assert len(blocks) > made


@pytest.mark.parametrize("name", sorted(EIGENVALUES))
def test_every_named_eigenvalue_prints_in_latex_raised_to_a_power(name: str) -> None:
    """A heat series' rate is the eigenvalue squared: SymPy hands the exponent to the function's printer
    (the report's LaTeX of every Robin and disk heat run crashed on it)."""
    from desyr.symbolic.eigenvalues import ARITY

    cls = EIGENVALUES[name]
    n, t = sp.Symbol("n", integer=True, positive=True), sp.Symbol("t")
    value = cls(*[n if i == cls.index_position else sp.Integer(i + 2) for i in range(ARITY[name])])
    text = sp.latex(sp.exp(-value**2 * t) * value**3)
    assert "^{2}" in text and "^{3}" in text and sp.latex(value) in text


@pytest.mark.parametrize("name", sorted(EIGENVALUES))
def test_a_named_root_at_a_given_index_has_an_interval_and_a_sign(name: str) -> None:
    """A growing mode's root stands outside its sum, raised to a negative power: the proof's pole check
    encloses it (heat_inflow was Not exact: "could not be shown to keep its sign")."""
    from desyr.symbolic.eigenvalues import ARITY
    from desyr.verify.intervals import enclose, sign_on

    cls = EIGENVALUES[name]
    constants = {"besseljzero": [0], "besseljpzero": [1], "robinroot": [0, 1, -1], "dinizero": [0, 1],
                 "robinsinhroot": [0, 1, -1]}[name]
    args = [sp.Integer(c) for c in constants]
    args.insert(cls.index_position, sp.Integer(1))
    value = cls(*args[:ARITY[name]])
    interval = enclose(value, {})
    assert 0 < interval.a <= float(value.evalf(30)) <= interval.b and interval.b - interval.a < 1e-12
    assert sign_on(value**-3, {}, strict=True) == "positive"
