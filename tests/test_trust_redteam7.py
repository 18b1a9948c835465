"""The tenth red team of issue 44 (44k): a sum's coefficient that doubles round away where the rest is extreme.

A growing factor's argument rounded away at one index (``cosh(G(n))`` with ``G(45)`` 949.6 in mpmath and 0 in
doubles) beside a factor that underflows (``exp(-904 - n)``) left the whole term 0 in doubles, and the gap was
weighed by that 0; an argument off by ``d`` counted ``d``, not ``e**d - 1``; and a rest that peaks inside the
domain (``(4*x*(1 - x))**n``) was read at four points a set.  Each case is a problem of the same kind, not the
red team's file; the coefficients are checked in mpmath here too, so that a wrong case is wrong.
"""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from desyr.testing import make_problem
from desyr.verify import make_request
from desyr.verify.looks import all_points
from desyr.verify.precise import spread
from desyr.verify.sampling import fresh_points
from desyr.verify.series_values import POINTS, terms_differ
from desyr.verify.verdict import decide, parse_fields

# 949.61 at n = c in mpmath, below 1e-400 at every other index, and 0 in doubles everywhere
G = "exp(46)*(exp(exp(-1000*(n - {c})**2)/10**17) - 1)"
ROD_SERIES = "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))"
SQUARE_SERIES = "Sum(2*(1 - (-1)**n)/(pi*n)*sin(n*pi*x)*sinh(n*pi*y)/sinh(n*pi), (n, 1, oo))"
ROD = ('[domain]\nx = [0, 1]\nt = [0, 1]\n[[equations]]\nlhs = "u_t - u_xx"\n[[constraints]]\n'
       'on = ["x = 0", "x = 1"]\nvalue = 0\n[[constraints]]\non = "t = 0"\nvalue = "x*(1 - x)"\n')
SQUARE = ('[domain]\nx = [0, 1]\ny = [0, 1]\n[[equations]]\nlhs = "u_xx + u_yy"\n[[constraints]]\n'
          'on = ["x = 0", "x = 1", "y = 0"]\nvalue = 0\n[[constraints]]\non = "y = 1"\nvalue = 1\n')
FLAT = '[domain]\nx = [0, 1]\ny = [0, 1]\n[[equations]]\nlhs = "u_y"\n[[constraints]]\non = "y = 0"\nvalue = "exp(x)"\n'

WRONG = {
    # doubles: 3*exp(-237) (normal), mpmath: 3*exp(-237)*cosh(949.6)**(1/4) = 3.77 (an argument off by 949.6)
    "linearised": (ROD, ROD_SERIES, f"Sum(3*exp(-192 - n)*cosh({G.format(c=45)})**(1/4)*sin(n*pi*x)"
                                    "*exp(-n**2*pi**2*t), (n, 1, oo))", "3*exp(-237)*cosh({g})**(1/4)"),
    # doubles: 0 (exp(-949) underflows), mpmath: exp(-949)*2*sinh(949.6) = 1.84
    "underflowed": (ROD, ROD_SERIES, f"Sum(2*exp(-904 - n)*sinh({G.format(c=45)})*sin(n*pi*x)"
                                     "*exp(-n**2*pi**2*t), (n, 1, oo))", "2*exp(-949)*sinh({g})"),
    # ... beside sinh(n*pi*y)/sinh(n*pi), which doubles compute only in the stable form past n = 226
    "stable form": (SQUARE, SQUARE_SERIES, f"Sum(2*exp(-799 - n)*cosh({G.format(c=150)})"
                                           "*sin(n*pi*x)*sinh(n*pi*y)/sinh(n*pi), (n, 1, oo))",
                    "2*exp(-949)*cosh({g})"),
}


def amplitude(case: str) -> float:
    """The wrong sum's coefficient at its bump, in mpmath at 60 digits."""
    with mpmath.workdps(60):
        g = mpmath.e ** 46 * mpmath.expm1(mpmath.mpf(1) / 10 ** 17)
        return float(sp.sympify(WRONG[case][3].format(g="g")).subs("g", sp.Float(g, 60)).evalf(60))


def differs(toml: str, candidate: str, kept: int) -> str | None:
    problem = make_problem(toml)
    return terms_differ(problem, parse_fields(problem, {"u": candidate}, "expressions"),
                        all_points(problem, fresh_points(problem, 0)), 1e-8, kept)


@pytest.mark.parametrize("case", list(WRONG))
def test_a_growing_factor_rounded_away_beside_an_extreme_rest_is_seen(case):
    toml, true, wrong, _ = WRONG[case]
    assert amplitude(case) > 1.0                 # the wrong sum is wrong by more than the data's size
    why = differs(toml, f"{true} + {wrong}", kept=160)
    assert why is not None and "doubles round a coefficient of it away" in why, why


@pytest.mark.parametrize("wrong", [
    # besseli(1, 949.6) overflows in doubles beside an exp(-949) that underflows: 0.024 as one factor (44l)
    f"Sum(exp(-904 - n)*besseli(1, {G.format(c=45)})*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))",
    # ... and inside a factor that mixes the index and x: besseli(0, 949.6) is inf, exp(-944) is 0 (44l)
    f"Sum(exp(-(n - 45)**2 - 944)*besseli(0, {G.format(c=45)}*(1 + x/10**20))*sin(n*pi*x)*exp(-n**2*pi**2*t), "
    "(n, 1, oo))",
    # an argument of 1e14 off by 0.1, 1e-15 of itself: e**0.1 - 1 of the term (44l)
    "Sum(exp(-(n - 45)**2)*(cosh(10**14 + n + 10**16*(exp(exp(-1000*(n - 45)**2)/10**17) - 1))/cosh(10**14 + n) - 1)"
    "*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))",
])
def test_a_factor_doubles_cannot_hold_is_computed_whole(wrong):
    why = differs(ROD, f"{ROD_SERIES} + {wrong}", kept=60)
    assert why is not None and ("doubles round a" in why or "cannot be computed in doubles" in why), why


def test_sums_that_cancel_are_judged_against_the_field_not_their_own_size():
    # each sum is 1e18 at n = 45, their difference 10*sin(45*pi*x) there, and 0 to doubles (1 + 1e-17 is 1):
    # each coefficient holds to 1e-17 of itself, which is 10 of the field (44l)
    big = "10**18*exp(-(n - 45)**2)*sin(n*pi*x)*exp(-n**2*pi**2*t)"
    apart = f"Sum((1 + exp(-1000*(n - 45)**2)/10**17)*{big}, (n, 1, oo)) - Sum({big}, (n, 1, oo))"
    within = f"Sum((1 + exp(-1000*(n - 45)**2)/10**17)*{big} - {big}, (n, 1, oo))"      # in one term
    for wrong in (apart, within):
        why = differs(ROD, f"{ROD_SERIES} + {wrong}", kept=60)
        assert why is not None and "doubles round a" in why, (wrong, why)


def test_an_index_only_part_inside_a_mixed_factor_is_measured_too():
    # 2*exp(-949)*cosh(949.6*x) is 1.84 at x = 1 and 0 to doubles: the rounded part is inside cosh(x*G(n))
    wrong = f"Sum(2*exp(-904 - n)*sin(n*pi*x)*exp(-n**2*pi**2*t)*cosh(x*{G.format(c=45)}), (n, 1, oo))"
    why = differs(ROD, f"{ROD_SERIES} + {wrong}", kept=60)
    assert why is not None and "doubles round a coefficient of it away" in why, why


@pytest.mark.parametrize("toml, true", [(ROD, ROD_SERIES), (SQUARE, SQUARE_SERIES)])
def test_true_series_whose_coefficients_leave_doubles_range_are_not_refused(toml, true):
    # 1/sinh(n*pi) underflows past n = 226: its argument is what doubles must hold, and they do
    assert differs(toml, f"1.0*{true}", kept=400) is None


def test_a_rest_that_peaks_between_the_few_points_is_read_at_every_point():
    # (4*x*(1 - x))**(10**7) is 1 at x = 1/2 and below 1e-11 0.0016 away: some of the 2000 interior points are
    # that near at seed 0, and none of the few the whole terms are read at
    candidate = f"exp(x) + Sum({G.format(c=100)}*(4*x*(1 - x))**(10**5*n), (n, 0, oo))"
    problem = make_problem(FLAT)
    sets = all_points(problem, fresh_points(problem, 0))
    near = [float(min(abs(s[:, 0] - 0.5))) for s in sets]
    few = [float(min(abs(s[spread(len(s), POINTS), 0] - 0.5))) for s in sets]
    assert min(near) < 0.0005 and min(few) > 0.01
    why = differs(FLAT, candidate, kept=120)
    assert why is not None and "doubles round a coefficient of it away" in why, why


@pytest.mark.parametrize("reciprocal", ["csch(n*pi)", "1/sinh(n*pi)"])
def test_a_reciprocal_hyperbolic_in_a_series_is_read_as_its_sinh(reciprocal):
    # the sums' stable form and tail bounds know sinh and cosh: csch(n*pi) kept 62 terms and was refused
    problem = make_problem(SQUARE)
    text = SQUARE_SERIES.replace("/sinh(n*pi)", f"*{reciprocal}")
    parsed = parse_fields(problem, {"u": text}, "expressions")["u"]
    assert not parsed.has(sp.csch) and parsed.has(sp.sinh)
    got = decide(make_request(problem, {"u": text}, None, 0))
    assert got["verdict"] == "proved", got["reason"]
