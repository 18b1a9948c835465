"""Separate factors in one variable (time): guesses of ``g`` for ``u = F * g(t)``.

Two sources.  When the samples are close to a product ``f(rest) * g(t)`` (a rank-one fit on
Chebyshev bases, by alternating least squares, leaves little), ``g``'s profile on a grid is matched
by ``exp(a*t)``, ``(t + c)**p`` and ``cos(w*t + phi)``, and ``F`` reads the other variables only.
Otherwise a few plain powers ``(t + c)**p`` with ``t + c`` starting at 1 are offered with ``F`` in
every variable (a spreading kernel ``exp(-(x - t)**2/(t + 1))/sqrt(t + 1)``); the refinement moves
``c``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from desyr_forms.outer import PLAIN_POWERS
from desyr_forms.shape import Factor

#: a rank-one fit leaving at most this relative residual counts as separable
SEPARABLE = 0.02
#: a profile fit leaving at most this relative residual offers its factor
PROFILE = 0.02
#: powers of the plain (t + c)**p factors offered when the samples are not separable
SPREADING_POWERS = (Fraction(-1, 2), Fraction(-1))
ALS_ITERATIONS = 30


@dataclass(frozen=True)
class Guess:
    factor: Factor
    theta: np.ndarray
    cols: tuple[int, ...]          # the columns the rest of the form reads


def guesses(X: np.ndarray, y: np.ndarray, var: int, unary: set[str], rational: bool) -> list[Guess]:
    """Factor guesses in column ``var`` of X (see the module doc)."""
    d = X.shape[1]
    rest = tuple(i for i in range(d) if i != var)
    t = X[:, var]
    out: list[Guess] = []
    profile = _separable_profile(X, y, var, rest)
    if profile is not None:
        grid, g, Phi_x = profile
        out += [Guess(f, _projected(X, y, Phi_x, f, th), rest)
                for f, th in _profile_factors(grid, g, var, unary, rational)]
    if rational:
        c = 1.0 - float(t.min())
        out += [Guess(Factor("power", var, p), np.array([c]), tuple(range(d))) for p in SPREADING_POWERS]
    return out


def _cheb(v: np.ndarray, lo: float, hi: float, degree: int) -> np.ndarray:
    s = (2 * v - lo - hi) / ((hi - lo) or 1.0)
    return np.polynomial.chebyshev.chebvander(s, degree)


def _basis(X: np.ndarray, cols: tuple[int, ...], degree: int) -> np.ndarray:
    out = np.ones((X.shape[0], 1))
    for i in cols:
        v = _cheb(X[:, i], float(X[:, i].min()), float(X[:, i].max()), degree)
        out = np.einsum("ni,nj->nij", out, v).reshape(X.shape[0], -1)
    return out


def _separable_profile(X: np.ndarray, y: np.ndarray, var: int, rest: tuple[int, ...]
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """g on a grid of its variable when y is close to f(rest)*g(t), else None; with the basis of f."""
    lo, hi = float(X[:, var].min()), float(X[:, var].max())
    Phi_t = _cheb(X[:, var], lo, hi, 10)
    Phi_x = _basis(X, rest, {1: 14, 2: 6}.get(len(rest), 3))
    if Phi_x.shape[1] + Phi_t.shape[1] > X.shape[0] // 2:
        return None
    g = np.ones(X.shape[0])
    b = np.zeros(Phi_t.shape[1])
    for _ in range(ALS_ITERATIONS):
        a = np.linalg.lstsq(Phi_x * g[:, None], y, rcond=None)[0]
        f = Phi_x @ a
        b = np.linalg.lstsq(Phi_t * f[:, None], y, rcond=None)[0]
        g = Phi_t @ b
    scale = float(np.linalg.norm(y)) or 1.0
    if not np.linalg.norm(y - f * g) <= SEPARABLE * scale or float(np.ptp(g)) <= 1e-6 * float(np.abs(g).max()):
        return None       # not separable, or g is constant (nothing to factor out)
    grid = np.linspace(lo, hi, 200)
    return grid, _cheb(grid, lo, hi, 10) @ b, Phi_x


def _projected(X: np.ndarray, y: np.ndarray, Phi_x: np.ndarray, factor: Factor, theta: np.ndarray) -> np.ndarray:
    """The factor's parameters moved to fit y = f(rest)*g(t) with f free in its basis (variable
    projection): a profile read off a polynomial g is a few percent off, the samples are not."""
    from scipy.optimize import least_squares

    def residual(q: np.ndarray) -> np.ndarray:
        g = factor.values(X, q)
        if not np.all(np.isfinite(g)):
            return np.full(len(y), 1e3 * (float(np.abs(y).max()) or 1.0))
        A = Phi_x * g[:, None]
        return np.asarray(A @ np.linalg.lstsq(A, y, rcond=None)[0] - y)

    try:
        return np.asarray(least_squares(residual, theta, max_nfev=60, x_scale="jac").x)
    except (ValueError, np.linalg.LinAlgError):
        return theta


def _profile_factors(grid: np.ndarray, g: np.ndarray, var: int, unary: set[str], rational: bool
                     ) -> list[tuple[Factor, np.ndarray]]:
    """Factors whose shape matches the profile g (up to scale), best first."""
    found: list[tuple[float, Factor, np.ndarray]] = []
    norm = float(np.linalg.norm(g)) or 1.0
    if np.all(g > 0) or np.all(g < 0):
        L = np.log(np.abs(g))
        if "exp" in unary:
            A = np.vstack([grid, np.ones_like(grid)]).T
            a = np.linalg.lstsq(A, L, rcond=None)[0]
            found.append((_fit_error(g, np.exp(A @ a)), Factor("exp", var), np.array([a[0]])))
        for c in -grid.min() + np.ptp(grid) * np.logspace(-2, 1.3, 40):
            A = np.vstack([np.log(grid + c), np.ones_like(grid)]).T
            p, k = np.linalg.lstsq(A, L, rcond=None)[0]
            near = min(PLAIN_POWERS, key=lambda f: abs(float(f) - p))
            if (near > 0 or rational) and abs(float(near) - p) < 0.1:
                found.append((_fit_error(g, np.exp(A @ [p, k])), Factor("power", var, near), np.array([c])))
    if "cos" in unary:
        span = float(np.ptp(grid)) or 1.0
        best = (np.inf, 0.0, 0.0)
        for w in np.linspace(0.05, 20.0, 400) * np.pi / span:
            A = np.vstack([np.cos(w * grid), np.sin(w * grid)]).T
            ab, *_ = np.linalg.lstsq(A, g, rcond=None)
            err = float(np.linalg.norm(A @ ab - g)) / norm
            if err < best[0]:
                best = (err, w, float(np.arctan2(-ab[1], ab[0])))
        found.append((best[0], Factor("cos", var, sine="sin" in unary), np.array([best[1], best[2]])))
    found.sort(key=lambda f: f[0])
    picked: list[tuple[Factor, np.ndarray]] = []
    for err, factor, theta in found:
        if err <= PROFILE and all(f.kind != factor.kind for f, _ in picked):
            picked.append((factor, theta))
    return picked[:2]


def _fit_error(g: np.ndarray, model: np.ndarray) -> float:
    """Relative error of ``model`` against ``g`` after the best common scale."""
    s = float(model @ g) / (float(model @ model) or 1.0)
    return float(np.linalg.norm(s * model - g)) / (float(np.linalg.norm(g)) or 1.0)
