"""Symmetries of the samples and the reduced variables they give (issue 47, item 3).

A field that is invariant under a group of the plane or of space and time depends on fewer variables
than it is sampled in: ``log(8/(1 + x**2 + y**2)**2)`` only on ``s = x**2 + y**2`` (a rotation about
the origin), ``atan(y/x)`` only on ``y/x`` (a dilation), the heat kernel
``exp(-(x**2 + y**2)/(4*(t + 1)))/(t + 1)`` is ``(t + 1)**-1`` times a function of
``s/(t + 1)`` (a rotation, then a dilation of space and time together).  Forms in fewer variables
have fewer spurious terms on a teacher's samples and one-variable outer functions fit them, so the
searcher fits the reduced field and maps it back.

The symmetries are read off a smooth surrogate of the samples (a least-squares polynomial) through
its gradient, as the linear conditions a generator puts on it:

- **rotation** about a centre ``c`` in the spatial variables: ``(x_i - c_i)*u_j = (x_j - c_j)*u_i``
  for every pair, linear in ``c``; the reduced variable is ``s = sum((x_i - c_i)**2)``, whatever the
  domain's shape (radial data on a square);
- **dilation** with a centre per variable and a weight of the field:
  ``sum(k_i*(x_i - c_i)*u_i) + a*u = 0``, the smallest singular vector of the columns
  ``x_i*u_i, u_i, u``; with a pivot variable ``p`` (the time where it is dilated) the invariants are
  ``(x_i - c_i)/(x_p - c_p)**(k_i/k_p)`` and ``u = (x_p - c_p)**(-a/k_p) * F(invariants)``: the
  similarity variable ``r**2/(t + t0)`` of a spreading kernel, ``y/x`` of the helicoid.

Each found symmetry is kept only when a flexible fit in the reduced variables leaves the samples
about as well explained as the same kind of fit in all variables (:data:`KEEP_FACTOR`), with its
exponents and centres snapped to short numbers first where the fit stays as good.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from desyr_forms.inner import Mono, design, monomials

#: total degree of the polynomial surrogate whose gradient the generators are read from
SURROGATE_DEGREE = {1: 10, 2: 8, 3: 6}
#: a generator whose equation leaves more than this (relative) is no symmetry of the samples
GENERATOR_TOLERANCE = 0.05
#: the smallest singular value must lie this far below the next for one generator to stand out
NULL_GAP = 0.2
#: a reduction is kept when its flexible fit leaves at most this factor times the full fit's residual
#: (or :data:`FLOOR`, a teacher's own error) and never more than :data:`CEILING`
KEEP_FACTOR, FLOOR, CEILING = 4.0, 3e-3, 0.05
#: a snapped exponent or centre is kept when the reduced fit's residual grows by at most this factor
SNAP_FACTOR = 1.5
#: largest denominator of a snapped exponent ratio (1/2, 1/3, 3/4 ...)
EXPONENT_DENOMINATOR = 4


@dataclass(frozen=True)
class Reduction:
    """Samples in reduced variables: ``u = prefactor * F(Z)``, ``w = u / prefactor`` the values of F
    and ``factor`` the prefactor's; ``exprs`` are the reduced variables and ``prefactor`` in the
    original variable symbols; ``residual`` the relative residual of a flexible fit of F."""

    name: str
    Z: np.ndarray
    w: np.ndarray
    factor: np.ndarray
    exprs: tuple[sp.Expr, ...]
    prefactor: sp.Expr
    residual: float

    def mapped_back(self, expr: sp.Expr, symbols: Sequence[sp.Symbol]) -> sp.Expr:
        """A form in the reduced symbols ``symbols`` (one per column of Z) as a form of the field."""
        return sp.Mul(self.prefactor, expr.xreplace(dict(zip(symbols, self.exprs))))


def reductions(X: np.ndarray, y: np.ndarray, symbols: Sequence[sp.Symbol], time: int | None) -> list[Reduction]:
    """The symmetries the samples show, as reductions, fewest variables first: the rotation's and the
    dilation's (read in the rotation's reduced variables where there is one), each with its centre
    snapped to short numbers and, where that costs more than rounding, also as fitted."""
    d = X.shape[1]
    if d < 2 or np.ptp(y) <= 1e-12 * (np.abs(y).max() or 1.0):
        return []
    full = _flexible_residual(X, y)
    rotated = _rotation(X, y, symbols, time, full)
    base = rotated[0] if rotated else Reduction("identity", X, y, np.ones_like(y), tuple(symbols), sp.Integer(1), full)
    time_column = None if time is None else (len(base.exprs) - 1 if rotated else time)
    dilated = _dilation(base, time_column, full)
    return sorted(rotated + dilated, key=lambda r: r.Z.shape[1])


def _variants(raw: Reduction | None, snapped: Reduction | None, full: float) -> list[Reduction]:
    """The snapped reduction where its fit stays within the teacher's error of the raw one's (first),
    and the raw one where snapping cost more than rounding; each only if kept (:func:`_kept`)."""
    out: list[Reduction] = []
    bound = math.inf if raw is None else max(SNAP_FACTOR * raw.residual, FLOOR)
    if snapped is not None and snapped.residual <= bound and _kept(snapped.residual, full):
        out.append(snapped)
    if raw is not None and _kept(raw.residual, full) and (
            not out or snapped is None or snapped.exprs == raw.exprs or snapped.residual > SNAP_FACTOR * raw.residual):
        if not out or out[0].exprs != raw.exprs:
            out.append(raw)
    return out


# ---- the surrogate and its gradient ---------------------------------------------------------------

def _scaled(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lo, hi = X.min(axis=0), X.max(axis=0)
    mid, half = (lo + hi) / 2, np.where(hi > lo, (hi - lo) / 2, 1.0)
    return (X - mid) / half, mid, half


def _polynomial_basis(Z: np.ndarray) -> tuple[np.ndarray, tuple[Mono, ...], np.ndarray, np.ndarray]:
    """The monomials of the surrogate degree in the scaled columns of Z (the degree lowered until there
    are three rows per monomial): the design matrix, the monomials, the scaled columns and their half-widths."""
    d = Z.shape[1]
    S, _, half = _scaled(Z)
    degree = SURROGATE_DEGREE.get(d, 4)
    monos = monomials(d, degree)
    while len(monos) > Z.shape[0] // 3 and degree > 2:
        degree -= 1
        monos = monomials(d, degree)
    return design(S, monos), monos, S, half


def _surrogate(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Values and gradient (n x d) at the rows of a least-squares polynomial through the samples."""
    A, monos, S, half = _polynomial_basis(X)
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    if not np.all(np.isfinite(coef)):
        return None
    grad = np.column_stack([_derivative(S, monos, i) @ coef / half[i] for i in range(X.shape[1])])
    return A @ coef, grad


def _derivative(S: np.ndarray, monos: Sequence[Mono], i: int) -> np.ndarray:
    out = np.zeros((S.shape[0], len(monos)))
    for j, m in enumerate(monos):
        if m[i]:
            lowered = tuple(e - (k == i) for k, e in enumerate(m))
            out[:, j] = m[i] * design(S, [lowered])[:, 0]
    return out


def _flexible_residual(Z: np.ndarray, w: np.ndarray, factor: np.ndarray | None = None,
                       u: np.ndarray | None = None) -> float:
    """The relative residual of a least-squares polynomial in Z (the yardstick of every reduction); with
    ``factor`` and ``u``, in the field's own values ``u = factor*w``."""
    if not np.all(np.isfinite(Z)) or not np.all(np.isfinite(w)):
        return math.inf
    A = _polynomial_basis(Z)[0]
    left = A @ np.linalg.lstsq(A, w, rcond=None)[0] - w
    if factor is not None and u is not None:
        return float(np.sqrt(np.mean((left * factor) ** 2)) / (float(np.std(u)) or 1.0))
    scale = float(np.std(w)) or float(np.sqrt(np.mean(w ** 2))) or 1.0
    return float(np.sqrt(np.mean(left ** 2)) / scale)


def _kept(residual: float, full: float) -> bool:
    return residual <= min(CEILING, max(KEEP_FACTOR * full, FLOOR))


# ---- rotation ---------------------------------------------------------------------------------------

def _rotation(X: np.ndarray, y: np.ndarray, symbols: Sequence[sp.Symbol], time: int | None,
              full: float) -> list[Reduction]:
    """Rotation about a centre in every variable but the time: the field a function of the squared
    distance ``s`` (and the time)."""
    space = [i for i in range(X.shape[1]) if i != time]
    if len(space) < 2:
        return []
    fitted = _surrogate(X, y)
    if fitted is None:
        return []
    centre = _centre(X, fitted[1], space)
    if centre is None:
        return []
    widths = [float(np.ptp(X[:, i])) or 1.0 for i in space]
    snapped = np.array([_short(v, 0.02 * w) for v, w in zip(centre, widths)])
    raw = _radial(X, y, symbols, space, time, centre)
    return _variants(raw, _radial(X, y, symbols, space, time, snapped), full)


def _centre(X: np.ndarray, grad: np.ndarray, space: Sequence[int]) -> np.ndarray | None:
    """The least-squares centre of ``(x_i - c_i)*u_j - (x_j - c_j)*u_i = 0`` over all pairs, or None
    when the equations leave more than :data:`GENERATOR_TOLERANCE`."""
    rows, rhs = [], []
    k = len(space)
    for a, b in itertools.combinations(range(k), 2):
        i, j = space[a], space[b]
        row = np.zeros((X.shape[0], k))
        row[:, a], row[:, b] = -grad[:, j], grad[:, i]
        rows.append(row)
        rhs.append(X[:, j] * grad[:, i] - X[:, i] * grad[:, j])
    A, b_ = np.vstack(rows), np.concatenate(rhs)
    if not np.any(A):
        return None
    c = np.linalg.lstsq(A, b_, rcond=None)[0]
    # the equation's size: |x - c| |grad u| on the rows
    spread = np.sqrt(sum((X[:, i] - c[a]) ** 2 for a, i in enumerate(space)))
    size = float(np.sqrt(np.mean((spread * np.linalg.norm(grad[:, list(space)], axis=1)) ** 2)))
    left = float(np.sqrt(np.mean((A @ c - b_) ** 2)))
    return c if size > 0 and left <= GENERATOR_TOLERANCE * size else None


def _radial(X: np.ndarray, y: np.ndarray, symbols: Sequence[sp.Symbol], space: Sequence[int],
            time: int | None, c: np.ndarray) -> Reduction | None:
    s = sum((X[:, i] - c[a]) ** 2 for a, i in enumerate(space))
    columns = [s] + ([X[:, time]] if time is not None else [])
    Z = np.column_stack(columns)
    residual = _flexible_residual(Z, y)
    if not math.isfinite(residual):
        return None
    s_expr = sp.Add(*((symbols[i] - _number(v)) ** 2 for v, i in zip(c, space)))
    exprs = (s_expr,) + ((symbols[time],) if time is not None else ())
    return Reduction("rotation", Z, y, np.ones_like(y), exprs, sp.Integer(1), residual)


# ---- dilation ---------------------------------------------------------------------------------------

def _dilation(base: Reduction, time: int | None, full: float) -> list[Reduction]:
    """A dilation of the (reduced) variables with a weight of the field (see the module doc)."""
    Z, w = base.Z, base.w
    d = Z.shape[1]
    if d < 2:
        return []
    fitted = _surrogate(Z, w)
    if fitted is None:
        return []
    values, grad = fitted
    columns = [Z[:, i] * grad[:, i] for i in range(d)] + [grad[:, i] for i in range(d)] + [values]
    M = np.column_stack(columns)
    norms = np.linalg.norm(M, axis=0)
    if np.any(norms == 0):
        return []       # a variable the field does not depend on: a translation, not a dilation
    _, sv, Vt = np.linalg.svd(M / norms, full_matrices=False)
    if sv[-1] > GENERATOR_TOLERANCE * sv[0] or sv[-1] > NULL_GAP * sv[-2]:
        return []       # none, or no single one (a field of fewer variables than the dilation sees)
    v = Vt[-1] / norms
    k, m, a = v[:d], v[d:2 * d], float(v[2 * d])
    pivots = ([time] if time is not None else []) + sorted(range(d), key=lambda i: -abs(k[i]))
    for p in dict.fromkeys(pivots):
        if abs(k[p]) <= 0.05 * float(np.abs(k).max()):
            continue
        found = _invariants(base, k / k[p], m / k[p], a / k[p], p, full)
        if found:
            return found
    return []


def _invariants(base: Reduction, k: np.ndarray, m: np.ndarray, a: float, p: int, full: float) -> list[Reduction]:
    """The reductions by the dilation ``sum(k_i*(z_i - c_i)*d_i) + a`` with ``k_p = 1``: invariants
    ``(z_i - c_i)/(z_p - c_p)**k_i`` and the prefactor ``(z_p - c_p)**(-a)``, the exponents snapped to
    short fractions (an exponent is structure, never refit), the centres snapped or as fitted (see
    :func:`_variants`); none where ``z_p - c_p`` changes sign on the samples or a variable is not
    dilated (``k_i`` near 0)."""
    d = base.Z.shape[1]
    if any(abs(k[i]) < 0.05 for i in range(d)):
        return []
    centres = -m / k      # k_i*z_i + m_i = k_i*(z_i - c_i)
    unsnapped = _reduced(base, k, centres, a, p)
    short_k = np.array([float(Fraction(v).limit_denominator(EXPONENT_DENOMINATOR)) for v in k])
    short_a = float(Fraction(a).limit_denominator(EXPONENT_DENOMINATOR))
    widths = [float(np.ptp(base.Z[:, i])) or 1.0 for i in range(d)]
    short_c = np.array([_short(c, 0.02 * wd) for c, wd in zip(centres, widths)])
    raw = _reduced(base, short_k, centres, short_a, p)
    if raw is None or (unsnapped is not None and raw.residual > max(SNAP_FACTOR * unsnapped.residual, FLOOR)):
        return []       # the exponents are not short numbers: no closed form to map back to
    return _variants(raw, _reduced(base, short_k, short_c, short_a, p), full)


def _reduced(base: Reduction, k: np.ndarray, c: np.ndarray, a: float, p: int) -> Reduction | None:
    Z = base.Z
    pivot = Z[:, p] - c[p]
    if not (np.all(pivot > 0) or np.all(pivot < 0)):
        return None
    sign = 1 if pivot[0] > 0 else -1
    lifted = sign * pivot
    others = [i for i in range(Z.shape[1]) if i != p]
    with np.errstate(all="ignore"):
        cols = [(Z[:, i] - c[i]) / lifted ** k[i] for i in others]
        w = base.w * lifted ** a
    Zr = np.column_stack(cols)
    residual = _flexible_residual(Zr, w)
    if not math.isfinite(residual):
        return None
    # the error counted is the field's: F's residual, weighted back by the prefactor
    factor = base.factor * lifted ** -a
    fit_scale = _flexible_residual(Zr, w, factor, base.w * base.factor)
    e = base.exprs
    piv = sign * (e[p] - _number(c[p]))
    exprs = tuple((e[i] - _number(c[i])) / piv ** _rational(k[i]) for i in others)
    prefactor = base.prefactor * piv ** _rational(-a)
    return Reduction("dilation", Zr, w, factor, exprs, prefactor, max(residual, fit_scale))


# ---- numbers ----------------------------------------------------------------------------------------

def _short(v: float, tol: float) -> float:
    """The nearest of 0 and the fractions with denominator <= 12 within ``tol`` of ``v``, else ``v``."""
    if abs(v) <= tol:
        return 0.0
    near = Fraction(v).limit_denominator(12)
    return float(near) if abs(float(near) - v) <= tol else float(v)


def _number(v: float) -> sp.Expr:
    """A short fraction as a SymPy Rational (structure), anything else a Float (a constant to refit)."""
    if v == 0:
        return sp.Integer(0)
    near = Fraction(v).limit_denominator(12)
    return sp.Rational(near.numerator, near.denominator) if float(near) == v else sp.Float(v)


def _rational(v: float) -> sp.Expr:
    near = Fraction(v).limit_denominator(EXPONENT_DENOMINATOR)
    return sp.Rational(near.numerator, near.denominator)


def _simpler(a: Reduction, b: Reduction) -> bool:
    return len(a.exprs[0].atoms(sp.Float)) < len(b.exprs[0].atoms(sp.Float))
