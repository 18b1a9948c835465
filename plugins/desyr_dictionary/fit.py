"""Sparse fits on the dictionary: supports from a beam search (:mod:`desyr_dictionary.select`), then
per support a refit of the nonlinear parameters (variable projection), pruning of negligible terms
and the sympy expression.

The search runs on the centred, unit-norm columns (the intercept is in every support and is not
one of the ``k`` terms).  Each support it keeps is then fitted on the raw columns by least squares;
with ``refine`` the frequencies and rates its factors use are moved by
``scipy.optimize.least_squares`` on the residual of that linear fit (variable projection), each
within its window (see :class:`desyr_dictionary.basis.Dictionary`), which turns a grid frequency
that is close to the teacher's into the teacher's without letting a frequency slide to zero (where
``sin(e*x)/e`` would imitate ``x``).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from desyr.plugin import UNARY_OPERATORS
from desyr_dictionary import special
from desyr_dictionary.basis import KNOWN_UNARY, Factor, Term
from desyr_dictionary.select import beam_supports

#: the meaning of each unary operator the dictionary knows, from the common operator table
NUMPY: dict[str, Callable[[np.ndarray], np.ndarray]] = {op: UNARY_OPERATORS[op].numpy for op in KNOWN_UNARY}
SYMPY: dict[str, Callable[[sp.Expr], sp.Expr]] = {op: UNARY_OPERATORS[op].sympy for op in KNOWN_UNARY}
#: and of the special factors of derived coordinates (desyr_dictionary.special)
NUMPY.update(special.NUMPY)
SYMPY.update(special.SYMPY)
#: a support whose relative residual is at most this is exact (to rounding): larger supports are not fitted
EXACT_FIT = 1e-10
#: residual evaluations (besides the finite-difference Jacobians) of one refinement
REFINE_EVALUATIONS = 30
#: supports of each size that are fitted (the best of the beam, by linear residual)
FITS_PER_SIZE = 3
#: growing stops once the best fit is within accept tolerance and PLATEAU sizes in a row each cut
#: its relative residual by less than PLATEAU_DROP (the rest is teacher noise)
PLATEAU, PLATEAU_DROP = 2, 0.5


@dataclass
class Fit:
    """One support, fitted: its terms (the intercept first when kept), coefficients and parameters."""

    terms: list[Term]
    coefs: np.ndarray
    params: list[float]
    relative_residual: float
    refined: bool = False

    def key(self) -> tuple[tuple[str, ...], tuple[float, ...]]:
        used = {f.param for t in self.terms for f in t.factors if f}
        return (tuple(sorted(map(repr, self.terms))), tuple(round(self.params[p], 9) for p in sorted(used)))


def columns(X: np.ndarray, terms: Sequence[Term], params: Sequence[float]) -> np.ndarray:
    """The values of ``terms`` at the rows of ``X``, one column each."""
    n = X.shape[0]
    out = np.empty((n, len(terms)))
    powers: dict[tuple[int, int], np.ndarray] = {}
    factors: dict[tuple[int, Factor], np.ndarray] = {}
    with np.errstate(all="ignore"):
        for j, term in enumerate(terms):
            col = np.ones(n)
            for i, (k, f) in enumerate(zip(term.powers, term.factors)):
                if k:
                    if (i, k) not in powers:
                        powers[(i, k)] = X[:, i] ** k
                    col = col * powers[(i, k)]
                if f is not None:
                    if (i, f) not in factors:
                        factors[(i, f)] = NUMPY[f.op](params[f.param] * X[:, i] + f.phase)
                    col = col * factors[(i, f)]
            out[:, j] = col
    return out


def least_squares_fit(A: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients and residual of ``A c ~ y``, solved on unit-norm columns (an infinite residual
    when a column overflowed, e.g. a refined rate grew too large)."""
    if not np.all(np.isfinite(A)):
        return np.zeros(A.shape[1]), np.full_like(y, np.inf)
    norms = np.linalg.norm(A, axis=0)
    norms[~(norms > 0) | ~np.isfinite(norms)] = 1.0
    try:
        with np.errstate(all="ignore"):
            coef, *_ = np.linalg.lstsq(A / norms, y, rcond=None)
    except np.linalg.LinAlgError:
        return np.zeros(A.shape[1]), np.full_like(y, np.inf)
    coef = coef / norms
    return coef, y - A @ coef


def relative_residual(r: np.ndarray, y: np.ndarray) -> float:
    scale = float(np.sqrt(np.mean((y - y.mean()) ** 2)))
    rms = float(np.sqrt(np.mean(r ** 2)))
    if not math.isfinite(rms):
        return math.inf
    if scale > 0:
        return rms / scale
    return 0.0 if rms <= 1e-14 * max(1.0, float(np.abs(y).max(initial=0.0))) else math.inf


def refine_params(X: np.ndarray, y: np.ndarray, terms: Sequence[Term], params: list[float],
                  windows: Sequence[tuple[float, float]] | None = None) -> tuple[list[float], bool]:
    """The parameters with those ``terms`` use refitted by variable projection, each within its
    window when ``windows`` is given (unchanged if not better)."""
    from scipy.optimize import least_squares

    used = sorted({f.param for t in terms for f in t.factors if f is not None
                   if windows is None or windows[f.param][0] < windows[f.param][1]})
    if not used or X.shape[0] <= len(used):
        return params, False
    big = 1e150

    def residual(theta: np.ndarray) -> np.ndarray:
        p = list(params)
        for idx, value in zip(used, theta):
            p[idx] = float(value)
        r = least_squares_fit(columns(X, terms, p), y)[1]
        finite: np.ndarray = np.nan_to_num(r, nan=big, posinf=big, neginf=-big)
        return finite

    theta0 = np.array([params[i] for i in used])
    r0 = residual(theta0)
    if not float(r0 @ r0) > 0:
        return params, False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if windows is None:
            sol = least_squares(residual, theta0, method="lm", xtol=1e-13, ftol=1e-13, gtol=1e-13,
                                max_nfev=REFINE_EVALUATIONS)
        else:
            lo, hi = (np.array([windows[i][j] for i in used]) for j in (0, 1))
            sol = least_squares(residual, np.clip(theta0, lo, hi), bounds=(lo, hi), method="trf", xtol=1e-13,
                                ftol=1e-13, gtol=1e-13, max_nfev=REFINE_EVALUATIONS)
    if not (np.all(np.isfinite(sol.x)) and 2 * float(sol.cost) < float(r0 @ r0)):
        return params, False
    p = list(params)
    for idx, value in zip(used, sol.x):
        p[idx] = float(value)
    return p, True


def fit_support(X: np.ndarray, y: np.ndarray, terms: list[Term], params: list[float], refine: bool,
                prune_tolerance: float, windows: Sequence[tuple[float, float]] | None = None) -> Fit:
    """Refine, fit, drop the terms whose contribution (|c| times column RMS) is below ``prune_tolerance``
    of the largest, and fit again."""
    refined = False
    for attempt in range(3):
        if refine:
            params, moved = refine_params(X, y, terms, params, windows)
            refined = refined or moved
        A = columns(X, terms, params)
        coef, r = least_squares_fit(A, y)
        size = np.abs(coef) * np.linalg.norm(A, axis=0) / math.sqrt(len(y))
        keep = np.flatnonzero(np.isfinite(size) & (size > prune_tolerance * np.nanmax(size, initial=0.0)))
        if len(keep) in (0, len(terms)) or attempt == 2:
            break
        terms = [terms[j] for j in keep]
    return Fit(terms, coef, params, relative_residual(r, y), refined)


def sparse_fits(X: np.ndarray, y: np.ndarray, terms: list[Term], params: list[float], max_terms: int,
                refine: bool, prune_tolerance: float, *, intercept: bool = True, beam: int = 8,
                windows: Sequence[tuple[float, float]] | None = None, accept: float = 0.0) -> list[Fit]:
    """The intercept alone, then for each size the best ``FITS_PER_SIZE`` supports of the beam
    search (with the intercept, and each also without it), fitted and de-duplicated.  Stops after
    the first exact fit, or once the best fit is within ``accept`` and has stopped improving (see
    ``PLATEAU``).  ``terms[0]`` is the constant term; without ``intercept`` it is one of the
    candidates and no fit adds it."""
    base, pool = ([terms[0]], terms[1:]) if intercept else ([], terms)
    fits: list[Fit] = []
    seen: set[tuple[tuple[str, ...], tuple[float, ...]]] = set()

    def add(fit: Fit) -> None:
        if math.isfinite(fit.relative_residual) and fit.key() not in seen:
            seen.add(fit.key())
            fits.append(fit)

    if intercept:
        add(fit_support(X, y, base, params, False, prune_tolerance))
        if fits[0].relative_residual <= EXACT_FIT:
            return fits
    for support in polynomial_supports(pool, max_terms):
        fit = fit_support(X, y, base + [pool[j] for j in support], list(params), False, prune_tolerance)
        add(fit)
        if intercept and len(fit.terms) > 1 and fit.terms[0] == terms[0]:
            add(refit(X, y, fit.terms[1:], fit.params))
    if min((f.relative_residual for f in fits), default=math.inf) <= EXACT_FIT:
        return fits                  # a polynomial, exactly: pruned, its support is the function's
    # the beam's stopping rule sees its own fits only, as before the polynomial supports
    history = [fits[0].relative_residual if intercept and fits else math.inf]
    for level in beam_supports(columns(X, pool, params), y, max_terms, beam, center=intercept, exact=EXACT_FIT):
        level_best = math.inf
        for support, _ in level[:FITS_PER_SIZE]:
            fit = fit_support(X, y, base + [pool[j] for j in support], list(params), refine, prune_tolerance,
                              windows)
            add(fit)
            if intercept and len(fit.terms) > 1 and fit.terms[0] == terms[0]:
                add(refit(X, y, fit.terms[1:], fit.params, fit.refined))
            level_best = min(level_best, fit.relative_residual)
        history.append(min(level_best, history[-1]))
        if history[-1] <= EXACT_FIT or _plateau(history, accept):
            break
    if not fits:        # nothing to select from (e.g. all-zero values without an intercept): the constant
        add(fit_support(X, y, [terms[0]], params, False, prune_tolerance))
    return fits


def polynomial_supports(pool: Sequence[Term], max_terms: int) -> list[list[int]]:
    """Every monomial of the pool (no transcendental factor) up to total degree d, one support per d
    while it has at most ``max_terms`` terms. The beam's greedy steps miss polynomials whose monomials
    are nearly collinear: on [-1, 1], x + x**2 + x**3 + x**4 drew exp(2.5*x) first and never returned."""
    monomials = sorted((sum(t.powers), j) for j, t in enumerate(pool) if all(f is None for f in t.factors))
    supports = []
    for degree in sorted({d for d, _ in monomials}):
        support = [j for d, j in monomials if d <= degree]
        if len(support) > max_terms:
            break
        supports.append(support)
    return supports


def _plateau(history: list[float], accept: float) -> bool:
    """The best relative residual is within ``accept`` and the last PLATEAU sizes barely cut it."""
    if len(history) <= PLATEAU or not history[-1] <= accept:
        return False
    return all(history[-i] > PLATEAU_DROP * history[-i - 1] for i in range(1, PLATEAU + 1))


def clear_support(fits: Sequence[Fit], noise_tolerance: float, max_terms: int) -> Fit | None:
    """The sparsest fit whose relative residual is at most ``noise_tolerance``, when it has at most
    ``max_terms`` terms (the intercept counted); else None.

    A field in the span is a few terms, and what they leave of a noisy teacher is its error, which
    no further term removes.  A field outside the span (a front, a rational function) is only
    approximated term by term, so only a long support comes that close."""
    close = [f for f in fits if f.relative_residual <= noise_tolerance]
    if not close:
        return None
    sparsest = min(close, key=lambda f: (len(f.terms), f.relative_residual))
    return sparsest if len(sparsest.terms) <= max_terms else None


def refit(X: np.ndarray, y: np.ndarray, terms: list[Term], params: list[float], refined: bool = False) -> Fit:
    """The linear least-squares fit of ``terms`` with the parameters as they are."""
    coef, r = least_squares_fit(columns(X, terms, params), y)
    return Fit(terms, coef, params, relative_residual(r, y), refined)


def expression(fit: Fit, symbols: Sequence[sp.Expr]) -> sp.Expr:
    """``sum c_j * term_j`` with sympy Floats for coefficients, frequencies, rates and phases."""
    summands = []
    for c, term in zip(fit.coefs, fit.terms):
        parts: list[sp.Expr] = [sp.Float(float(c))]
        for s, k, f in zip(symbols, term.powers, term.factors):
            if k:
                parts.append(s ** k)
            if f is not None:
                w = fit.params[f.param]
                arg = s if w == 1.0 else sp.Float(w) * s
                parts.append(SYMPY[f.op](arg + sp.Float(f.phase) if f.phase else arg))
        summands.append(sp.Mul(*parts))
    return sp.Add(*summands)
