"""Coefficient laws: an exact formula ``c(n)`` for a sequence known to many digits at its first indices.

The paper's idea applied to a series' coefficients (issue 46, item 3; docs/series.md, "Coefficient
laws"): where the exact orthogonality integrals are out of reach, the data's projections onto the
eigenfunctions are computed by quadrature, to about 50 digits, at the first 48 indices; a law is
searched for on those samples, its constants are fitted to them and identified exactly, and it is kept
only if it reproduces every sample.  The verifier then proves it like any coefficient.

The laws, simplest first, for every ``skip`` of 0 to 3 exceptional first indices (their values kept one
by one) and every period ``P`` of 1, 2 and 4 (each residue class of ``n`` modulo ``P`` has its own law,
joined into one formula with ``(-1)**n``, ``cos(pi*n/2)`` and ``sin(pi*n/2)``):

    c(n) = rho**n * p(s)/q(s)

with ``s`` the eigenfunction's frequency (``pi*n/L``), ``p/q`` a rational function of total degree at most
:data:`MAX_DEGREE` and ``rho`` a geometric ratio (1 unless the samples' ratios tend to another number).
On each class the ratio's limit is extrapolated in ``1/n`` and identified; ``p`` and ``q`` (monic) are
fitted by least squares at the working precision, the smallest degrees first, and accepted when they
reproduce every sample of the class (at least :data:`HELD_OUT` more samples than unknowns).  Each fitted
number is then identified (:func:`identify_number`): a rational times a power of pi times one of the
given constants (the data's own transcendental values, ``E``, ``sin(1)``...), else an integer relation
among those (PSLQ), else a root of a quadratic.  The exact law must reproduce every sample to the
samples' accuracy: at 50 digits a wrong law cannot.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

#: the periods of the residue classes tried (a law in sin(pi*n/2) has period 4)
PERIODS = (1, 2, 4)
#: exceptional first indices at most (their coefficients kept one by one)
MAX_SKIP = 3
#: the largest total degree of the rational part p/q
MAX_DEGREE = 12
#: samples of a class beyond the fit's unknowns
HELD_OUT = 3
#: the fewest correct digits (relative to the largest sample) at which a law is looked for
MIN_DIGITS = 24
#: how far (a power of 10) a fitted or identified law may miss a sample, beyond the samples' accuracy
SLACK = 10**6
#: powers of pi tried in an identification, simplest first
PI_POWERS = (0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6)
#: the largest denominator of a rational and coefficient of an integer relation
MAX_COEFFICIENT = 10**6


@dataclass(frozen=True)
class Samples:
    """``values[i]`` is ``c(first + i)``, each within ``accuracy`` (absolute)."""

    first: int
    values: tuple[Any, ...]           # mpmath numbers
    accuracy: Any

    @property
    def size(self) -> Any:
        return max(abs(v) for v in self.values)

    @property
    def digits(self) -> float:
        """Correct digits relative to the largest sample."""
        if self.size == 0:
            return float("inf")
        return float(-mpmath.log10(max(self.accuracy, mpmath.mpf(10) ** -mpmath.mp.dps) / self.size))

    def indices(self) -> range:
        return range(self.first, self.first + len(self.values))


@dataclass(frozen=True)
class Law:
    """``c(n) = generic`` for ``n >= start``; ``fixed[n]`` for the exceptional indices below it."""

    generic: sp.Expr
    start: int
    fixed: Mapping[int, sp.Expr] = field(default_factory=dict)

    def at(self, index: sp.Symbol, n: int) -> sp.Expr:
        if n < self.start:
            return self.fixed.get(n, sp.Integer(0))
        return self.generic.subs(index, n)


def find_law(samples: Samples, index: sp.Symbol, frequency: sp.Expr, constants: Sequence[sp.Expr] = ()) -> Law | None:
    """The simplest law that reproduces ``samples`` (``frequency``: the eigenfunctions' frequency in ``index``,
    the variable of the rational part; ``constants``: numbers the law's constants may hold besides pi), or
    None where none is found or the samples are too inaccurate."""
    if samples.size <= SLACK * samples.accuracy:
        return Law(sp.Integer(0), samples.first)
    if samples.digits < MIN_DIGITS:
        return None
    with mpmath.workdps(max(mpmath.mp.dps, int(samples.digits) + 10)):
        for skip in range(MAX_SKIP + 1):
            for period in PERIODS:
                law = _periodic(samples, skip, period, index, frequency, constants)
                if law is not None:
                    return law
    return None


def _periodic(samples: Samples, skip: int, period: int, index: sp.Symbol, frequency: sp.Expr,
              constants: Sequence[sp.Expr]) -> Law | None:
    start = samples.first + skip
    laws: dict[int, sp.Expr] = {}
    for residue in range(period):
        members = [(n, v) for n, v in zip(samples.indices(), samples.values) if n >= start and n % period == residue]
        law = _class_law(members, samples.accuracy, period, index, frequency, constants)
        if law is None:
            return None
        laws[residue] = law
    fixed: dict[int, sp.Expr] = {}
    for n, v in zip(samples.indices(), samples.values):
        if n >= start:
            break
        value = identify_number(v, SLACK * samples.accuracy, constants)
        if value is None:
            return None
        if value != 0:
            fixed[n] = value
    law = Law(_joined(period, laws, index), start, fixed)
    return law if reproduces(law, samples, index) else None


def reproduces(law: Law, samples: Samples, index: sp.Symbol) -> bool:
    """Whether the exact ``law`` gives every sample to its accuracy (within :data:`SLACK`)."""
    g = sp.lambdify(index, law.generic, modules="mpmath")
    for n, v in zip(samples.indices(), samples.values):
        exact = mpmath.mpmathify(sp.N(law.fixed.get(n, 0), mpmath.mp.dps)) if n < law.start else g(mpmath.mpf(n))
        if abs(exact - v) > SLACK * samples.accuracy:
            return False
    return True


def _joined(period: int, laws: Mapping[int, sp.Expr], n: sp.Symbol) -> sp.Expr:
    """One formula from the classes' laws: each times the indicator of its class, written with ``(-1)**n``,
    ``cos(pi*n/2)`` and ``sin(pi*n/2)``."""
    if period == 1:
        return laws[0]
    sign = (-1) ** n
    total = sp.Integer(0)
    for r, law in laws.items():
        if law == 0:
            continue
        if period == 2:
            indicator = (1 + (-1) ** r * sign) / 2
        else:
            quarter = sp.cos(sp.pi * r / 2) * sp.cos(sp.pi * n / 2) + sp.sin(sp.pi * r / 2) * sp.sin(sp.pi * n / 2)
            indicator = (1 + (-1) ** r * sign + 2 * quarter) / 4
        total += law * indicator
    atoms = [sign, sp.cos(sp.pi * n / 2), sp.sin(sp.pi * n / 2)]
    parts = sp.collect(sp.expand(total), atoms, evaluate=False)
    return sp.Add(*[sp.factor_terms(sp.factor(sp.together(c))) * k for k, c in parts.items()])


def _class_law(members: Sequence[tuple[int, Any]], accuracy: Any, period: int, index: sp.Symbol,
               frequency: sp.Expr, constants: Sequence[sp.Expr]) -> sp.Expr | None:
    ns = [n for n, _ in members]
    values = [v for _, v in members]
    if not values or max(abs(v) for v in values) <= SLACK * accuracy:
        return sp.Integer(0)
    s = sp.lambdify(index, frequency, modules="mpmath")
    for ratio in _ratios(ns, values, accuracy, period, constants):
        step = mpmath.mpmathify(sp.N(ratio, mpmath.mp.dps))
        scaled = [v / step**n for n, v in zip(ns, values)]
        errors = [accuracy / abs(step) ** n for n in ns]
        rational = _rational([s(mpmath.mpf(n)) for n in ns], scaled, errors, constants)
        if rational is not None:
            variable = sp.Dummy("s")
            law = rational.xreplace({_S: variable}).xreplace({variable: frequency})
            return sp.factor_terms(_power(ratio, index) * law) if ratio != 1 else law
    return None


_S = sp.Symbol("s")


def _power(ratio: sp.Expr, index: sp.Symbol) -> sp.Expr:
    """``ratio**index``, a rational as ``p**n/q**n`` (``2**(-n)`` rather than ``(1/2)**n``)."""
    if ratio.is_Rational:
        return sp.Integer(ratio.p) ** index / sp.Integer(ratio.q) ** index
    return ratio**index


def _ratios(ns: Sequence[int], values: Sequence[Any], accuracy: Any, period: int,
            constants: Sequence[sp.Expr]) -> list[sp.Expr]:
    """The geometric ratio per index the samples follow: the ratio of consecutive samples of the class,
    extrapolated to ``n = oo`` as a polynomial in ``1/n``; 1 where it tends to 1 (or the samples are too
    few or hold zeros), none where it is not identified (no rational law can follow a geometric decay)."""
    usable = [(n, v) for n, v in zip(ns, values) if abs(v) > SLACK**2 * accuracy]
    if len(usable) < 8 or any(b - a != period for (a, _), (b, _) in zip(usable, usable[1:])):
        return [sp.Integer(1)]
    tail = usable[-12:]
    us = [mpmath.mpf(1) / n for n, _ in tail[:-1]]
    ts = [b / a for (_, a), (_, b) in zip(tail, tail[1:])]
    limit = _extrapolated(us, ts)
    if abs(limit - 1) < mpmath.mpf(10) ** -6:
        return [sp.Integer(1)]
    # identified within what one sample less moves the extrapolation: a loose tolerance takes a rational
    # near an exact geometric ratio such as sqrt(3) - 2 for it
    spread = abs(_extrapolated(us[1:], ts[1:]) - limit)
    floor = abs(limit) * mpmath.mpf(10) ** (10 - mpmath.mp.dps)
    found = identify_number(limit, min(max(100 * spread, floor), abs(limit) * mpmath.mpf(10) ** -9), constants)
    if found is None or found == 0:
        return []
    if period == 1:
        return [found]
    return [sp.root(found, period)] if found.is_positive else []


def _extrapolated(us: Sequence[Any], ts: Sequence[Any]) -> Any:
    """The value at 0 of the polynomial through the points (Neville's scheme)."""
    values = list(ts)
    for level in range(1, len(us)):
        for i in range(len(us) - level):
            values[i] = (us[i + level] * values[i] - us[i] * values[i + 1]) / (us[i + level] - us[i])
    return values[0]


def _rational(ss: Sequence[Any], hs: Sequence[Any], errors: Sequence[Any], constants: Sequence[sp.Expr]) -> sp.Expr | None:
    """``p(s)/q(s)`` through every ``(s_i, h_i)`` within ``errors``, exact, the smallest total degree first."""
    top = max(abs(x) for x in ss)
    xs = [x / top for x in ss]
    for total in range(0, min(MAX_DEGREE, len(ss) - HELD_OUT - 1) + 1):
        for den in range(0, total + 1):
            if not _plausible(xs, hs, total - den, den):
                continue
            fitted = _fit(xs, hs, total - den, den, 0)
            if fitted is None or not _close(fitted, xs, hs, errors):
                continue
            other = _fit(xs, hs, total - den, den, 1)
            exact = None if other is None else _identified(fitted, other, top, constants)
            if exact is not None and _exact_close(exact, ss, hs, errors):
                return exact
    return None


#: how closely a fit in doubles must pass the samples (relative) before it is made at the working precision
PLAUSIBLE = 1e-7


def _plausible(xs: Sequence[Any], hs: Sequence[Any], num: int, den: int) -> bool:
    """A quick look in doubles: whether a rational function of these degrees passes near every sample."""
    x = np.array([float(v) for v in xs])
    size = max(abs(v) for v in hs)
    h = np.array([float(v / size) for v in hs])
    columns = [x**j for j in range(num + 1)] + [-h * x**j for j in range(den)]
    matrix = np.stack(columns, axis=1)
    solution, *_ = np.linalg.lstsq(matrix, h * x**den, rcond=None)
    p = np.polynomial.polynomial.polyval(x, solution[:num + 1])
    q = np.polynomial.polynomial.polyval(x, np.append(solution[num + 1:], 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        miss = np.abs(p / q - h)
    return bool(np.all(np.isfinite(miss)) and np.max(miss) < PLAUSIBLE)


Fitted = tuple[list[Any], list[Any]]      # p's and q's coefficients, lowest degree first, q monic


def _fit(xs: Sequence[Any], hs: Sequence[Any], num: int, den: int, shift: int) -> Fitted | None:
    """``p(x) - h*q(x) = 0`` with ``q`` monic of degree ``den``, solved at ``num + den + 1`` samples spread
    over the range, from the first (``shift`` 0) or the last (1); the others then test it."""
    unknowns = num + den + 1
    last = len(xs) - 1
    if unknowns > last + 1 - shift:
        return None
    chosen = sorted({shift + round(i * (last - shift) / max(unknowns - 1, 1)) for i in range(unknowns)})
    if len(chosen) < unknowns:
        return None
    rows, rhs = [], []
    for i in chosen:
        x, h = xs[i], hs[i]
        rows.append([x**j for j in range(num + 1)] + [-h * x**j for j in range(den)])
        rhs.append(h * x**den)
    try:
        solution = mpmath.lu_solve(mpmath.matrix(rows), mpmath.matrix(rhs))
    except (ZeroDivisionError, ValueError):
        return None
    values = [solution[i] for i in range(unknowns)]
    return values[:num + 1], values[num + 1:] + [mpmath.mpf(1)]


def _value(fitted: Fitted, x: Any) -> Any:
    p, q = fitted
    return mpmath.polyval(p[::-1], x) / mpmath.polyval(q[::-1], x)


def _close(fitted: Fitted, xs: Sequence[Any], hs: Sequence[Any], errors: Sequence[Any]) -> bool:
    try:
        return all(abs(_value(fitted, x) - h) <= SLACK * e for x, h, e in zip(xs, hs, errors))
    except ZeroDivisionError:
        return False


def _identified(fitted: Fitted, other: Fitted, top: Any, constants: Sequence[sp.Expr]) -> sp.Expr | None:
    """The fitted ``p/q`` in the frequency ``s = x*top``, each coefficient identified (``q`` monic in ``s``)
    within what two fits on different samples leave it uncertain."""
    den = len(fitted[1]) - 1
    scale = top**den
    floor = mpmath.mpf(10) ** (8 - mpmath.mp.dps)
    out = []
    for mine, theirs in zip((fitted[0], fitted[1][:-1]), (other[0], other[1][:-1])):
        exact = []
        for j, (c, d) in enumerate(zip(mine, theirs)):
            value = c * scale / top**j
            spread = abs(c - d) * scale / top**j
            found = identify_number(value, 100 * spread + floor * (1 + abs(value)), constants)
            if found is None:
                return None
            exact.append(found)
        out.append(exact)
    numerator = sp.Add(*[c * _S**j for j, c in enumerate(out[0])])
    denominator = _S**den + sp.Add(*[c * _S**j for j, c in enumerate(out[1])])
    return numerator / denominator


def _exact_close(law: sp.Expr, ss: Sequence[Any], hs: Sequence[Any], errors: Sequence[Any]) -> bool:
    g = sp.lambdify(_S, law, modules="mpmath")
    try:
        return all(abs(g(s) - h) <= SLACK * e for s, h, e in zip(ss, hs, errors))
    except ZeroDivisionError:
        return False


def identify_number(value: Any, tolerance: Any, constants: Sequence[sp.Expr] = ()) -> sp.Expr | None:
    """An exact number within ``tolerance`` of ``value``: 0; a rational times a power of pi times 1 or one of
    ``constants``; an integer relation among ``constants`` (and 1) times a power of pi (PSLQ); a root of a
    quadratic with small integer coefficients; else None."""
    value = mpmath.mpmathify(value)
    if abs(value) <= tolerance:
        return sp.Integer(0)
    bases = [sp.Integer(1), *constants]
    numeric = [mpmath.mpmathify(sp.N(b, mpmath.mp.dps)) for b in bases]
    powers = [(k, mpmath.pi**k) for k in PI_POWERS]
    for k, pk in powers:
        for base, b in zip(bases, numeric):
            r = _rational_near(value / (b * pk), tolerance / abs(b * pk))
            if r is not None:
                return r * base * sp.pi**k
    if len(bases) > 1:
        for k, pk in powers:
            relation = _relation([value, *[b * pk for b in numeric]], tolerance)
            if relation is not None and relation[0] != 0:
                return -sp.Add(*[sp.Integer(c) * b for c, b in zip(relation[1:], bases)]) * sp.pi**k / relation[0]
    return _quadratic(value, tolerance)


def _rational_near(x: Any, tolerance: Any) -> sp.Rational | None:
    near = Fraction(mpmath.nstr(x, mpmath.mp.dps, strip_zeros=False)).limit_denominator(MAX_COEFFICIENT)
    if near.numerator == 0 or abs(near.numerator) > MAX_COEFFICIENT**2:
        return None
    if abs(mpmath.mpf(near.numerator) / near.denominator - x) <= tolerance:
        return sp.Rational(near.numerator, near.denominator)
    return None


def _relation(vector: Sequence[Any], tolerance: Any) -> list[int] | None:
    scale = max(abs(v) for v in vector)
    try:
        found = mpmath.pslq([v / scale for v in vector], tol=max(tolerance / scale, mpmath.mpf(10) ** (5 - mpmath.mp.dps)),
                            maxcoeff=MAX_COEFFICIENT, maxsteps=2000)
    except (ValueError, ZeroDivisionError):
        return None
    if found is None:
        return None
    residual = abs(sum(c * v for c, v in zip(found, vector)))
    return [int(c) for c in found] if residual <= tolerance * max(abs(c) for c in found) else None


def _quadratic(value: Any, tolerance: Any) -> sp.Expr | None:
    """A root of ``a*x**2 + b*x + c`` (small integers, ``a != 0``) within ``tolerance`` of ``value``."""
    relation = _relation([mpmath.mpf(1), value, value**2], tolerance)
    if relation is None or relation[2] == 0:
        return None
    c, b, a = relation
    x = sp.Symbol("x")
    for root in sp.solve(a * x**2 + b * x + c, x):
        if root.is_real and abs(mpmath.mpmathify(sp.N(root, mpmath.mp.dps)) - value) <= tolerance:
            return sp.nsimplify(root)
    return None
