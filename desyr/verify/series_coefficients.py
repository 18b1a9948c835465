"""A sum's coefficients in mpmath at every index the cross-check kept, each against its term at every point.

A term's factor that depends on the indices alone can leave doubles at one index (``exp(-10*(n - 40)**2)``,
red team 44h) and only there, so it is measured at every index the truncation kept, where the few indices of
:func:`~desyr.verify.series_values.terms_differ`'s whole terms may miss it.  Which indices to look at is read
cheaply, from the factor's parts:

- its plain part (``2*(1 - (-1)**n)/(pi*n)``), in mpmath at the digits its values need;
- its growing parts (exponentials, hyperbolic and modified Bessel functions, factorials, powers with the index
  in their exponent): only their arguments, in mpmath (``1/sinh(n*pi)`` past n = 226 is 0 to doubles as
  written, and moderate beside ``sinh(n*pi*y)`` in the stable form the sums use; mpmath's ``sinh`` at n = 4000
  costs as much as the rest of the verdict);
- every index-only part inside the factors that mix the index and the variables (``sin(E(n)*x + n*pi*x)``).

Where every part agrees with doubles to its round-off the term is the sums' own.  At any other index the whole
factor is computed in mpmath and enters as ``exp(log|factor|)`` beside the rest (with the mixed parts mpmath
has), in the stable form, and that term is compared with the term as the sums compute it, both in doubles at
every point of every set (a rest ``(4*y*(1 - y))**n`` peaks between a few points), the differences summed over
the indices at each point.  So a growing factor's argument that doubles round away where the whole term
underflows (``exp(-949)*cosh(949.6)`` is 1.84, and ``exp(-949)*besseli(0, 949.6)``, 0.024, overflows in doubles
as two factors; red teams 44k, 44l) counts, and an argument off by ``d`` counts ``e**d - 1``.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from desyr.symbolic.eigenvalues import EigenvalueFunction
from desyr.symbolic.generic_points import MOST_DIGITS, measured_digits, working_digits
from desyr.symbolic.numeric import broadcast, columns, evaluate, lambdify
from desyr.symbolic.scales import values_at
from desyr.symbolic.series import stable_term
from desyr.verify.precise import FIRST

#: the most digits a term's values need for what doubles can compute: twice their range of magnitudes
DOUBLES_RANGE = 2 * (308 + 16)
#: the functions that grow or decay with their argument, which the sums evaluate in a stable form
GROWING = (sp.exp, sp.sinh, sp.cosh, sp.besseli, sp.besselk, sp.factorial, sp.gamma)
#: a plain part doubles hold within this share of its value, inside their normal range (:data:`NORMAL`), and
#: other parts held within this much, or :data:`ULPS` units in their last place, leave the term as the sums
#: compute it
ROUND_OFF = 1e-13
NORMAL = (1e-290, 1e290)
ULPS = 4
#: the indices measured at one precision (each chunk at the digits its own values need)
CHUNK = 200
#: the most index-point pairs evaluated at once
BLOCK = 100_000
#: the most operations of a term written out summand by summand for its size
MOST_OPS = 400

Limits = Sequence[tuple[sp.Symbol, sp.Expr, sp.Expr]]


def coefficients_differ(name: str, term: sp.Expr, limits: Limits, symbols: Sequence[sp.Symbol], X: np.ndarray,
                        tolerance: float, allowed: float, most: int) -> str | None:
    """Why doubles cannot be trusted with the index-only factor of a sum's ``term`` at its first ``most``
    indices (per index), judged at the points ``X`` against ``allowed`` (the tolerance of the field's size),
    else None."""
    indices = [limit[0] for limit in limits]
    ranges = [range(int(lo), int(lo) + most if hi is sp.oo else min(int(hi) + 1, int(lo) + most)) for _, lo, hi in limits]
    held, roots, written = held_roots(term, indices, np.array(list(itertools.product(*ranges)), dtype=float))
    # exp(a(n) - n**2*pi**2*t) holds an index-only factor too, and so do summands with a common factor in the
    # variables: A(n)*s - B(n)*s is (A(n) - B(n))*s, and mpmath computes A(n) - B(n) whole (3e20 each, 314
    # apart, 0 to doubles; red team 44l)
    shaped = sp.expand_power_exp(written)
    shaped = sp.factor_terms(shaped) if sp.count_ops(shaped) <= MOST_OPS else shaped
    coefficient, rest = shaped.as_independent(*symbols, as_Add=False)
    if not coefficient.free_symbols <= set(held):
        return None
    parts = _Parts(held, symbols)
    plain = parts.split(coefficient)
    rest = parts.written(rest)
    arguments = parts.arguments
    names = list(arguments)
    level, sign = sp.Dummy("level", real=True), sp.Dummy("sign", real=True)
    box = {i: (float(limit[1]), math.inf) for i, limit in zip(indices, limits)}
    # compiled once: the term as the sums compute it, and with its index-only factor and parts as mpmath has
    # them (the factor whole: besseli(0, 949.6) overflows in doubles beside an exp(-949) that underflows)
    both = lambdify([*held, *names, level, sign, *symbols],
                    [stable_term(written, box), sign * stable_term(sp.exp(level) * rest, box)])
    measured = [plain, *arguments.values()]
    doubles = [evaluate(part, held, roots) for part in measured]
    # where a term is so large beside the field that its parts' round-off alone could exceed the allowance
    # (sums that cancel: 10**20*pi*(1 + b(n)/10**18)*e(n) less 10**20*pi*e(n), 314 where b is 1 and 0 to
    # doubles; red team 44l), its parts' agreement to round-off says nothing: it is compared
    # (each summand of the term written out: two summands of 3e20 that cancel to 314 are 0 to doubles)
    summands = sp.Add.make_args(sp.expand(written)) if sp.count_ops(written) <= MOST_OPS else (written,)
    reach = _reach(lambdify([*held, *symbols], [stable_term(a, box) for a in summands]), roots, X)
    sizes = [rms(values) for values in doubles]
    gaps = np.zeros(len(X))
    for start in range(0, len(roots), CHUNK):
        block = roots[start:start + CHUNK]
        exact = [mpmath_values(part, held, block, tolerance, size or 1.0) for part, size in zip(measured, sizes)]
        away = [k for k in range(len(block))
                if not _holds(doubles[0][start + k], exact[0][k], NORMAL)
                or any(not _holds(d[start + k], e[k], None) for d, e in zip(doubles[1:], exact[1:]))
                or _round_off(d[start + k] for d in doubles[1:]) * reach[start + k] * len(roots) > allowed]
        if away:
            factors = mpmath_values(coefficient, held, block[away], tolerance, 1.0)
            given = np.column_stack([block[away], *[[float(e[k]) for k in away] for e in exact[1:]],
                                     [float(mpmath.log(abs(v))) if v != 0 else -math.inf for v in factors],
                                     [float(mpmath.sign(v)) if mpmath.isfinite(v) else math.nan for v in factors]])
            gaps += _pointwise_gaps(both, given, X)
    worst = float(np.max(gaps)) if len(gaps) else 0.0
    if math.isinf(worst):
        return (f"the terms of a sum in {name} cannot be computed in doubles with their coefficients as mpmath "
                f"has them (a factor overflows), where doubles do not hold those coefficients")
    if worst > allowed:
        return (f"the coefficients of a sum in {name} differ between doubles and mpmath by {worst:.3g} "
                f"at a point (summed over the indices): doubles round a coefficient of it away")
    return None


class _Parts:
    """A term written with a symbol for each index-only part doubles compute (each measured in mpmath): a growing
    function's arguments, a power's exponent times its base's log (``b**e(n)`` with ``b > 0`` is
    ``exp(e(n)*log(b))``), and every other index-only part whole, inside the factors that mix the index and
    the variables too (``sin(E(n)*x + n*pi*x)``: ``E(n)``, ``n*pi``)."""

    def __init__(self, held: Sequence[sp.Symbol], symbols: Sequence[sp.Symbol]) -> None:
        self.held, self.symbols = set(held), set(symbols)
        self.arguments: dict[sp.Symbol, sp.Expr] = {}

    def split(self, coefficient: sp.Expr) -> sp.Expr:
        """The index-only factor's plain part (as it is, for mpmath); its growing parts' arguments are stood in."""
        growing = [f for f in sp.Mul.make_args(coefficient) if self._grows(f)]
        for factor in growing:
            self.index_only(factor)
        return coefficient / sp.Mul(*growing)

    def written(self, expr: sp.Expr) -> sp.Expr:
        """``expr``, which may mix the index and the variables, written with the parts' symbols."""
        if not expr.free_symbols & self.held or not expr.args:
            return expr
        if not expr.free_symbols & self.symbols:
            return self.index_only(expr)
        if isinstance(expr, (sp.Add, sp.Mul)):
            alone = [a for a in expr.args if not a.free_symbols & self.symbols]
            mixed = [self.written(a) for a in expr.args if a.free_symbols & self.symbols]
            return expr.func(self.index_only(expr.func(*alone)), *mixed) if alone else expr.func(*mixed)
        return expr.func(*[self.written(a) for a in expr.args])

    def index_only(self, expr: sp.Expr) -> sp.Expr:
        if not expr.free_symbols or isinstance(expr, sp.Symbol):
            return expr
        if isinstance(expr, sp.Mul):
            growing = [f for f in expr.args if self._grows(f)]
            return self._stand_in(expr / sp.Mul(*growing)) * sp.Mul(*[self.index_only(f) for f in growing])
        base, power = (expr.base, expr.exp) if isinstance(expr, sp.Pow) else (expr, sp.Integer(1))
        if not self._grows(expr):
            return self._stand_in(expr)
        if power.free_symbols:
            return sp.exp(self._stand_in(power * sp.log(base)))
        return base.func(*[self._stand_in(a) for a in base.args]) ** power

    def _grows(self, factor: sp.Expr) -> bool:
        base, power = (factor.base, factor.exp) if isinstance(factor, sp.Pow) else (factor, sp.Integer(1))
        if power.free_symbols & self.held:
            return bool(base.is_positive)       # (-1)**n: mpmath computes it as it is
        return isinstance(base, GROWING) and bool(base.free_symbols & self.held)

    def _stand_in(self, part: sp.Expr) -> sp.Expr:
        if not part.free_symbols or isinstance(part, sp.Symbol):
            return part
        symbol = sp.Dummy(f"part{len(self.arguments)}", real=True)
        self.arguments[symbol] = part
        return symbol


def _holds(double: float, exact: mpmath.mpf, normal: tuple[float, float] | None) -> bool:
    """Whether doubles hold a value (with ``normal``: a plain part, to its share and in the range) or an
    argument (an exponential's argument off by ``d`` changes it by a share ``d``)."""
    if not mpmath.isfinite(exact) or not math.isfinite(double):
        return False
    if normal is None:
        # an argument's own rounding, a few units in its last place, and no more: a share of its size would
        # let 10**9*n + d(n) lose d = 1e-5, which changes its exponential by as much
        return bool(gap(double, exact) <= max(ROUND_OFF, ULPS * math.ulp(double)))
    if double == 0 and exact == 0:
        return True
    return normal[0] < abs(double) < normal[1] and bool(gap(double, exact) <= ROUND_OFF * abs(double))


def _round_off(arguments: Iterable[float]) -> float:
    """The largest share of its term a part may be off by and still hold (:func:`_holds`)."""
    return max([ROUND_OFF, *(ULPS * math.ulp(a) for a in arguments if math.isfinite(a))])


def _reach(summands: Callable[..., Any], roots: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The largest sum of the sizes of each index's term's summands at the points ``X``, in the sums' stable
    form (inf where one is not finite at one of them)."""
    out, step = np.zeros(len(roots)), max(1, BLOCK // max(len(X), 1))
    for start in range(0, len(roots), step):
        part = roots[start:start + step]
        rows = np.hstack([np.repeat(part, len(X), axis=0), np.tile(X, (len(part), 1))])
        with np.errstate(all="ignore"):
            try:
                values = sum((np.abs(broadcast(v, len(rows))) for v in summands(*columns(rows))), np.zeros(len(rows)))
            except (ArithmeticError, TypeError):
                values = np.full(len(rows), np.nan)
        values = np.where(np.isfinite(values), np.abs(values), np.inf).reshape(len(part), len(X))
        out[start:start + len(part)] = values.max(axis=1) if len(X) else 0.0
    return out


def _pointwise_gaps(both: Callable[..., Any], given: np.ndarray, X: np.ndarray) -> np.ndarray:
    """At each point of ``X``, the sum over the indices of ``given`` of how far the term as the sums compute it
    is from the term with mpmath's parts (the arguments, then the plain part's log and sign), both in doubles.
    Where the sums' term is not finite all of the other counts; where the other is not (``exp(-944)`` beside
    ``besseli(0, 949.6*(1 + x/10**20))``, 0 times inf in doubles, red team 44l) nothing confirms the sums'
    value and the gap is inf; where neither is, nothing counts (the sums' own value is not finite)."""
    out, step = np.zeros(len(X)), max(1, BLOCK // max(len(X), 1))
    for start in range(0, len(given), step):
        part = given[start:start + step]
        rows = np.hstack([np.repeat(part, len(X), axis=0), np.tile(X, (len(part), 1))])
        summed, exact = _both(both, rows)
        exact = np.where(np.isneginf(rows[:, part.shape[1] - 2]), 0.0, exact)      # a plain part of exactly 0
        differs = np.where(np.isfinite(exact), np.where(np.isfinite(summed), np.abs(summed - exact), np.abs(exact)),
                           np.where(np.isfinite(summed), np.inf, 0.0))
        out += differs.reshape(len(part), len(X)).sum(axis=0)
    return out


def _both(both: Callable[..., Any], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(all="ignore"):
        try:
            values = both(*columns(rows))
        except (ArithmeticError, TypeError):       # as evaluate: not finite here
            return np.full(len(rows), np.nan), np.full(len(rows), np.nan)
    return broadcast(values[0], len(rows)), broadcast(values[1], len(rows))


def held_roots(term: sp.Expr, indices: Sequence[sp.Symbol], chosen: np.ndarray
                ) -> tuple[list[sp.Symbol], np.ndarray, sp.Expr]:
    """The indices and each eigenvalue of the term (``besseljzero(0, n)``) as columns, and the term written with
    them: the eigenvalues in doubles, once per index, for both evaluations (mpmath finds a Bessel zero in about
    10 ms, and the term is evaluated at every point; what is compared is the term's own arithmetic, not the
    zero's last bit)."""
    atoms = sorted((a for a in term.atoms(EigenvalueFunction) if a.free_symbols <= set(indices)),
                   key=sp.default_sort_key)
    if not atoms:
        return list(indices), chosen, term
    held = [sp.Dummy(f"root{k}", positive=True) for k in range(len(atoms))]
    columns = [evaluate(a, list(indices), chosen) for a in atoms]
    return [*indices, *held], np.column_stack([chosen, *columns]), term.xreplace(dict(zip(atoms, held)))


def mpmath_values(expr: sp.Expr, variables: Sequence[sp.Symbol], rows: np.ndarray, tolerance: float,
             size: float) -> np.ndarray:
    """``expr``'s values at ``rows`` in mpmath at the digits its values there need (``size``: the values' size
    in doubles, what they are judged against), at most :data:`DOUBLES_RANGE` for them: the digits ask for the
    widest ratio of summands (``1 - exp(-2*pi*n*y)`` at n = 2000: thousands), and what doubles compute within
    their range is held at far fewer (a finite double is within 1e308 of 1 either way, and a part beyond that
    range is not finite in doubles, which the comparison leaves out)."""
    measured = min(measured_digits([expr], variables, rows, math.log10(size) if size > 0 else 0.0), DOUBLES_RANGE)
    digits = working_digits([expr], FIRST + math.ceil(math.log10(1 / tolerance)), measured) or MOST_DIGITS
    return values_at([expr], variables, rows, digits, np.zeros(rows.shape, dtype=bool))[0]


def gap(double: float, precise: mpmath.mpf) -> mpmath.mpf:
    """How far a value in doubles is from mpmath's: all of it where doubles have none (``(n + 1)**200/(n**2 + 2*n
    + 1)**100`` is 1, and inf/inf to them: the sums leave such a term out, red team 44h)."""
    return abs(mpmath.mpf(double) - precise) if math.isfinite(double) else abs(precise)


def rms(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(np.sqrt(np.mean(finite ** 2))) if len(finite) else 0.0
