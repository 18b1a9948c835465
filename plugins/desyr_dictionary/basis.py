"""The dictionary of separable basis terms: length scales, the teacher spectrum, factors and their order.

A *term* is a product over the variables of one factor per variable,
``v**k * u(w*v + phi)`` (the transcendental part optional), with the total
polynomial degree at most ``degree``.  Every transcendental factor refers to one
*nonlinear parameter* (a frequency or a rate, shared by every factor that was
built from the same value), so a support's parameters can be refined together.
Each factor has a *rank*; a term's cost is its total degree plus the ranks of its
factors, and the dictionary keeps the cheapest terms first (ties broken by a fixed
key), so it is capped deterministically.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement

import numpy as np

#: unary operators of the common vocabulary the dictionary knows
TRIG = ("sin", "cos")
HYPERBOLIC = ("sinh", "cosh")
KNOWN_UNARY = frozenset(TRIG + ("exp",) + HYPERBOLIC)

#: a sample span is snapped up to the nearest "nice" length (mantissa x 10^e, or that times pi) within 5%
NICE_MANTISSAS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)
NICE_SLACK = 1.05
#: teacher spectrum: grid oversampling (steps per pi/L), smallest RSS drop of a peak (relative to the first base),
#: and how close (relative) a peak may come to a grid frequency before it is dropped as a duplicate
SPECTRUM_OVERSAMPLING = 4
SPECTRUM_MIN_POWER = 1e-3
SPECTRUM_DUPLICATE = 1e-2
#: harmonics of the other variables turned into exp/sinh/cosh rates (exp(-w^2 t), exp(-w y), sinh(w y))
COUPLED_HARMONICS = 2


@dataclass(frozen=True)
class Factor:
    """One transcendental factor ``op(params[param] * v + phase)`` of one variable."""

    op: str
    param: int
    phase: float
    rank: int


@dataclass(frozen=True)
class Term:
    """A product over the variables: ``v_i ** powers[i]`` times ``factors[i]`` (None: no factor)."""

    powers: tuple[int, ...]
    factors: tuple[Factor | None, ...]


@dataclass
class Dictionary:
    """The capped list of terms and the nonlinear parameters their factors use."""

    terms: list[Term]
    params: list[float]
    lengths: list[float | None]                               # length scale L of each variable
    frequencies: dict[str, list[float]] = field(default_factory=dict)   # trig frequencies per variable
    rates: dict[str, list[float]] = field(default_factory=dict)         # exp rates per variable
    peaks: dict[str, list[float]] = field(default_factory=dict)         # teacher-spectrum peaks per variable


def nice_length(span: float) -> float | None:
    """``span`` snapped up to a nice length within 5% (so that [0, 1] sampled at 0.002..0.997 gives 1)."""
    if not math.isfinite(span) or span <= 0:
        return None
    e = math.floor(math.log10(span))
    nice = [m * 10.0 ** k * s for k in (e - 1, e, e + 1) for m in NICE_MANTISSAS for s in (1.0, math.pi)]
    fits = [c for c in nice if span * (1 - 1e-12) <= c <= span * NICE_SLACK]
    return min(fits) if fits else float(span)


def _monomials(Z: np.ndarray, degree: int) -> np.ndarray:
    """All monomials of the columns of ``Z`` up to ``degree`` (the constant first)."""
    cols = [np.ones(Z.shape[0])]
    for k in range(1, degree + 1):
        for combo in combinations_with_replacement(range(Z.shape[1]), k):
            cols.append(np.prod(Z[:, list(combo)], axis=1))
    return np.column_stack(cols)


def _rss(A: np.ndarray, y: np.ndarray) -> float:
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    r = y - A @ coef
    return float(r @ r)


def spectrum_peaks(X: np.ndarray, y: np.ndarray, i: int, L: float, max_harmonic: int, count: int) -> list[float]:
    """Peaks of a least-squares (Lomb-Scargle-like) periodogram of ``y`` along variable ``i``.

    For a trial frequency w the teacher values are fitted by ``B + M*(c sin(w v) + d cos(w v))``, with
    ``M`` the monomials of the other variables up to degree 2 (so a product ``f(v) g(others)`` shows up
    even where the mean of ``g`` is zero) and the base ``B = M*(a + b v)``; the power is the relative drop
    of the residual sum of squares against the base alone.  The strongest local maximum on the grid
    (steps of pi/(4L) up to (max_harmonic+1) pi/L) is refined by a bounded scalar search and, when its
    drop is at least 1e-3 of the first base's residual, kept and added to the base (prewhitening)
    before the next one is looked for."""
    if count <= 0:
        return []
    from scipy.optimize import minimize_scalar

    v = X[:, i] - X[:, i].min()
    others = np.delete(X, i, axis=1)
    M = _monomials(others - others.mean(axis=0), 2 if others.shape[1] <= 3 else 1)
    base = np.column_stack([M, M * v[:, None]])
    yc = y - y.mean()
    step = math.pi / (SPECTRUM_OVERSAMPLING * L)
    grid = np.arange(2, SPECTRUM_OVERSAMPLING * (max_harmonic + 1) + 1) * step
    peaks: list[float] = []
    first = _rss(base, yc)
    for _ in range(count):
        rss0 = _rss(base, yc)
        if not rss0 > SPECTRUM_MIN_POWER * first or not first > 1e-24 * max(float(yc @ yc), 1e-300):
            break

        def power(w: float, base: np.ndarray = base, rss0: float = rss0) -> float:
            waves = [M * np.sin(w * v)[:, None], M * np.cos(w * v)[:, None]]
            return 1.0 - _rss(np.column_stack([base, *waves]), yc) / rss0

        p = np.array([power(float(w)) if all(abs(w - u) > step for u in peaks) else -1.0 for w in grid])
        k = int(np.argmax(p))
        lo, hi = max(float(grid[k] - step), 0.5 * step), float(grid[k] + step)
        best = minimize_scalar(lambda w: -power(w), bounds=(lo, hi), method="bounded",
                               options={"xatol": 1e-7 * float(grid[k])})
        w, pw = (float(best.x), -float(best.fun)) if -float(best.fun) > p[k] else (float(grid[k]), float(p[k]))
        if pw * rss0 < SPECTRUM_MIN_POWER * first:
            break
        peaks.append(w)
        base = np.column_stack([base, M * np.sin(w * v)[:, None], M * np.cos(w * v)[:, None]])
    return peaks


class _Params:
    """Nonlinear parameter values, one per distinct (variable, family, value)."""

    def __init__(self) -> None:
        self.values: list[float] = []
        self._index: dict[tuple[int, str, float], int] = {}

    def index(self, var: int, family: str, value: float) -> int:
        key = (var, family, float(np.float64(value).round(12)))
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(float(value))
        return self._index[key]


def _unique(values: Sequence[float], away_from: Sequence[float] = (), rel: float = 1e-9) -> list[float]:
    out: list[float] = []
    for v in values:
        if not math.isfinite(v) or v == 0:
            continue
        if any(abs(v - u) <= rel * max(abs(u), abs(v)) for u in [*out, *away_from]):
            continue
        out.append(float(v))
    return out


def rate_rank(a: float) -> int:
    """Rank of a user rate: 1 for |a| = 1, one more per doubling or halving (0.5 and 2: 2, 3: 3, ...)."""
    return 1 + int(round(abs(math.log2(abs(a)))))


def variable_factors(i: int, name: str, ops: frozenset[str], lengths: list[float | None], peaks: list[list[float]],
                     exp_rates: Sequence[float], max_harmonic: int, params: _Params, dic: Dictionary) -> list[Factor]:
    """The transcendental factors of variable ``i`` (see the module docstring for the grids)."""
    out: list[Factor] = []
    L = lengths[i]
    if L is None:
        return out
    grid = [k * math.pi / L for k in range(1, max_harmonic + 1)]
    own_peaks = _unique(peaks[i], away_from=grid, rel=SPECTRUM_DUPLICATE)
    trig = [(w, k) for k, w in enumerate(grid, start=1)] + [(w, 2) for w in own_peaks]
    # harmonics of the other variables: exp(-w^2 v) (diffusion), exp(-+w v) and sinh/cosh(w v) (Laplace)
    coupled: list[tuple[float, int]] = []
    for j, Lj in enumerate(lengths):
        if j != i and Lj is not None:
            coupled += [(k * math.pi / Lj, k) for k in range(1, COUPLED_HARMONICS + 1)]
    if ops & set(TRIG):
        dic.frequencies[name] = [w for w, _ in trig]
        for w, rank in trig:
            p = params.index(i, "trig", w)
            if ops >= set(TRIG):
                out += [Factor("sin", p, 0.0, rank), Factor("cos", p, 0.0, rank)]
            elif "sin" in ops:      # cos(w v) = sin(w v + pi/2)
                out += [Factor("sin", p, 0.0, rank), Factor("sin", p, math.pi / 2, rank)]
            else:                   # sin(w v) = cos(w v - pi/2)
                out += [Factor("cos", p, 0.0, rank), Factor("cos", p, -math.pi / 2, rank)]
    user = _unique(exp_rates)
    if "exp" in ops:
        rates = [(a, rate_rank(a)) for a in user]
        rates += [r for w, k in coupled for r in ((-w * w, k), (-w, k + 1), (w, k + 1))]
        _add_rates(out, i, "exp", ("exp",), rates, params)
        dic.rates[name] = _unique([a for a, _ in rates])
    if ops & set(HYPERBOLIC):
        hyper = [(abs(a), rate_rank(a)) for a in user] + [(w, k) for w, k in coupled]
        _add_rates(out, i, "hyp", [op for op in HYPERBOLIC if op in ops], hyper, params)
    return out


def _add_rates(out: list[Factor], i: int, family: str, ops: Sequence[str], rates: list[tuple[float, int]],
               params: _Params) -> None:
    """One factor per distinct rate and operator, with the lowest rank the rate was offered with."""
    kept = _unique([a for a, _ in rates])
    rank = {a: min(r for b, r in rates if abs(a - b) <= 1e-9 * max(abs(a), abs(b))) for a in kept}
    out += [Factor(op, params.index(i, family, a), 0.0, rank[a]) for op in ops for a in kept]


def build_dictionary(X: np.ndarray, y: np.ndarray, variables: Sequence[str], ops: frozenset[str], degree: int,
                     max_harmonic: int, exp_rates: Sequence[float], peaks_per_variable: int,
                     max_columns: int) -> Dictionary:
    """The cheapest ``max_columns`` terms (the constant term first) for the data ``X``, ``y``."""
    d = X.shape[1]
    lengths = [nice_length(float(X[:, i].max() - X[:, i].min())) for i in range(d)]
    want_peaks = peaks_per_variable if ops & set(TRIG + HYPERBOLIC + ("exp",)) else 0
    peaks = [spectrum_peaks(X, y, i, L, max_harmonic, want_peaks) if L is not None else [] for i, L in
             enumerate(lengths)]
    params = _Params()
    dic = Dictionary([], params.values, lengths, peaks={v: p for v, p in zip(variables, peaks)})
    options = []   # per variable: (cost, power, factor) sorted by cost
    for i, name in enumerate(variables):
        factors: list[Factor | None] = [None, *variable_factors(i, name, ops, lengths, peaks, exp_rates,
                                                                 max_harmonic, params, dic)]
        powers = range(degree + 1) if lengths[i] is not None else range(1)
        opts = [(k + (f.rank if f else 0), k, f) for f in factors for k in powers]
        options.append(sorted(opts, key=lambda o: o[0]))
    dic.terms = _cheapest_terms(options, degree, max_columns)
    return dic


def _cheapest_terms(options: list[list[tuple[int, int, Factor | None]]], degree: int, limit: int) -> list[Term]:
    """Terms in increasing cost, exact-cost level by level, until ``limit`` (ties: a fixed key)."""
    d = len(options)
    top = sum(o[-1][0] for o in options)
    chosen: list[Term] = []
    for budget in range(top + 1):
        level: list[tuple[tuple, Term]] = []

        def walk(i: int, left: int, deg: int, powers: tuple[int, ...], factors: tuple[Factor | None, ...],
                 level: list[tuple[tuple, Term]] = level) -> None:
            if i == d:
                if left == 0:
                    key = (sum(powers), sum(f is not None for f in factors), powers,
                           tuple((f.op, f.rank, f.param, f.phase) if f else ("",) for f in factors))
                    level.append((key, Term(powers, factors)))
                return
            for cost, k, f in options[i]:
                if cost > left:
                    break
                if deg + k <= degree:
                    walk(i + 1, left - cost, deg + k, powers + (k,), factors + (f,))

        walk(0, budget, 0, (), ())
        level.sort(key=lambda kt: kt[0])
        chosen += [t for _, t in level[: max(limit - len(chosen), 0)]]
        if len(chosen) >= limit:
            break
    return chosen
