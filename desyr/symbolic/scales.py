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
takes ``RMS(residual_k) / S_k`` for every ``k`` (over a zero scale only an exact 0 passes).

Values a double cannot hold (``exp(800)``) are evaluated again with mpmath at those points, so a true
solution whose values overflow is measured like any other; and a residual whose data or terms are all
below what a double holds to its last digit (data written with ``exp(-800)``, 0 in doubles, which made
every formula fit) is measured in mpmath at all its points, so its scale is the data's true size.
:func:`measure` with ``digits`` evaluates everything in mpmath, for the verifier's second look where
doubles cannot decide (:mod:`desyr.verify.precise`).  The split of a residual into its data and terms
is :mod:`desyr.symbolic.residual_terms`.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from desyr.symbolic.generic_points import moved_rows, varying, working_digits
from desyr.symbolic.numeric import broadcast, columns, lambdify
from desyr.symbolic.special import MPMATH

#: digits of the evaluation of the points whose values a double cannot hold
DIGITS = 30
#: mpmath gives up on a residual when its first this many such points are not finite in mpmath either
PROBE = 16
#: below this a double has lost digits to underflow (it holds 2.2e-308 to its last digit, subnormals less):
#: data or terms all this small are measured in mpmath
TINY = 1e-290


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
    shifted: tuple[sp.Expr, ...] = ()  # Terms.shifted: the data's size is the smallest of them all
    #: the first ``spread`` factors as measured over the interior, where not the factors themselves (a
    #: periodic pair's factor at its partner is the field's own factor there, not shifted off the domain)
    wide: tuple[sp.Expr, ...] = ()


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
    (``roundoff``: what a float evaluation of large terms can leave), each residual's scale ``S_k``
    (``sizes``), how many digits its terms exceed it by (``depths``: log10 of ``(D_k + C_k) / S_k``, what a
    second evaluation must carry beyond the tolerance), and the problem's scale ``Q``."""

    equations: list[float] = field(default_factory=list)
    constraints: list[float] = field(default_factory=list)
    roundoff_equations: list[float] = field(default_factory=list)
    roundoff_constraints: list[float] = field(default_factory=list)
    scale: float = 1.0
    sizes_equations: list[float] = field(default_factory=list)
    sizes_constraints: list[float] = field(default_factory=list)
    depths: list[float] = field(default_factory=list)


def measure(blocks: Sequence[Scaled], variables: Sequence[sp.Symbol], interior: np.ndarray,
            digits: int | None = None) -> list[Measured]:
    """The numbers of each block: in doubles, its values a double cannot hold (too large, or data and terms
    all too small) evaluated with mpmath; with ``digits``, everything in mpmath at that precision."""
    return [measure_block(b, variables, interior, digits) for b in blocks]


def measure_block(b: Scaled, variables: Sequence[sp.Symbol], interior: np.ndarray,
                  digits: int | None = None) -> Measured:
    """One block's numbers (see :func:`measure`)."""
    k = len(b.coefficients)
    exprs = [b.residual, b.data, *b.coefficients, *b.factors]
    values = values_at(exprs, variables, b.points, digits)
    if digits is None and _underflows(b, values):
        # the data or the terms are below what a double holds: their true size; unless mpmath finds them not
        # finite where doubles did not (a point written 0.3 is a float below 3/10: sqrt(x - 3/10) is 0 there in
        # doubles, as on the exact face, and not real in mpmath), which is the point's float, not the formula
        precise = values_at(exprs, variables, b.points, DIGITS)
        if _finite_where(values, precise):
            digits, values = DIGITS, precise
    r, d, cs, ms = values[0], values[1], values[2:2 + k], values[2 + k:]
    d = _smaller_data(b, d, variables, digits)
    if b.reduction is not None:
        G = b.reduction
        r, d = G @ r, G @ d
        sizes = [rms(np.abs(G) @ _abs(c * m)) for c, m in zip(cs, ms)]
    else:
        sizes = [rms(c * m) for c, m in zip(cs, ms)]
        if b.spread and len(interior):
            wide = values_at(list(b.wide or b.factors[:b.spread]), variables, interior, digits)
            sizes[:b.spread] = [max(s, rms(c) * rms(m)) for s, c, m in zip(sizes, cs, wide)]
    return Measured(b.kind, b.index, int(np.shape(r)[0]), rms(r), rms(d), sum(sizes, mpmath.mpf(0)))


def data_values(b: Scaled, variables: Sequence[sp.Symbol], digits: int) -> np.ndarray:
    """A block's data at its points (its integral's rows), at ``digits`` digits."""
    d = _smaller_data(b, values_at([b.data], variables, b.points, digits)[0], variables, digits)
    return b.reduction @ d if b.reduction is not None else d


def _smaller_data(b: Scaled, d: np.ndarray, variables: Sequence[sp.Symbol], digits: int | None) -> np.ndarray:
    """The block's data values ``d``, or one of its shifted data's where their RMS is smaller (the smallest
    finite one): terms that cancel data identically never make the scale (a wrong formula was Verified
    against data of 1e6 that only ``10**6*(cos(u)**2 + sin(u)**2)`` met)."""
    if not b.shifted:
        return d
    best, size = d, rms(d)
    for other in values_at(list(b.shifted), variables, b.points, digits):
        other_size = rms(other)
        if mpmath.isfinite(other_size) and (not mpmath.isfinite(size) or other_size < size):
            best, size = other, other_size
    return best


def _underflows(b: Scaled, values: list[np.ndarray]) -> bool:
    """Whether a block's scale is below what doubles hold: data that are not 0 as written but all tiny in
    doubles (``exp(-800)*sin(pi*x)`` is 0 there), or data and every term all tiny while some term is not 0
    as written. Its residual is then as lost as its scale, and the whole block goes to mpmath."""
    k = len(b.coefficients)
    d, cs, ms = values[1], values[2:2 + k], values[2 + k:]
    if not _tiny(d):
        return False
    if b.data != 0:
        return True
    live = [c * m for c, m, ce, me in zip(cs, ms, b.coefficients, b.factors) if ce != 0 and me != 0]
    return bool(live) and all(_tiny(v) for v in live)


def _finite_where(doubles: list[np.ndarray], precise: list[np.ndarray]) -> bool:
    """Whether every precise value is finite wherever its double is."""
    for d, p in zip(doubles, precise):
        with np.errstate(all="ignore"):
            finite = np.isfinite(np.asarray(d, dtype=float)) if d.dtype != object else \
                np.array([bool(mpmath.isfinite(v)) for v in d])
        if any(not mpmath.isfinite(v) for v, f in zip(p, finite) if f):
            return False
    return True


def _tiny(values: np.ndarray) -> bool:
    """Whether every value is a double below :data:`TINY` (exact zeros included); mpf values are exact enough."""
    if values.dtype == object:
        return False
    with np.errstate(all="ignore"):
        return bool(np.all(np.abs(np.asarray(values, dtype=float)) < TINY))


def relative(measured: Sequence[Measured]) -> Relative:
    """Each residual over ``D_k + min(C_k, Q)`` (and over ``D_k + C_k``), ``Q`` the largest ``D_k``."""
    scale = max((mpmath.mpf(m.data) for m in measured), default=mpmath.mpf(0))
    if not scale > 0 or not mpmath.isfinite(scale):
        scale = mpmath.mpf(1)
    out = Relative(scale=_float(scale))
    for m in measured:
        data, terms = mpmath.mpf(m.data), mpmath.mpf(m.terms)
        size = data + min(terms, scale)
        capped = _ratio(m.absolute, size)
        loose = _ratio(m.absolute, data + terms)
        out.depths.append(_depth(data + terms, size))
        if m.kind == "equation":
            out.equations.append(capped)
            out.roundoff_equations.append(loose)
            out.sizes_equations.append(_float(size))
        else:
            out.constraints.append(capped)
            out.roundoff_constraints.append(loose)
            out.sizes_constraints.append(_float(size))
    return out


def _depth(whole: Any, size: Any) -> float:
    """log10(whole / size), 0 where either is 0 or not finite."""
    whole, size = mpmath.mpf(whole), mpmath.mpf(size)
    if not (whole > 0 and size > 0 and mpmath.isfinite(whole) and mpmath.isfinite(size)):
        return 0.0
    return max(float(mpmath.log10(whole / size)), 0.0)


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
    """``top / bottom``: 0 for a zero residual, infinite over a zero scale (nothing but an exact 0 passes
    there); a scale below a double's range is one only in mpmath (:func:`_underflows`), and is used as it is."""
    top, bottom = mpmath.mpf(top), mpmath.mpf(bottom)
    if not mpmath.isfinite(top):
        return math.inf
    if top == 0:
        return 0.0
    return _float(top / bottom) if bottom > 0 else math.inf


def _float(value: Any) -> float:
    if isinstance(value, float):
        return value
    if mpmath.isnan(value):
        return math.inf
    try:
        return float(value)
    except OverflowError:
        return math.inf


def rms(values: np.ndarray) -> Any:
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


def values_at(exprs: list[sp.Expr], variables: Sequence[sp.Symbol], X: np.ndarray,
            digits: int | None = None, move: np.ndarray | None = None) -> list[np.ndarray]:
    """Each expression's values at the rows of ``X``; where one is not finite in doubles, every expression
    is evaluated again there with mpmath at :data:`DIGITS` digits (object arrays of mpf then); with
    ``digits``, all of them with mpmath at that precision.  In mpmath the points are moved off the doubles
    (:mod:`desyr.symbolic.generic_points`: the entries ``move`` names, by default
    :func:`~desyr.symbolic.generic_points.varying`), at a precision above the formula's largest number."""
    n = X.shape[0]
    move = varying(X) if move is None else move
    if digits is not None:
        precise = _mpmath_function(list(variables), exprs)
        working = working_digits(exprs, digits)
        rows = [_precise_row(precise, X, i, move, len(exprs), working) for i in range(n)]
        return [np.array([row[j] for row in rows], dtype=object) for j in range(len(exprs))]
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
    working = working_digits(exprs, DIGITS)
    mixed = [np.array([mpmath.mpf(float(x)) for x in v], dtype=object) for v in out]
    for k, row in enumerate(bad):   # every one: a formula that fails doubles on most points is checked on all
        values = _precise_row(precise, X, row, move, len(exprs), working)
        for j, value in enumerate(values):
            mixed[j][row] = value
        if k + 1 == PROBE and not any(all(mpmath.isfinite(v[r]) for v in mixed) for r in bad[:PROBE]):
            break           # not an overflow: undefined (nan) there in any precision; the rest stay not finite
    return mixed


def _mpmath_function(variables: list[sp.Symbol], exprs: list[sp.Expr]) -> Callable[..., Any] | None:
    key = (tuple(variables), tuple(exprs))
    if key not in _COMPILED:       # a series' terms are measured index by index, each chunk a call
        if len(_COMPILED) >= COMPILED_KEPT:
            _COMPILED.pop(next(iter(_COMPILED)))
        _COMPILED[key] = _compiled(variables, exprs)
    return _COMPILED[key]


_COMPILED: dict[tuple[tuple[sp.Symbol, ...], tuple[sp.Expr, ...]], Callable[..., Any] | None] = {}
COMPILED_KEPT = 64


def _compiled(variables: list[sp.Symbol], exprs: list[sp.Expr]) -> Callable[..., Any] | None:
    try:
        # common parts once: a residual, its data and its terms repeat the field's values (exp(exp(x)) at
        # 1000 digits is what the time goes on)
        fn: Callable[..., Any] = sp.lambdify(variables, exprs, modules=[MPMATH, "mpmath"], cse=True)
    except Exception:  # noqa: BLE001 - what mpmath cannot print stays not finite, never a crash
        return None
    return fn


def _precise_row(fn: Callable[..., Any] | None, X: np.ndarray, row: int, move: np.ndarray, count: int,
                 digits: int | None) -> list[Any]:
    """The values at row ``row`` of ``X``, moved off the doubles, at ``digits`` digits (nan where mpmath
    cannot give a real number, or where the formula's numbers need more digits than are allowed)."""
    if fn is not None and digits is not None:
        try:
            with mpmath.workdps(digits):
                values = fn(*moved_rows(X[row:row + 1], move[row:row + 1])[0])
                return [_real(mpmath.mpmathify(v)) for v in values]
        except (ArithmeticError, ValueError, TypeError, NameError, AttributeError):
            pass
    return [mpmath.mpf("nan")] * count


def _real(value: Any) -> Any:
    if isinstance(value, mpmath.mpc):
        return value.real if value.imag == 0 else mpmath.mpf("nan")
    return value
