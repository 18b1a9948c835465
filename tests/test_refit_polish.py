"""The Gauss-Newton polish of a converged refit (plugins/desyr_scipy/refiner.py) and the option specs."""
import numpy as np
import pytest
from desyr_scipy.refiner import ScipyRefiner, polish

from desyr.errors import ComponentError
from desyr.model.candidates import Candidate
from desyr.model.points import make_point_sets
from desyr.stages.run_residuals import relative_l2

BURGERS_SEARCH = "0.499879 + 0.500090*tanh(2.492718*t - 4.987499*x)"


@pytest.fixture(scope="module")
def burgers(registry):
    from desyr.config.loading import load_problem

    problem = load_problem("paper:burgers", registry)
    return problem, make_point_sets(problem, 1)


def _refit(problem, points, text, **options):
    refiner = ScipyRefiner(starts=1, **options)
    return refiner.refine(Candidate("c", {"u": problem.parse(text)}), problem, points)


@pytest.mark.slow
@pytest.mark.parametrize("jacobian", ["exact", "2-point"])
def test_polish_takes_an_early_stop_to_round_off(burgers, jacobian):
    """A loose tolerance stops trf at rel L2 ~4e-7; the polish must reach the float64 floor."""
    problem, points = burgers
    rough = _refit(problem, points, BURGERS_SEARCH, tolerance=1e-2, polish_steps=0, jacobian=jacobian)
    polished = _refit(problem, points, BURGERS_SEARCH, tolerance=1e-2, jacobian=jacobian)
    assert rough.converged and polished.converged
    assert relative_l2(problem, rough.expressions, points.verify) > 1e-9        # why the polish exists
    assert relative_l2(problem, polished.expressions, points.verify) <= 1e-13
    assert polished.objective < rough.objective


def test_default_refit_of_paper_candidate_is_at_round_off(burgers):
    problem, points = burgers
    out = ScipyRefiner().refine(Candidate("c", {"u": problem.parse(BURGERS_SEARCH)}), problem, points)
    assert relative_l2(problem, out.expressions, points.verify) <= 1e-13


def test_polish_keeps_only_steps_that_lower_the_cost():
    """On an inconsistent system (no zero residual) Gauss-Newton lands on the minimum at once;
    every further step would not lower the cost and is refused."""
    A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    b = np.array([1.0, 2.0, 0.0])
    fun = lambda a: A @ a - b                                  # noqa: E731
    x, cost, used = polish(fun, lambda a: A, np.zeros(2), steps=5)
    best = np.linalg.lstsq(A, b, rcond=None)[0]
    assert used == 1 and np.allclose(x, best)
    assert cost == pytest.approx(0.5 * np.sum(fun(best) ** 2))


def test_polish_refuses_a_step_that_raises_the_cost():
    """A wrong Jacobian sends the step uphill: the start is returned unchanged."""
    fun = lambda a: np.array([a[0] - 1.0])                     # noqa: E731
    x, cost, used = polish(fun, lambda a: np.array([[-1.0]]), np.array([0.5]), steps=3)
    assert used == 0 and x[0] == 0.5 and cost == pytest.approx(0.125)


@pytest.mark.parametrize("name, value", [("starts", 0), ("tolerance", 0.0), ("constraint_weight", -1.0),
                                         ("constraint_weight", float("inf")), ("jacobian", "central"),
                                         ("max_nfev", 0), ("timeout", 0.0), ("polish_steps", -1),
                                         ("starts", 2.5), ("merge_redundant_scales", 1)])
def test_option_specs_refuse_bad_values(name, value):
    with pytest.raises(ComponentError, match=name):
        ScipyRefiner(**{name: value})


def test_option_specs_accept_and_convert():
    r = ScipyRefiner(constraint_weight=10, max_nfev=None, polish_steps=0, jacobian="3-point")
    assert r.settings["constraint_weight"] == 10.0 and isinstance(r.settings["constraint_weight"], float)
    assert r.settings["polish_steps"] == 0 and r.settings["max_nfev"] is None


def test_the_simplify_option_and_the_identification_refits_that_turn_it_off():
    import sympy as sp

    from desyr.model.constants import METHOD
    from desyr.stages.refit import reduction_refiner
    from desyr.testing import make_problem

    problem = make_problem()                    # u'' = -pi^2 sin(pi x) on [0, 1]
    points = make_point_sets(problem, 0)
    text = "sin(pi*x)**2 + cos(pi*x)**2 - 1 + sin(pi*x)"     # no free constant: the refit is "fixed"
    (x,) = problem.symbols
    kept = _refit(problem, points, text, simplify=False)
    assert kept.status == "fixed" and kept.expressions["u"] == problem.parse(text)
    assert _refit(problem, points, text).expressions["u"] == sp.sin(sp.pi * x)
    plain = ScipyRefiner(timeout=30.0)
    for_naming = reduction_refiner(plain, METHOD, simplify=False)
    assert type(for_naming) is ScipyRefiner and for_naming.settings["simplify"] is False
    assert for_naming.settings["timeout"] == min(30.0, METHOD.cleaning_refit_seconds)
    assert reduction_refiner(plain, METHOD).settings["simplify"] is True and plain.settings["simplify"] is True


def test_a_non_finite_jacobian_ends_the_start_before_lapack_sees_it(capfd):
    """A derivative that is infinite or undefined at some points (a finite residual): the start fails
    with that reason, nothing is printed by LAPACK, and no LinAlgError breaks the refiner's contract."""
    import time
    from types import SimpleNamespace

    def vector(a):
        return np.array([a[0] - 1.0, a[1] - 2.0, 0.5])

    def jacobian(a):
        return np.array([[1.0, 0.0], [0.0, np.nan], [np.inf, 0.0]])

    residuals = SimpleNamespace(vector=vector, jacobian=jacobian)
    refiner = ScipyRefiner(starts=2)
    runs, failures, timed_out = refiner._multistart(residuals, np.array([0.3, 0.4]), time.perf_counter())
    assert runs == [] and not timed_out and len(failures) == 2
    assert all("non-finite Jacobian" in f for f in failures)
    outcome = refiner._outcome(runs, failures, timed_out, np.array([0.3, 0.4]))
    assert outcome.status == "failed" and "non-finite Jacobian" in outcome.reason
    x, cost, used = polish(vector, jacobian, np.array([0.3, 0.4]), 5)       # no step to take
    assert used == 0 and list(x) == [0.3, 0.4]
    assert "DLASCL" not in capfd.readouterr().err
