"""Nonlinear refinement of a linear fit's constants, and their cleaning.

``scipy.optimize.least_squares`` moves every free constant of a form at once (the linear pass
fitted the inner alone, at a guessed ``A`` and ``B``), from the linear fit and from a few seeded
perturbations of it.  Cleaning then snaps each constant that is within ``snap`` of a simple value
(0, a fraction with a small denominator, a multiple of pi/4) to it, refits the rest, and keeps the
clean form only where the fit stays as good: 4.00000031 becomes 4, a coefficient of 3e-9 leaves
the expression.
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np

from desyr_forms.linear import Candidate, relative_residual
from desyr_forms.shape import Compiled, Shape

#: largest denominator of a snapped fraction (1/12 and -1/6 are kept, 0.0833 and 0.1667 are not)
DENOMINATOR = 12
#: a cleaned form is kept when its relative residual is at most this factor times the raw one's
#: (or within ABSOLUTE_SLACK of it: an exact fit's residual is rounding)
CLEAN_FACTOR, ABSOLUTE_SLACK = 1.5, 1e-9
#: a relative residual at rounding level: no further start is tried
EXACT = 1e-12


def refine(cand: Candidate, X: np.ndarray, y: np.ndarray, rng: np.random.Generator, starts: int,
           evaluations: int, fixed: dict[int, float] | None = None) -> Candidate:
    """The best of ``starts`` least-squares runs from the candidate's constants (the first unperturbed),
    the constants at ``fixed`` held."""
    from scipy.optimize import least_squares

    fixed = fixed or {}
    free = [i for i in range(len(cand.theta)) if i not in fixed]
    if not free:
        return _scored(cand.shape, _full(cand.theta, fixed, free, np.zeros(0)), X, y)
    scale = float(np.sqrt(np.mean(y ** 2))) or 1.0
    model = Compiled(cand.shape, X)

    def residual(p: np.ndarray) -> np.ndarray:
        r = model.predict(_full(cand.theta, fixed, free, p)) - y
        return np.where(np.isfinite(r), r, 1e3 * scale)

    def jacobian(p: np.ndarray) -> np.ndarray:
        return model.jacobian(_full(cand.theta, fixed, free, p))[:, free]

    x0 = cand.theta[free]
    best = _scored(cand.shape, _full(cand.theta, fixed, free, x0), X, y)
    for k in range(starts):
        if best.rr <= EXACT:
            break
        start = x0 if k == 0 else x0 * (1 + 0.1 * rng.standard_normal(x0.shape)) + 0.01 * rng.standard_normal(x0.shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                sol = least_squares(residual, start, jac=jacobian, method="trf", max_nfev=evaluations, x_scale="jac",
                                    ftol=1e-13, xtol=1e-13, gtol=1e-13)
            except (ValueError, np.linalg.LinAlgError):
                continue
        got = _scored(cand.shape, _full(cand.theta, fixed, free, sol.x), X, y)
        if got.rr < best.rr:
            best = got
    return best


def clean(cand: Candidate, X: np.ndarray, y: np.ndarray, rng: np.random.Generator, evaluations: int,
          snap: float, prune: float) -> Candidate | None:
    """The candidate with its near-simple constants snapped and the rest refitted, or None when that
    costs accuracy (or nothing snaps)."""
    targets = snap_targets(cand, X, snap, prune)
    if not targets:
        return None
    got = refine(Candidate(cand.shape, cand.theta.copy(), cand.rr), X, y, rng, 1, evaluations, targets)
    if got.rr <= max(CLEAN_FACTOR * cand.rr, cand.rr + ABSOLUTE_SLACK):
        return got
    tight = {i: v for i, v in targets.items() if abs(cand.theta[i] - v) <= 1e-3 * snap * max(1.0, abs(v))}
    if not tight or tight == targets:
        return None
    got = refine(Candidate(cand.shape, cand.theta.copy(), cand.rr), X, y, rng, 1, evaluations, tight)
    return got if got.rr <= max(CLEAN_FACTOR * cand.rr, cand.rr + ABSOLUTE_SLACK) else None


def sparser(cand: Candidate, X: np.ndarray, y: np.ndarray, rng: np.random.Generator, evaluations: int,
            snap: float, prune: float, floor: float) -> list[Candidate]:
    """The candidate with its inner terms dropped one at a time, smallest term first, each step refitted
    and cleaned, while the fit stays within ``floor`` (or ``CLEAN_FACTOR`` times the full fit's residual).

    Teacher values carry a smooth error of about 1e-3; a full inner fits part of it with small spurious
    terms (``-x/(x**2 + 0.49*t + 0.009*t**2 + 1)``) whose residual is lower than the right structure's.
    The sparser forms are what the physics refit (Stage B) needs: the right terms, rough constants."""
    bound = max(CLEAN_FACTOR * cand.rr, floor)
    out: list[Candidate] = []
    current = cand
    while current.shape.inner.size > 1:
        i = _smallest_term(current, X)
        if i is None:
            break
        dropped = _without(current, i)
        got = refine(dropped, X, y, rng, 1, evaluations)
        if not got.rr <= bound:
            break
        tidy = clean(got, X, y, rng, evaluations, snap, prune)
        current = tidy if tidy is not None and tidy.rr <= bound else got
        out.append(current)
    return out


def _smallest_term(cand: Candidate, X: np.ndarray) -> int | None:
    """The parameter index of the inner coefficient whose term is smallest on X (a polynomial's last term
    and a ratio's last denominator term are kept: the form would lose its kind)."""
    columns = cand.shape.coefficient_columns(X)
    inner = cand.shape.inner
    offset = int(cand.shape.a_free) + int(cand.shape.b_free)
    n_num = len(inner.num) - int(inner.fixed_one)
    sizes: list[tuple[float, int]] = []
    for j in range(inner.size):
        if (j < n_num and len(inner.num) == 1) or (j >= n_num and len(inner.den) == 1):
            continue
        col = columns[offset + j]
        if col is not None:
            sizes.append((abs(float(cand.theta[offset + j])) * float(np.sqrt(np.mean(col ** 2))), offset + j))
    return min(sizes)[1] if sizes else None


def _without(cand: Candidate, i: int) -> Candidate:
    """The candidate without the inner coefficient at parameter index ``i`` (its monomial removed)."""
    shape = cand.shape
    offset = int(shape.a_free) + int(shape.b_free)
    inner, kept = shape.inner.without({i - offset})
    new = Shape(shape.outer, inner, shape.cols, shape.a_free, shape.b_free, shape.a_fixed, shape.factor)
    head, rest = cand.theta[:offset], cand.theta[offset:]
    theta = np.concatenate([head, rest[:shape.inner.size][kept], rest[shape.inner.size:]])
    return Candidate(new, theta, float("inf"))


def snap_targets(cand: Candidate, X: np.ndarray, snap: float, prune: float) -> dict[int, float]:
    """Parameter index -> the simple value it is snapped to: 0 for an inner coefficient whose term is
    below ``prune`` of its polynomial, else a nearby simple number."""
    columns = cand.shape.coefficient_columns(X)
    scale = _term_scale(cand.shape, cand.theta, columns)
    out: dict[int, float] = {}
    for i, (v, col) in enumerate(zip(cand.theta, columns)):
        if col is not None and abs(v) * float(np.sqrt(np.mean(col ** 2))) <= prune * scale:
            out[i] = 0.0
            continue
        nice = simple(float(v), snap)
        if nice is not None and nice != v:
            out[i] = nice
    return out


def simple(v: float, snap: float) -> float | None:
    """The simplest number within ``snap`` (relative, at least absolute for |v| < 1) of ``v``."""
    tol = snap * max(1.0, abs(v))
    if abs(v) <= tol:
        return 0.0
    frac = Fraction(v).limit_denominator(DENOMINATOR)
    if abs(v - float(frac)) <= tol:
        return float(frac)
    turns = Fraction(v / (math.pi / 4)).limit_denominator(1)
    if turns and abs(v - float(turns) * math.pi / 4) <= tol:
        return float(turns) * math.pi / 4
    return None


def _term_scale(shape: Shape, theta: np.ndarray, columns: list[np.ndarray | None]) -> float:
    sizes = [abs(v) * float(np.sqrt(np.mean(c ** 2))) for v, c in zip(theta, columns) if c is not None]
    return max([*sizes, 1.0 if shape.inner.fixed_one or shape.inner.den else 0.0]) or 1.0


def _full(theta: np.ndarray, fixed: dict[int, float], free: list[int], p: np.ndarray) -> np.ndarray:
    out = theta.astype(float).copy()
    for i, v in fixed.items():
        out[i] = v
    out[free] = p
    return out


def _scored(shape: Shape, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> Candidate:
    return Candidate(shape, theta, relative_residual(shape.predict(X, theta), y))
