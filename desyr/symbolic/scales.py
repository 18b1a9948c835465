"""The scale each residual is measured against (``docs/verify.md``, "The tolerance's scale").

A residual is a sum of terms: the problem's own **data** (the part that holds no field and no unknown:
a forcing, a boundary value) and the **terms** that hold the candidate (``coefficient * factor``, one per
distinct factor in the fields: ``-pi**2*u``, ``x*u_xx``).  An absolute tolerance judges a problem written
at 1e-9 as if every formula solved it; a residual measured only against its candidate's own terms can be
forged, since a candidate may add a huge part that the equation does not see (``u + 10**12`` where only
derivatives of ``u`` enter, ``u + 10**12*sin(x)`` for ``u_xx + u``) and so make any error look small.

So each residual ``k`` is measured against

    S_k = D_k + min(C_k, Q),

``D_k`` the RMS of its data on its points, ``C_k`` the size of its terms with the candidate put in (each
term: the larger of its RMS on the points and its coefficient's RMS there times its factor's RMS over the
domain's interior points, so that ``u = 0`` on a face is measured against the size of ``u``, which is ~0
on the face), and ``Q`` the problem's scale, the largest ``D_j`` of all its residuals (1 where the problem
holds no data at all).  The candidate can raise ``C_k`` but never past ``Q``, which only the config sets;
and a residual whose terms are smaller than the problem's scale is measured against them.  The verdict
takes ``RMS(residual_k) / max(S_k, FLOOR)`` for every ``k``.

Values a double cannot hold (``exp(800)``) are evaluated again with mpmath at those points, so a true
solution whose values overflow is measured like any other.
"""
from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from desyr.symbolic.numeric import broadcast, columns, lambdify
from desyr.symbolic.special import MPMATH

#: the smallest scale a residual is divided by: an identically-zero scale lets nothing but an exact 0 pass
FLOOR = sys.float_info.min
#: the most summands one product or power of sums is distributed into before it is kept whole
DISTRIBUTE = 64
#: digits of the evaluation of the points whose values a double cannot hold
DIGITS = 30
#: mpmath gives up on a residual when its first this many such points are not finite in mpmath either
PROBE = 16


@dataclass(frozen=True)
class Terms:
    """A residual split into its data (free of the dependent symbols) and its terms ``coefficient * factor``,
    one per distinct ``factor`` in the dependent symbols (the fields' jets, the unknowns)."""

    data: sp.Expr
    coefficients: tuple[sp.Expr, ...]
    factors: tuple[sp.Expr, ...]


def split_terms(expr: sp.Expr, dependent: set[sp.Symbol]) -> Terms:
    """``expr`` as data plus terms, its products of sums distributed (within :data:`DISTRIBUTE`) so that
    ``(x + 1)*(u_xx + sin(x))`` is ``(x + 1)*u_xx`` and the data ``(x + 1)*sin(x)``; terms with the same
    factor are one term, their coefficients added (``1e10*u*cos(x)**2 + 1e10*u*sin(x)**2 - 1e10*u`` is one
    term whose coefficient is 0 up to round-off, not three large ones)."""
    groups: dict[sp.Expr, sp.Expr] = {}
    order: list[sp.Expr] = []
    for term in _summands(expr):
        coefficient, factor = term.as_independent(*dependent, as_Add=False) if dependent else (term, sp.Integer(1))
        if factor not in groups:
            order.append(factor)
            groups[factor] = sp.Integer(0)
        groups[factor] += coefficient
    data = groups.pop(sp.Integer(1), sp.Integer(0))
    kept = [f for f in order if f != 1 and groups[f] != 0]
    return Terms(data, tuple(groups[f] for f in kept), tuple(kept))


def _summands(expr: sp.Expr) -> list[sp.Expr]:
    if expr.is_Add:
        return [t for a in expr.args for t in _summands(a)]
    if expr.is_Mul:
        parts = [_summands(f) for f in expr.args]
        if math.prod(len(p) for p in parts) > DISTRIBUTE:
            return [expr]
        return [sp.Mul(*combo) for combo in itertools.product(*parts)]
    if expr.is_Pow and expr.base.is_Add and expr.exp.is_Integer and 2 <= int(expr.exp) <= 4:
        base = _summands(expr.base)
        if len(base) ** int(expr.exp) > DISTRIBUTE:
            return [expr]
        return [sp.Mul(*combo) for combo in itertools.product(base, repeat=int(expr.exp))]
    return [expr]


@dataclass(frozen=True)
class Scaled:
    """One residual to measure: its value and its data and terms with the candidate put in (functions of
    ``variables``), on its points; an integral constraint's ``reduction`` (m, n) turns the values at its
    nodes into its m residuals. The first ``spread`` factors are also measured over the interior points."""

    kind: str                      # "equation" or "constraint"
    index: int
    residual: sp.Expr
    data: sp.Expr
    coefficients: tuple[sp.Expr, ...]
    factors: tuple[sp.Expr, ...]
    points: np.ndarray
    reduction: np.ndarray | None = None
    spread: int = 0


@dataclass(frozen=True)
class Measured:
    """One residual's numbers: its RMS (absolute), its data's RMS and its terms' size (uncapped)."""

    kind: str
    index: int
    count: int                     # how many residual values (points, or an integral's rows)
    absolute: Any                  # float or mpmath.mpf
    data: Any
    terms: Any


@dataclass
class Relative:
    """Every residual divided by its scale (``relative``) and by its data plus its uncapped terms
    (``roundoff``: what a float evaluation of large terms can leave), and the problem's scale ``Q``."""

    equations: list[float] = field(default_factory=list)
    constraints: list[float] = field(default_factory=list)
    roundoff_equations: list[float] = field(default_factory=list)
    roundoff_constraints: list[float] = field(default_factory=list)
    scale: float = 1.0


def measure(blocks: Sequence[Scaled], variables: Sequence[sp.Symbol], interior: np.ndarray) -> list[Measured]:
    """The numbers of each block (its values a double cannot hold evaluated with mpmath)."""
    out = []
    for b in blocks:
        k = len(b.coefficients)
        values = _values([b.residual, b.data, *b.coefficients, *b.factors], variables, b.points)
        r, d, cs, ms = values[0], values[1], values[2:2 + k], values[2 + k:]
        if b.reduction is not None:
            G = b.reduction
            r, d = G @ r, G @ d
            sizes = [_rms(np.abs(G) @ _abs(c * m)) for c, m in zip(cs, ms)]
        else:
            sizes = [_rms(c * m) for c, m in zip(cs, ms)]
            if b.spread and len(interior):
                wide = _values(list(b.factors[:b.spread]), variables, interior)
                sizes[:b.spread] = [max(s, _rms(c) * _rms(m)) for s, c, m in zip(sizes, cs, wide)]
        out.append(Measured(b.kind, b.index, int(np.shape(r)[0]), _rms(r), _rms(d), sum(sizes, mpmath.mpf(0))))
    return out


def relative(measured: Sequence[Measured]) -> Relative:
    """Each residual over ``D_k + min(C_k, Q)`` (and over ``D_k + C_k``), ``Q`` the largest ``D_k``."""
    scale = max((mpmath.mpf(m.data) for m in measured), default=mpmath.mpf(0))
    if not scale > 0 or not mpmath.isfinite(scale):
        scale = mpmath.mpf(1)
    out = Relative(scale=_float(scale))
    for m in measured:
        data, terms = mpmath.mpf(m.data), mpmath.mpf(m.terms)
        capped = _ratio(m.absolute, data + min(terms, scale))
        loose = _ratio(m.absolute, data + terms)
        if m.kind == "equation":
            out.equations.append(capped)
            out.roundoff_equations.append(loose)
        else:
            out.constraints.append(capped)
            out.roundoff_constraints.append(loose)
    return out


def aggregate(measured: Sequence[Measured], kind: str, coupled: bool) -> float | None:
    """R_eq or R_con: the RMS over every point of that kind (a scalar problem), or the RMS of the residuals'
    own RMS values (coupled); None where there is no residual of that kind."""
    mine = [m for m in measured if m.kind == kind]
    if not mine:
        return None
    if coupled:
        total = mpmath.fsum(mpmath.mpf(m.absolute) ** 2 for m in mine) / len(mine)
    else:
        total = mpmath.fsum(m.count * mpmath.mpf(m.absolute) ** 2 for m in mine) / max(sum(m.count for m in mine), 1)
    return _float(mpmath.sqrt(total))


def _ratio(top: Any, bottom: Any) -> float:
    top = mpmath.mpf(top)
    if not mpmath.isfinite(top):
        return math.inf
    if top == 0:
        return 0.0
    return _float(top / max(mpmath.mpf(bottom), mpmath.mpf(FLOOR)))


def _float(value: Any) -> float:
    if isinstance(value, float):
        return value
    if mpmath.isnan(value):
        return math.inf
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _rms(values: np.ndarray) -> Any:
    """The RMS of ``values``: a float, or an mpf where a value is one (never overflowing)."""
    if values.dtype != object:
        values = np.asarray(values, dtype=float)
        if not values.size:
            return 0.0
        if not np.isfinite(values).all():
            return math.inf
        top = float(np.max(np.abs(values)))
        if top == 0.0:
            return 0.0
        return top * float(np.sqrt(np.mean(np.square(values / top))))
    if not values.size:
        return mpmath.mpf(0)
    if not all(mpmath.isfinite(v) for v in values):
        return mpmath.mpf("inf")
    return mpmath.sqrt(mpmath.fsum(mpmath.mpf(v) ** 2 for v in values) / len(values))


def _abs(values: np.ndarray) -> np.ndarray:
    if values.dtype == object:
        return np.array([abs(v) for v in values], dtype=object)
    out: np.ndarray = np.abs(values)
    return out


def _values(exprs: list[sp.Expr], variables: Sequence[sp.Symbol], X: np.ndarray) -> list[np.ndarray]:
    """Each expression's values at the rows of ``X``; where one is not finite in doubles, every expression
    is evaluated again there with mpmath at :data:`DIGITS` digits (object arrays of mpf then)."""
    n = X.shape[0]
    fn = lambdify(list(variables), exprs)
    with np.errstate(all="ignore"):
        try:
            out = [broadcast(v, n).astype(float, copy=True) for v in fn(*columns(X))]
        except (ArithmeticError, TypeError):
            out = [np.full(n, np.nan) for _ in exprs]
    bad = np.flatnonzero(~np.all([np.isfinite(v) for v in out], axis=0)) if out else np.array([], dtype=int)
    if not bad.size:
        return out
    precise = _mpmath_function(list(variables), exprs)
    mixed = [np.array([mpmath.mpf(float(x)) for x in v], dtype=object) for v in out]
    for k, row in enumerate(bad):   # every one: a formula that fails doubles on most points is checked on all
        values = _precise_row(precise, X[row], len(exprs))
        for j, value in enumerate(values):
            mixed[j][row] = value
        if k + 1 == PROBE and not any(all(mpmath.isfinite(v[r]) for v in mixed) for r in bad[:PROBE]):
            break           # not an overflow: undefined (nan) there in any precision; the rest stay not finite
    return mixed


def _mpmath_function(variables: list[sp.Symbol], exprs: list[sp.Expr]) -> Callable[..., Any] | None:
    try:
        fn: Callable[..., Any] = sp.lambdify(variables, exprs, modules=[MPMATH, "mpmath"])
    except Exception:  # noqa: BLE001 - what mpmath cannot print stays not finite, never a crash
        return None
    return fn


def _precise_row(fn: Callable[..., Any] | None, row: np.ndarray, count: int) -> list[Any]:
    """The values at one point at :data:`DIGITS` digits (nan where mpmath cannot give a real number)."""
    if fn is not None:
        try:
            with mpmath.workdps(DIGITS):
                values = fn(*[mpmath.mpf(float(v)) for v in row])
                return [_real(mpmath.mpmathify(v)) for v in values]
        except (ArithmeticError, ValueError, TypeError, NameError, AttributeError):
            pass
    return [mpmath.mpf("nan")] * count


def _real(value: Any) -> Any:
    if isinstance(value, mpmath.mpc):
        return value.real if value.imag == 0 else mpmath.mpf("nan")
    return value
