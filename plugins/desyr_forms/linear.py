"""The cheap first pass: for each outer ``A*f(.)**p + B`` and each guess of ``A`` and ``B``, invert
the outer on the teacher values and fit each inner family linearly (``4*atan(exp(x))``: with A = 4,
``log(tan(y/4)) = x``).  Every fit is one small least-squares solve, so hundreds cost well under a
second; the best few go on to the nonlinear refinement (:mod:`desyr_forms.refine`).

Gauges are fixed as the fit is converted into a :class:`~desyr_forms.shape.Shape`: a scale or
shift the outer absorbs (``A*(c*P)**p``, ``log(c*P) + B``, ``A*exp(c + P)``) is moved into ``A`` or
``B``, so the inner's constant term is 1 (or absent) and no two parameters share one direction.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from desyr_forms.inner import Inner, fit_inner, linear_from_square, monomials
from desyr_forms.outer import Outer, clipped, outers, scale_guesses
from desyr_forms.shape import Factor, Shape

#: a linear fit this close is exact (to rounding)
EXACT_FIT = 1e-11
#: rows where a factor is below this fraction of its largest value are left out of the divided fit
FACTOR_FLOOR = 0.1
#: the highest total degree of a plain polynomial (no outer function) in k variables: SSDE's Jin-1,
#: ``2.5*x**4 - 1.3*x**3 + 0.5*y**2 - 1.7*y``, needs 4 in two (the refinement's cleaning and sparsity
#: ladder then leave its four terms)
POLYNOMIAL_DEGREE = {1: 6, 2: 4, 3: 3}


@dataclass
class Candidate:
    shape: Shape
    theta: np.ndarray
    rr: float          # relative residual on the teacher values

    def rank(self) -> tuple[int, int, int]:
        """Order of magnitude of the residual first, then fewer parameters, then polynomials before ratios."""
        magnitude = int(np.floor(np.log10(max(self.rr, 1e-10)))) if np.isfinite(self.rr) else 10**9
        return magnitude, self.shape.size, len(self.shape.inner.den)


def relative_residual(y_hat: np.ndarray, y: np.ndarray) -> float:
    if not np.all(np.isfinite(y_hat)):
        return float("inf")
    scale = float(np.sqrt(np.mean((y - y.mean()) ** 2))) or float(np.sqrt(np.mean(y ** 2))) or 1.0
    return float(np.sqrt(np.mean((y_hat - y) ** 2)) / scale)


def families(k: int, outer: Outer, exp_allowed: bool, rational: bool) -> Iterator[Inner]:
    """The inner forms tried under ``outer`` in ``k`` variables."""
    yield Inner(monomials(k, 1))
    yield Inner(monomials(k, 2))
    if not outer.name and outer.power == 1:
        for degree in range(3, POLYNOMIAL_DEGREE.get(k, 2) + 1):
            yield Inner(monomials(k, degree))
    if rational and outer.name not in ("sin", "cos", "tan"):
        yield Inner(monomials(k, 1), monomials(k, 1, constant=False))
        if outer.name in ("", "exp", "log"):      # the quadratic ratio where it is cheapest to tell apart
            yield Inner(monomials(k, 2), monomials(k, 2, constant=False))
    if exp_allowed and outer.name and outer.name not in ("exp", "log"):
        yield Inner(monomials(k, 1), exp=True)


def linear_candidates(X: np.ndarray, y: np.ndarray, cols: Sequence[int], unary: set[str], rational: bool,
                      factor: Factor | None = None, factor_theta: np.ndarray | None = None) -> list[Candidate]:
    """Every (outer, scale guess, inner family) fit of ``y`` (divided by the factor, where it is not
    small, when there is one) on the columns ``cols``, scored on ``y``; the best two of each outer."""
    q = np.zeros(0) if factor_theta is None else factor_theta
    X_all, y_all = X, y
    if factor is not None:
        g = factor.values(X, q)
        rows = np.isfinite(g) & (np.abs(g) >= FACTOR_FLOOR * np.nanmax(np.abs(g)))
        if rows.sum() < 8:
            return []
        X, y = X[rows], y[rows] / g[rows]
    sub = X[:, list(cols)]
    out: list[Candidate] = []
    for outer in outers(unary):
        if outer.power < 0 and not rational:
            continue
        mine: list[Candidate] = []
        for A, B in scale_guesses(outer, y):
            if any(m.rr <= EXACT_FIT and not m.shape.inner.den for m in mine):
                break            # this outer already fits with a polynomial: other scales cannot do better
            z = outer.inverse(clipped(outer, (y - B) / A))
            ok = np.isfinite(z)
            if ok.sum() < max(8, len(y) // 2):
                continue
            w = _weights(outer, z, A)
            if outer.even:
                mine += _even_fit(X_all, y_all, sub, cols, outer, A, B, z, w, ok, factor, q)
                continue
            for inner in families(len(cols), outer, "exp" in unary, rational):
                target, wt, rows = z, w, ok
                if inner.exp:
                    rows = ok & (z > 0)
                    if rows.sum() < max(8, len(y) // 2):
                        continue
                    target, wt = np.log(np.where(rows, z, 1.0)), w * np.abs(z)
                c = fit_inner(sub[rows], target[rows], wt[rows], inner)
                if c is None:
                    continue
                shape, theta = gauged(outer, inner, cols, A, B, c)
                mine.append(_scored(shape.with_factor(factor), np.concatenate([theta, q]), X_all, y_all))
        mine.sort(key=lambda cand: (cand.rank(), cand.rr))
        out += mine[:2]
    return out


def _weights(outer: Outer, z: np.ndarray, A: float) -> np.ndarray:
    """|dy/dz|: an error in z counts as the error it makes in y (the inverse stretches near a bound)."""
    h = 1e-6 * (1.0 + np.abs(z))
    with np.errstate(all="ignore"):
        d = np.abs(A) * np.abs(outer.f(z + h) - outer.f(z - h)) / (2 * h)
    d = np.where(np.isfinite(d), d, 0.0)
    return d / (d.max() or 1.0) + 1e-8


def _even_fit(X_all: np.ndarray, y_all: np.ndarray, sub: np.ndarray, cols: Sequence[int], outer: Outer, A: float,
              B: float, z: np.ndarray, w: np.ndarray, ok: np.ndarray, factor: Factor | None,
              q: np.ndarray) -> list[Candidate]:
    """An even outer gives |inner|: fit inner**2 as a quadratic and take its linear square root."""
    quad = Inner(monomials(len(cols), 2))
    c = fit_inner(sub[ok], z[ok] ** 2, w[ok] / (2 * np.abs(z[ok]) + 1e-3), quad)
    if c is None:
        return []
    lin = linear_from_square(sub, c, quad.num)
    if lin is None:
        return []
    shape = Shape(outer, Inner(monomials(len(cols), 1)), tuple(cols), True, True, factor=factor)
    return [_scored(shape, np.concatenate([[A, B], lin, q]), X_all, y_all)]


def gauged(outer: Outer, inner: Inner, cols: Sequence[int], A: float, B: float, c: np.ndarray
           ) -> tuple[Shape, np.ndarray]:
    """The fit as a Shape whose parameters have no shared direction (see the module doc)."""
    cols = tuple(cols)
    has_one = bool(inner.num) and sum(inner.num[0]) == 0 and not inner.exp
    c = np.asarray(c, dtype=float)
    if not outer.name and outer.power == 1:          # a plain P/Q: its own scale and offset
        return Shape(outer, inner, cols, False, False, 1.0), c
    if not outer.name or outer.name == "log":        # scale of P: into A (a power) or B (log)
        if has_one and (c[0] > 1e-12 or (not outer.name and outer.power.denominator == 1 and c[0] < -1e-12)):
            s = c[0]
            rest = np.concatenate([c[1:len(inner.num)] / s, c[len(inner.num):]])
            norm = Inner(inner.num, inner.den, False, True)
            if outer.name == "log":
                return Shape(outer, norm, cols, True, True), np.concatenate([[A, B + A * np.log(abs(s))], rest])
            return Shape(outer, norm, cols, True, False), np.concatenate([[A * float(_signed_power(s, outer.power))], rest])
        if outer.name == "log":
            return Shape(outer, inner, cols, True, False), np.concatenate([[A], c])
        return Shape(outer, inner, cols, False, False, A), c
    if outer.name == "exp" and outer.power == 1:       # a shift of P: into A
        if has_one and not inner.den:
            trimmed = Inner(inner.num[1:], (), False, False)
            return Shape(outer, trimmed, cols, True, False), np.concatenate([[A * np.exp(c[0])], c[1:]])
        return Shape(outer, inner, cols, False, False, A), c
    return Shape(outer, inner, cols, True, True), np.concatenate([[A, B], c])


def _signed_power(s: float, p: Fraction) -> float:
    with np.errstate(all="ignore"):
        return float(np.sign(s) ** p.numerator * abs(s) ** float(p)) if p.denominator == 1 else float(abs(s) ** float(p))


def _scored(shape: Shape, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> Candidate:
    return Candidate(shape, theta, relative_residual(shape.predict(X, theta), y))
