"""A second look where doubles cannot decide: the residuals measured again with mpmath (``docs/verify.md``,
"When doubles cannot decide").

Doubles decide most verdicts. They cannot decide a residual that is above the tolerance only through their
own rounding: ``sin(pi*x)`` on [1e8, 1e8 + 1] (``pi*x`` carries an error of 1e-8 of its size), ``(exp(x) -
1)/x`` at x = 1e-6 (cancellation), data written as ``(sin(x)**2 + cos(x)**2 - 1)*10**20`` (exactly 0, and
noise of 1e4 in doubles), terms of 1e476 whose difference is the residual (``x*exp(exp(x))`` on [1, 7]).
Nor can they tell that a residual at the round-off of huge terms is round-off, not an error under it:
``exp(40*x) + 2*10**13*(cos(x)**2 + sin(x)**2 - 0.999999995)``, 1e5 off everywhere, had been Proved.

So a formula whose residuals are above the tolerance in doubles is measured again on the same points with
mpmath at two precisions, ``d`` and ``2d`` digits (``d`` at least :data:`FIRST` digits more than its terms
exceed its scale by, and than the tolerance asks), the points moved off the doubles by a relative 2**-70
(:mod:`desyr.symbolic.generic_points`: at a double, ``sin(2**80*pi*x)`` is exactly 0). The higher
precision's value is taken with an error estimated from the two: their difference, shrunk by half the
digits gained. A residual is decided when that interval lies within the tolerance or wholly above it; else
the precision doubles, up to :data:`MOST` digits. What stays undecided keeps the doubles' verdict.

Most formulas measured again are plainly wrong, so a residual is first measured at its :data:`WORST`
worst points alone (in doubles), beside every residual's data on all its points: the root mean square over
all N points is at least that of those points' share, and a residual's scale at most its data plus the
problem's scale ``Q``, so that alone can show it above the tolerance at a fraction of the cost.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import mpmath
import numpy as np
import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.model.residuals import Verification
from desyr.model.scaled import residual_blocks, verification_of
from desyr.symbolic.generic_points import measured_digits, varying, working_digits
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.scales import Measured, Relative, Scaled, data_values, measure, relative, rms, values_at

#: the fewest digits of the second look, beyond the digits the tolerance and the terms' size ask for
FIRST = 30
#: the most digits it goes to before leaving a residual undecided
MOST = 1200
#: the points of a residual measured first, its worst in doubles
WORST = 32
#: the points of each residual a Verified formula is measured on again, whatever doubles said
SAMPLE = 16


@dataclass(frozen=True)
class Second:
    """The second look: the residuals at ``digits`` digits where they are decided (``verification``), or None
    and the most digits tried; ``above``: a residual was shown above the tolerance from its worst points."""

    verification: Verification | None
    digits: int
    above: bool = False


def second_look(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                tolerance: float) -> Second:
    """The residuals of ``exprs`` on ``points`` measured with mpmath until each is decided against
    ``tolerance`` (within it, or above it), or :data:`MOST` digits are reached."""
    blocks = residual_blocks(problem, exprs, points.interior, list(points.constraints), points.reductions)
    symbols = problem.symbols
    doubles = measure(blocks, symbols, points.interior)
    depth = max(relative(doubles).depths, default=0.0)
    digits = max(FIRST + math.ceil(min(depth, MOST) + math.log10(1 / tolerance)), sized(blocks, symbols, doubles))
    shown = _worst_above(blocks, symbols, digits, tolerance)
    if shown:
        return Second(None, 2 * shown, above=True)
    low = measure(blocks, symbols, points.interior, digits)
    while 2 * digits <= MOST:
        high = measure(blocks, symbols, points.interior, 2 * digits)
        if _decided(relative(low), relative(high), digits, tolerance):
            return Second(verification_of(problem, high), 2 * digits)
        low, digits = high, 2 * digits
    return Second(None, digits)


def sampled_again(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                  tolerance: float) -> Second:
    """A formula doubles put within the tolerance, measured again on :data:`SAMPLE` points of each residual
    at two precisions: ``above`` where one residual is shown above the tolerance there.  Doubles can round a
    term away at every point (``10**20*log(1 + u/10**17)`` is 0 wherever ``1 + u/10**17`` rounds to 1, while
    it is ``1000*u``), and then nothing they compute flags it (red team 44c)."""
    blocks = [b if b.reduction is not None else replace(b, points=b.points[spread(len(b.points))])
              for b in residual_blocks(problem, exprs, points.interior, list(points.constraints), points.reductions)]
    interior = points.interior[spread(len(points.interior))]
    symbols = problem.symbols
    doubles = measure(blocks, symbols, interior)
    depth = max(relative(doubles).depths, default=0.0)
    digits = max(FIRST + math.ceil(min(depth, MOST) + math.log10(1 / tolerance)), sized(blocks, symbols, doubles))
    if digits > MOST:
        return Second(None, digits, above=True)     # its values cannot be measured: no evidence it holds
    low, high = (relative(measure(blocks, symbols, interior, d)) for d in (digits, 2 * digits))
    for a, b in zip([*low.equations, *low.constraints], [*high.equations, *high.constraints]):
        error = abs(a - b) * 10.0 ** (-digits / 2) if math.isfinite(a) and math.isfinite(b) else math.inf
        if (math.isfinite(b) and b - error > tolerance) or not math.isfinite(b):
            return Second(verification_of(problem, measure(blocks, symbols, interior, 2 * digits)), 2 * digits, True)
    return Second(None, 2 * digits)


def sized(blocks: Sequence[Scaled], symbols: Sequence[sp.Symbol], measured: Sequence[Measured]) -> int:
    """The fewest digits that hold the values of every residual's parts at a sample of its points, to the size
    each residual is judged against (``measured``, in doubles: its data plus its terms up to the problem's
    scale; :func:`~desyr.symbolic.generic_points.measured_digits`): a magnitude a formula hides in a part that
    depends on the variables is not among its literals, and a problem written at 1e-130 is judged at 1e-138."""
    sizes = judged_sizes(measured)
    most = max((measured_digits([b.residual, b.data], symbols, b.points, size)
                for b, size in zip(blocks, sizes) if len(b.points)), default=1)
    return working_digits([], FIRST, most) or MOST + 1


def judged_sizes(measured: Sequence[Measured]) -> list[float]:
    """log10 of the size each residual is judged against (:func:`~desyr.symbolic.scales.relative`), the
    problem's scale where its own is 0, and 0 (a size of 1) where that is 0 too."""
    scale = max((mpmath.mpf(m.data) for m in measured), default=mpmath.mpf(0))
    out = []
    for m in measured:
        size = mpmath.mpf(m.data) + min(mpmath.mpf(m.terms), scale)
        size = size if size > 0 and mpmath.isfinite(size) else scale
        out.append(float(mpmath.log10(size)) if size > 0 and mpmath.isfinite(size) else 0.0)
    return out


def spread(n: int, k: int = SAMPLE) -> np.ndarray:
    """``k`` row indices spread evenly over ``n`` rows: a constraint on several sets stores its points set
    by set, and its first rows all lie on the first set (red team 44d)."""
    return np.unique(np.linspace(0, n - 1, min(k, n)).round().astype(int)) if n else np.zeros(0, dtype=int)


def data_differ(problem: Problem, points: VerificationPoints, tolerance: float) -> str | None:
    """:func:`values_differ` for the problem's own data: each equation's forcing at the interior points and
    each pointwise constraint's value at its points (``u(0) = exp(307)*log(1 + exp(-300))`` is 1096.6, and
    0 to doubles: a formula with u(0) = 0 was Verified; red team 44d)."""
    pairs = [(f"the data of equation {k + 1}", eq.forcing, points.interior) for k, eq in enumerate(problem.equations)]
    pairs += [(f"the value of constraint {con.label}", con.value, points.constraints[l])
              for l, con in enumerate(problem.constraints) if con.kind == "pointwise" and l < len(points.constraints)]
    for name, expr, X in pairs:
        why = values_differ(problem, {name: expr}, [X], tolerance)
        if why:
            return why
    return None


def values_differ(problem: Problem, exprs: Mapping[str, sp.Expr], sets: Sequence[np.ndarray],
                  tolerance: float) -> str | None:
    """Why doubles cannot be trusted with the formula's own values at the points of ``sets``, else None: where a
    field's value (its sums set to 0: the part outside a series' sums) in doubles and in mpmath, at a
    precision that holds the formula's numbers and the values of its parts
    (:func:`~desyr.symbolic.generic_points.measured_digits`), differ by more than the tolerance of the field's
    size.  Doubles round ``1 + x/10**17`` to 1, so ``10**20*log(1 + x/10**17)``, which is ``1000*x``, is 0 to them
    at every point, and so is every residual and datum test they compute (red teams 44c, 44d); so do
    ``exp(x/10**17)``, ``tanh(x + 40)`` and ``erf(x + 6)`` (44e).  Every point is measured: such a term can live in
    a band a sample misses (44g: ``exp(46)*(exp(exp(-((y - 37/100)/(1/1000))**2)/10**17) - 1)`` is 949 on 2% of a
    set)."""
    symbols = problem.symbols
    sets = [s for s in sets if len(s)]
    if not sets:
        return None
    every = np.vstack(sets)
    for name, expr in exprs.items():
        finite = expr.replace(lambda e: isinstance(e, sp.Sum), lambda e: sp.Integer(0))
        # a constant too: exp(46)*(exp(exp(-1)/10**17) - 1) is 349, and 0 to doubles (red team 44h), at one point
        X = every if finite.free_symbols else every[:1]
        rows = np.arange(len(X))
        doubles = evaluate(finite, symbols, X)       # doubles alone: what the residuals were measured in
        digits = working_digits([finite], FIRST + math.ceil(math.log10(1 / tolerance)),
                                measured_digits([finite], symbols, X, _log_size(doubles)))
        if digits is None:
            return f"the numbers in {name} are too large or too small to measure"
        precise = values_at([finite], symbols, X[rows], digits, np.zeros((len(rows), X.shape[1]), dtype=bool))[0]
        finite_doubles = doubles[np.isfinite(doubles)]
        size = max(rms(precise), mpmath.mpf(float(np.sqrt(np.mean(finite_doubles ** 2)))) if len(finite_doubles)
                   else mpmath.mpf(0))
        for a, b in zip(doubles[rows], precise):
            gap = abs(mpmath.mpf(a) - b) if mpmath.isfinite(a) and mpmath.isfinite(b) else mpmath.inf
            if gap > tolerance * max(size, mpmath.mpf(10) ** -300):
                return (f"{name} is {mpmath.nstr(b, 6)} at a fresh point where doubles give {float(a):.6g}: "
                        f"doubles round a term of it away")
    return None


def _log_size(doubles: np.ndarray) -> float:
    """log10 of the root mean square of a field's finite values in doubles (0 where there are none, or all 0)."""
    finite = doubles[np.isfinite(doubles)]
    size = float(np.sqrt(np.mean(finite ** 2))) if len(finite) else 0.0
    return math.log10(size) if size > 0 else 0.0


def _decided(low: Relative, high: Relative, gained: int, tolerance: float) -> bool:
    """Whether every residual's value at the higher precision, within its estimated error, is within the
    tolerance, or one is wholly above it."""
    within = True
    for a, b in zip([*low.equations, *low.constraints], [*high.equations, *high.constraints]):
        if math.isinf(b) and math.isinf(a):
            return True                     # not finite at either precision: decided, not a solution
        error = abs(a - b) * 10.0 ** (-gained / 2) if math.isfinite(a) and math.isfinite(b) else math.inf
        if b - error > tolerance:
            return True
        within = within and b + error <= tolerance
    return within


def _worst_above(blocks: Sequence[Scaled], symbols: Sequence[sp.Symbol], digits: int, tolerance: float) -> int:
    """The digits at which (and twice as many) some residual is shown above ``tolerance`` from its
    :data:`WORST` worst points, ``digits`` or first fewer, else 0: a wrong finite sum of 40 terms with ``exp(-1600*pi**2*t)`` is sized
    at 1200 digits and spent the whole share there, while 30 and 60 already show it above. Fewer digits never
    show a residual above that is not: where they do not hold its value, the two precisions differ by as much
    as the value, and the error estimate covers it (:func:`_shown_above`)."""
    fewer = FIRST + math.ceil(math.log10(1 / tolerance))
    while fewer < digits:
        if _shown_above(blocks, symbols, fewer, tolerance, undefined=False):
            return fewer
        fewer *= 2
    return digits if _shown_above(blocks, symbols, digits, tolerance, undefined=True) else 0


def _shown_above(blocks: Sequence[Scaled], symbols: Sequence[sp.Symbol], digits: int, tolerance: float,
                 undefined: bool) -> bool:
    """... at ``digits`` and twice as many. ``undefined``: at the digits the values were sized for, where a value
    not finite at both says so; at fewer (not ``undefined``), a residual's round-off can leave doubles' range
    (``x*exp(exp(x))`` on [1, 7] is e**1096 and cancels to 0), and only rows whose two precisions agree count."""
    data = [[rms(data_values(b, symbols, d)) for b in blocks] for d in (digits, 2 * digits)]
    scale = max(data[1], default=mpmath.mpf(0))
    scale = scale if scale > 0 and mpmath.isfinite(scale) else mpmath.mpf(1)
    for k, b in enumerate(blocks):
        if b.reduction is not None or not len(b.points):
            continue
        doubles = np.abs(values_at([b.residual], symbols, b.points)[0].astype(float))
        rows = np.argsort(-np.where(np.isfinite(doubles), doubles, np.inf), kind="stable")[:WORST]
        move = varying(b.points)[rows]     # the worst rows alone would all look fixed
        low, high = (values_at([b.residual], symbols, b.points[rows], d, move)[0] for d in (digits, 2 * digits))
        if any(not mpmath.isfinite(a) and not mpmath.isfinite(c) for a, c in zip(low, high)):
            if undefined:
                return True         # undefined (or infinite) at both precisions there
            continue
        if not all(mpmath.isfinite(c) for c in high):
            continue
        # at fewer digits than the values need, a row counts only where both precisions agree: a sum that
        # cancels can come out exactly 0 at one and as round-off at the other
        error = [abs(a - c) * mpmath.mpf(10) ** (-digits / 2)
                 if undefined or abs(a - c) <= abs(c) * mpmath.mpf(10) ** (-digits / 4) else mpmath.inf
                 for a, c in zip(low, high)]
        share = mpmath.fsum(max(abs(c) - e, 0) ** 2 for c, e in zip(high, error)) / len(b.points)
        size = data[1][k] + scale
        if mpmath.isfinite(size) and mpmath.sqrt(share) > tolerance * size * (1 + mpmath.mpf(10) ** -6):
            return True
    return False
