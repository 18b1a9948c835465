"""Coefficient laws (issue 46, item 3; docs/series.md, "Coefficient laws"): an exact law ``c(n)`` found from a
sequence's first values (:func:`desyr.plugin.find_law`), and the series method's law path, which takes the
numbers from the data's projections onto the eigenfunctions where SymPy cannot do the integrals.

The finder is tried on laws of every shape it claims (a rational function of the frequency, a geometric
ratio, residue classes of period 2 and 4, exceptional first indices, constants of the data) and on
sequences that follow none (it must say so, not guess); the law path on several data functions, its laws
compared with SymPy's exact coefficients far past the sampled indices.
"""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from desyr.plugin import Samples, find_law, identify_number

n = sp.Symbol("n", integer=True, nonnegative=True)
x = sp.Symbol("x", real=True)
COUNT, DIGITS = 48, 60

#: name -> (law, first index, exceptional values below the law's start, constants offered)
LAWS = {
    "odd cubes": (4 * (1 - (-1) ** n) / (sp.pi**3 * n**3), 1, {}, ()),
    "geometric": ((6 * n + 10) / (3 * 2**n), 1, {}, ()),
    "quadratic ratio": (2 * sp.sqrt(3) * (sp.sqrt(3) - 2) ** n / 3, 1, {}, ()),
    "period four": (8 * sp.sin(sp.pi * n / 2) / (sp.pi**2 * n**2), 1, {}, ()),
    "constant e": (2 * sp.pi * n * (1 - (-1) ** n * sp.E) / (1 + sp.pi**2 * n**2), 1, {}, (sp.E,)),
    "first index apart": (4 * n * (1 + (-1) ** n) / (sp.pi * (n**2 - 1)), 2, {1: sp.Rational(1, 2)}, ()),
    "from zero": ((-1) ** n * 8 / (sp.pi**2 * (2 * n + 1) ** 2), 0, {}, ()),
}


def _samples(values, first: int, digits: int = DIGITS) -> Samples:
    return Samples(first, tuple(values), mpmath.mpf(10) ** -digits)


def _values(law, first: int, fixed, count: int = COUNT):
    start = min(fixed, default=first + 1) if fixed else first
    out = []
    for k in range(start, start + count):
        value = fixed[k] if k in fixed else law.subs(n, k)
        out.append(mpmath.mpmathify(sp.N(value, DIGITS + 10)))
    return out, start


@pytest.mark.parametrize("name", LAWS)
def test_a_law_is_recovered_exactly_from_its_first_values(name):
    law, first, fixed, constants = LAWS[name]
    with mpmath.workdps(DIGITS):
        values, start = _values(law, first, fixed)
        found = find_law(_samples(values, start), n, sp.pi * n, constants)
    assert found is not None, name
    for k in [*fixed, *range(first, first + 4), 97, 98, 99, 100, 1001]:   # past the samples: the same law
        expected = fixed[k] if k in fixed else law.subs(n, k)
        assert sp.simplify(found.at(n, k) - expected) == 0, (name, k, found)
    assert not found.generic.has(sp.Float), found


@pytest.mark.parametrize("name, value", [
    pytest.param("harmonic numbers", lambda k: mpmath.harmonic(k) / k**2, marks=pytest.mark.slow),
    ("factorial decay", lambda k: 1 / mpmath.factorial(k)),
    pytest.param("a logarithm", lambda k: mpmath.log(k + 1) / k**3, marks=pytest.mark.slow),
    pytest.param("a sum of two ratios", lambda k: mpmath.mpf(2) ** -k + mpmath.mpf(3) ** -k, marks=pytest.mark.slow),
])
def test_no_law_is_guessed_for_a_sequence_that_follows_none(name, value):
    with mpmath.workdps(DIGITS):
        values = [value(mpmath.mpf(k)) for k in range(1, COUNT + 1)]
        assert find_law(_samples(values, 1), n, sp.pi * n) is None, name


def test_inaccurate_samples_give_no_law():
    law = (6 * n + 10) / (3 * 2**n)
    with mpmath.workdps(DIGITS):
        values, _ = _values(law, 1, {})
        assert find_law(Samples(1, tuple(values), mpmath.mpf(10) ** -12), n, sp.pi * n) is None


def test_numbers_are_identified_with_pi_constants_and_quadratic_roots():
    with mpmath.workdps(40):
        tol = mpmath.mpf(10) ** -30
        assert identify_number(mpmath.mpf(3) / 7 * mpmath.pi**-2, tol) == sp.Rational(3, 7) / sp.pi**2
        assert identify_number(2 * mpmath.e - 5, tol, [sp.E]) == 2 * sp.E - 5
        assert identify_number(mpmath.sqrt(3) - 2, tol) == sp.sqrt(3) - 2
        assert identify_number(mpmath.mpf(10) ** -35, tol) == 0
        assert identify_number(mpmath.euler, tol) is None      # nothing simple: no guess


# ------------------------------------------------------------------ the law path: projections of data
def _family(kind: str):
    from desyr_sympy.series.eigen import Family
    k = sp.Symbol("k", integer=True, positive=True)
    shape = sp.sin if kind == "sin" else sp.cos
    return Family(x, k, 1, (sp.pi * k) ** 2, shape(sp.pi * k * x), sp.Rational(1, 2), 0, 1)


#: data whose coefficients SymPy does integrate: the law path must give the same numbers, far past its samples
EXACT = {"a parabola": (x * (1 - x), "sin"), "an exponential": (x * sp.exp(x), "sin"),
         "a kink": (sp.Abs(x - sp.Rational(1, 2)), "sin"), "a cosine series": (x**2 * (3 - 2 * x), "cos")}


@pytest.mark.slow
@pytest.mark.parametrize("name", EXACT)
def test_the_law_path_gives_the_exact_coefficients_of_data_sympy_integrates(name):
    from desyr_sympy.series.law import law_of
    data, kind = EXACT[name]
    family = _family(kind)
    law = law_of(data, family)
    for k in (1, 2, 3, 4, 5, 60, 61, 62, 63, 200):
        exact = 2 * sp.integrate(data * family.function.subs(family.index, k), (x, 0, 1))
        assert abs(sp.N(law.at(family.index, k) - exact, 30)) < 1e-25, (name, k, law)


@pytest.mark.slow
def test_the_law_path_takes_data_sympy_cannot_integrate_and_declines_where_no_law_holds():
    from desyr_sympy.series.law import denominator_in, law_of
    from desyr_sympy.series.layout import Declined
    kernel = 9 / (5 - 4 * sp.cos(sp.pi * x)) ** 2
    assert denominator_in(kernel, x) and not denominator_in(x * sp.exp(-x), x)
    law = law_of(kernel, _family("cos"))
    k = law.generic.free_symbols.pop()
    assert law.start == 1 and sp.simplify(law.generic - (6 * k + 10) / (3 * 2**k)) == 0, law
    with pytest.raises(Declined, match="no coefficient law"):
        law_of(1 / (5 - 4 * sp.cos(sp.pi * x)), _family("sin"))   # sums of logarithms: no law of the forms


# ------------------------------------------------------------------ a problem only the law path solves
def _parts(expr):
    sums = list(expr.atoms(sp.Sum))
    assert len(sums) == 1, expr
    (term, (index, lower, _)) = sums[0].function, sums[0].limits[0]
    return expr - sums[0], term.xreplace({index: n}), lower


@pytest.mark.slow
def test_the_kernel_rod_is_solved_by_its_coefficient_law_and_proved(registry):
    """``textbook:kernel_rod``: SymPy integrates none of its data's coefficients; the law path's series is the
    reference, and the verifier's series proof (through the data's denominator) proves it and no wrong one."""
    from desyr_sympy import series
    from desyr_sympy.shared.forms import coordinates

    from desyr.config.loading import load_problem
    from desyr.plugin import expression_text
    from desyr.verify.series_proof import prove_series

    problem = load_problem("textbook:kernel_rod", registry)
    answer = series.solve(coordinates(problem))[0]["u"]
    finite, term, lower = _parts(answer)
    ref_finite, ref_term, ref_lower = _parts(problem.reference["u"])
    assert (finite, lower) == (ref_finite, ref_lower) and sp.simplify(term - ref_term) == 0, answer
    printed = problem.parse(str(expression_text(answer)))
    outcome = prove_series(problem, {"u": printed})
    assert outcome.proved, outcome.reason
    for wrong in ("5/3 + Sum((6*n + 10)*cos(n*pi*x)*exp(-n**2*pi**2*t)/(3*3**n), (n, 1, oo))",          # the ratio
                  "Sum((6*n + 10)*cos(n*pi*x)*exp(-n**2*pi**2*t)/(3*2**n), (n, 1, oo))",                # no mean
                  "5/3 + Sum((6*n + 10)*(1 + (-1)**n/1000)*cos(n*pi*x)*exp(-n**2*pi**2*t)/(3*2**n), (n, 1, oo))"):
        outcome = prove_series(problem, {"u": problem.parse(wrong)})
        assert not outcome.proved, wrong
        assert "denominator" in outcome.reason, outcome.reason


_ROD = """
name = "{name}"
time = "t"
[domain]
x = [0, {length}]
t = [0, 1]
[[equations]]
lhs = "u_t - u_xx/{speed}"
{ends}
[[constraints]]
on = "initial"
value = "{initial}"
"""
_DIRICHLET = '[[constraints]]\non = ["x = 0", "x = 1"]\nvalue = 0'
_PERIODIC = ('[[constraints]]\non = "x = 0"\nperiodic = "x = 2"\n'
             '[[constraints]]\noperator = "u_x"\non = "x = 0"\nperiodic = "x = 2"')


@pytest.mark.slow
@pytest.mark.parametrize("name, length, speed, ends, initial, expected", [
    ("sine_kernel", 1, 1, _DIRICHLET, "sin(pi*x)/(5 - 4*cos(pi*x))",
     "Sum(exp(-pi**2*n**2*t)*sin(pi*n*x)/2**(n + 1), (n, 1, oo))"),
    ("ring_kernel", 2, 3, _PERIODIC, "(1 + sin(pi*x))/(2 + cos(pi*x))",
     "sqrt(3)/3 + Sum(2*sqrt(3)*(sqrt(3) - 2)**n*cos(pi*n*x)*exp(-pi**2*n**2*t/3)/3, (n, 1, oo))"
     " - Sum(2*(sqrt(3) - 2)**n*sin(pi*n*x)*exp(-pi**2*n**2*t/3), (n, 1, oo))"),
])
def test_other_ends_and_laws_go_the_same_way(name, length, speed, ends, initial, expected):
    """Dirichlet ends (a sine ladder) and a ring (sines, cosines and the mean; a negative quadratic ratio):
    the law path's series is the expected one and the verifier proves it."""
    from desyr_sympy import series
    from desyr_sympy.shared.forms import coordinates

    from desyr.plugin import expression_text, problem_from_toml
    from desyr.verify.series_proof import prove_series

    problem = problem_from_toml(_ROD.format(name=name, length=length, speed=speed, ends=ends, initial=initial))
    answer = series.solve(coordinates(problem))[0]["u"]
    points = [{x: sp.Rational(3, 10), problem.symbols[-1]: sp.Rational(1, 20)},
              {x: sp.Rational(7, 10), problem.symbols[-1]: sp.Rational(1, 5)}]
    want = problem.parse(expected)
    for at in points:     # the same partial sums: the same law
        mine = sp.N(answer.subs(at).replace(lambda e: isinstance(e, sp.Sum),
                                           lambda e: sp.Sum(e.function, (e.limits[0][0], 1, 40)).doit()), 30)
        theirs = sp.N(want.subs(at).replace(lambda e: isinstance(e, sp.Sum),
                                            lambda e: sp.Sum(e.function, (e.limits[0][0], 1, 40)).doit()), 30)
        assert abs(mine - theirs) < 1e-25, (answer, at)
    outcome = prove_series(problem, {"u": problem.parse(str(expression_text(answer)))})
    assert outcome.proved, outcome.reason


def test_a_negative_geometric_ratio_is_bounded_by_its_absolute_value():
    from desyr.verify.series_bounds import summable, upper
    k = sp.Symbol("k", integer=True, positive=True)
    monos = upper((sp.sqrt(3) - 2) ** k / k, {}, {k: 1})
    assert monos is not None and summable(monos, {k: 1})
    assert upper((sp.sqrt(3) - 2) ** (k / 2), {}, {k: 1}) is None        # not an integer power: no bound
