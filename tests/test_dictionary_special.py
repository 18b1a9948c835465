"""The dictionary's special columns: erf of a similarity variable and Bessel functions of order 0 of a
radius from a round shape's centre (desyr_dictionary.special), built from the geometry a SearchTask
carries (its time variable and the centres of its round shapes)."""
import numpy as np
import pytest
import sympy as sp
from desyr_dictionary.plugin import DictionarySearcher
from scipy import special as sc

from desyr.config.loading import load_problem
from desyr.model.search import SearchTask
from desyr.stages.search import round_centres

OPS = ["+", "-", "*", "/"]


def _best(result):
    return min(result.front, key=lambda m: m.loss)


def _relative_error(expr, symbols, X, y):
    values = sp.lambdify(symbols, expr, ["scipy", "numpy"])(*X.T)
    return float(np.sqrt(np.mean((values - y) ** 2)) / np.sqrt(np.mean(y ** 2)))


def _disk(n, rng, centre=(0.0, 0.0), inner=0.0, outer=1.0):
    P = rng.uniform(-outer, outer, (4 * n, 2))
    r = np.hypot(P[:, 0], P[:, 1])
    return (P[(r < outer) & (r > inner)][:n] + np.array(centre))


def _params(expr, cls):
    return [float(arg) for f in expr.atoms(cls) for arg in f.args[-1].atoms(sp.Float)]


def test_erf_of_the_similarity_variable_is_recovered_exactly():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.uniform(-2, 2, 600), rng.uniform(0.25, 1, 600)])
    f = lambda X: sc.erf(X[:, 0] / (2 * np.sqrt(X[:, 1])))     # noqa: E731
    result = DictionarySearcher().search(SearchTask(X, f(X), ["x", "t"], OPS, [], 30, 0, time="t"))
    assert result.info["coordinates"] == {"x/sqrt(t)": ["erf"]}
    m = _best(result)
    x, t = sp.symbols("x t", real=True)
    assert m.expression.has(sp.erf)
    assert _params(m.expression, sp.erf) == [pytest.approx(0.5, rel=1e-6)]
    fresh = np.column_stack([rng.uniform(-2, 2, 300), rng.uniform(0.25, 1, 300)])
    assert _relative_error(m.expression, [x, t], fresh, f(fresh)) < 1e-6


def test_besselj0_of_the_radius_from_the_centre_is_recovered_exactly():
    rng = np.random.default_rng(2)
    P = _disk(600, rng)
    f = lambda P: sc.j0(2.4048 * np.hypot(P[:, 0], P[:, 1]))     # noqa: E731
    task = SearchTask(P, f(P), ["x", "y"], OPS, [], 30, 0, centres=({"x": 0.0, "y": 0.0},))
    result = DictionarySearcher().search(task)
    assert result.info["coordinates"] == {"r0": ["besselj", "besseli"]}, "no Y0 or K0 where r reaches 0"
    m = _best(result)
    assert _params(m.expression, sp.besselj) == [pytest.approx(2.4048, rel=1e-6)]
    fresh = _disk(300, rng)
    assert _relative_error(m.expression, sp.symbols("x y", real=True), fresh, f(fresh)) < 1e-6


def test_bessel_y0_and_k0_on_an_annulus_off_the_origin():
    rng = np.random.default_rng(3)
    P = _disk(600, rng, centre=(1.0, -0.5), inner=1.0, outer=3.0)
    r = np.hypot(P[:, 0] - 1.0, P[:, 1] + 0.5)
    y = sc.y0(r) + 2 * sc.k0(0.7 * r)
    task = SearchTask(P, y, ["x", "y"], OPS, [], 30, 0, centres=({"x": 1.0, "y": -0.5},))
    result = DictionarySearcher().search(task)
    m = _best(result)
    assert m.expression.has(sp.bessely) and m.expression.has(sp.besselk), m.expression
    assert _relative_error(m.expression, sp.symbols("x y", real=True), P, y) < 1e-6


def test_no_derived_coordinate_without_time_or_a_round_shape_or_when_switched_off():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.uniform(-1, 1, 200), rng.uniform(0, 1, 200)])
    X[0, 1] = 0.0
    y = X[:, 0] ** 2 + X[:, 1]
    box = DictionarySearcher().search(SearchTask(X, y, ["x", "y"], OPS, [], 30, 0))
    assert box.info["coordinates"] == {}
    from_zero = DictionarySearcher().search(SearchTask(X, y, ["x", "t"], OPS, [], 30, 0, time="t"))
    assert from_zero.info["coordinates"] == {}, "t reaches 0: x/sqrt(t) is not finite"
    off = DictionarySearcher(special=[]).search(SearchTask(X + [0, 1], y, ["x", "t"], OPS, [], 30, 0, time="t",
                                                           centres=({"x": 0.0},)))
    assert off.info["coordinates"] == {}


def test_a_run_tells_the_searcher_its_time_and_round_centres(registry):
    annulus = load_problem("geometry:annulus_log", registry)
    assert round_centres(annulus) == ({"x": 0.0, "y": 0.0},)
    cylinder = load_problem("geometry:cylinder_poisson", registry)
    assert round_centres(cylinder) == ({"x": 0.0, "y": 0.0},), "a cylinder's centre lies across its axis"
    assert round_centres(load_problem("geometry:polygon_hole", registry)) == ()
    assert round_centres(load_problem("examples:heat_two_modes", registry)) == ()


def test_make_task_carries_the_geometry_as_a_run_does(registry):
    from desyr.testing.helpers import make_task
    task = make_task(load_problem("special:disk_bessel_heat", registry))
    assert task.time == "t" and task.centres == ({"x": 0.0, "y": 0.0},)
    result = DictionarySearcher().search(make_task(load_problem("special:drum_mode", registry)))
    m = _best(result)
    assert _params(m.expression, sp.besselj) == [pytest.approx(2.0, rel=1e-6)], m.expression
