"""The series proof's parts on their own: the shape of an answer, the Sturm-Liouville spectrum a config
implies, the coverage of the canonical indices, and the majorants of termwise differentiation."""
from __future__ import annotations

import pytest
import sympy as sp
from series_cases import problem

from desyr.symbolic.series import series_index
from desyr.verify.series_bounds import DELTA, summable, upper
from desyr.verify.series_coverage import uncovered
from desyr.verify.series_form import NotASeries, split_answer
from desyr.verify.series_modes import NotAnExpansion, Progression
from desyr.verify.series_proof import _directions
from desyr.verify.series_sturm import Branch, NoFamily
from desyr.verify.series_targets import targets


def families(name):
    p = problem(name)
    found, _ = _directions(p, targets(p))
    return {str(v): f for v, f in found.items()}


@pytest.mark.parametrize(("name", "kinds"), [
    ("rod", "x on [0, 1]: sin(j >= 1)"),                         # Dirichlet: sin(j*pi*x)
    ("neumann_rod", "x on [0, 1]: cos(j >= 0)"),                 # Neumann: the zero mode joins the cosines
    ("periodic_ring", "x on [0, 2*pi]: cos(j >= 0), sin(j >= 1)"),   # each eigenvalue twice
    ("robin_rod", "x on [0, 1]: robin(j >= 1)"),                 # tan(s) = -s: robinroot(j, 1, 0, 1)
])
def test_the_spectrum_is_computed_from_the_conditions(name, kinds):
    assert families(name)["x"].describe() == kinds


def test_the_robin_roots_are_the_configs_and_its_eigenfunctions_meet_the_left_end():
    (branch,) = families("robin_rod")["x"].branches
    assert branch.robin is not None and branch.robin[:3] == (1, 0, 1)
    assert branch.shape.has(sp.sin) and not branch.shape.has(sp.cos)      # u = 0 at x = 0: the sines


def test_a_laplace_rectangle_has_a_family_along_each_side_pair():
    found = families("laplace_square")
    assert set(found) == {"x", "y"} and found["x"].describe() == "x on [0, 1]: sin(j >= 1)"


def test_no_family_without_a_condition_at_each_end():
    p = problem("rod")
    with pytest.raises(NoFamily, match="one condition at each end"):
        _directions(p, [t for t in targets(p) if "x = 1" not in t.name])


def _branch(first=1, single=False):
    return Branch("sin", first, single, sp.Integer(0), sp.Integer(0), None)


@pytest.mark.parametrize(("covered", "left"), [
    ([Progression(1, 0, 1)], []),                                            # every index
    ([Progression(2, 1, 0)], [Progression(2, 0, 1)]),                        # odd only: the even ones are left
    ([Progression(4, 1, 0), Progression(4, 3, 2)],                           # 1, 5, 9, ... and 11, 15, ...
     [Progression(4, 0, 1), Progression(4, 2, 0), Progression(0, 7, 0), Progression(0, 3, 0)]),
    ([Progression(1, 0, 3)], [Progression(0, 2, 0), Progression(0, 1, 0)]),  # a sum from 3: 1 and 2 are left
])
def test_what_the_sums_leave_uncovered(covered, left):
    assert uncovered(_branch(), covered) == left


def test_the_zero_mode_is_left_when_the_cosines_start_at_one():
    assert uncovered(_branch(first=0), [Progression(1, 0, 1)]) == [Progression(0, 0, 0)]


def test_two_sums_over_the_same_indices_are_refused():
    with pytest.raises(NotAnExpansion, match="same eigenfunctions"):
        uncovered(_branch(), [Progression(1, 0, 1), Progression(2, 1, 0)])
    with pytest.raises(NotAnExpansion, match="start at 1"):
        uncovered(_branch(), [Progression(1, 0, 0)])


def test_the_answer_splits_into_a_finite_part_and_sums():
    x, t = sp.symbols("x t", real=True)
    n = series_index("n", 1)
    answer = split_answer(1 - x + 2 * sp.Sum(sp.sin(n * sp.pi * x) / n**3, (n, 1, sp.oo)), {"x", "t"})
    assert answer.finite == 1 - x and len(answer.series) == 1
    assert answer.series[0].term == 2 * sp.sin(n * sp.pi * x) / n**3
    with pytest.raises(NotASeries, match="inside a function"):
        split_answer(sp.sin(sp.Sum(x / n**2, (n, 1, sp.oo))), {"x"})
    with pytest.raises(NotASeries, match="not an integer symbol"):
        split_answer(sp.Sum(x / t**2, (t, 1, sp.oo)), {"x"})


def test_majorants_decay_on_compact_parts_and_say_when_they_do_not():
    x, t = sp.symbols("x t", real=True)
    n = series_index("n", 1)
    lowers = {n: 1}
    inside = {x: (DELTA, 1 - DELTA), t: (DELTA, 1 - DELTA)}
    closed = {x: (0, 1), t: (0, 1)}
    heat = sp.sin(n * sp.pi * x) * sp.exp(-n**2 * sp.pi**2 * t) / n

    def converges(expr, region):
        found = upper(expr, region, lowers)
        return found is not None and summable(found, lowers)

    assert converges(sp.diff(heat, x, 2), inside)       # exp(-n**2*pi**2*delta) beats n**1
    assert not converges(heat, closed)                  # 1/n at t = 0
    laplace = sp.sin(n * sp.pi * x) * sp.sinh(n * sp.pi * t) / (n**3 * sp.sinh(n * sp.pi))
    assert converges(laplace, closed) and converges(sp.diff(laplace, t, 2), inside)
    assert not converges(sp.diff(laplace, t, 2), closed)
    m = series_index("m", 1)
    torsion = sp.sin(m * sp.pi * x) * sp.sin(n * sp.pi * t) / (m * n * (m**2 + n**2))
    both = {m: 1, n: 1}
    assert summable(upper(torsion, closed, both), both)                       # 1/(m n (m**2 + n**2))
    assert not summable(upper(sp.diff(torsion, x, 2), inside, both), both)    # m/(n (m**2 + n**2))


def test_a_boxs_modes_decay_by_their_frequency_sqrt_of_a_sum_of_squares():
    x, z = sp.symbols("x z", real=True)
    m, n = series_index("m", 1), series_index("n", 1)
    both = {m: 1, n: 1}
    frequency = sp.pi * sp.sqrt(n**2 + m**2 / 4)
    term = sp.sin(n * sp.pi * x) * sp.sinh(frequency * z) / (sp.sinh(frequency) * m * n)
    inside = {x: (DELTA, 1 - DELTA), z: (DELTA, 1 - DELTA)}
    # exp(-pi*delta*sqrt(n**2 + m**2/4)) <= exp(-pi*delta*(n + m/2)/sqrt(2)): decays in each index
    assert summable(upper(sp.diff(term, z, 2), inside, both), both)
    assert not summable(upper(term, {x: (0, 1), z: (0, 1)}, both), both)      # 1/(m*n) on the face z = 1
