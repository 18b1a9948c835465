"""The dictionary of separable basis terms: length scales, the teacher spectra, factors and their order.

A *term* is a product over the variables of one factor per variable,
``v**k * u(w*v + phi)`` (the transcendental part optional; ``log(v)`` for a positive variable), with each power ``k``
at most ``degree`` and the term's total polynomial degree at most ``total_degree``;
without products a term is one variable's ``v**k`` or ``u(w*v + phi)`` alone.  Every
transcendental factor refers to one *nonlinear parameter* (a frequency or a rate,
shared by every factor that was built from the same value), so a support's parameters
can be refined together, each within its window.  Each factor has a *rank*; a term's
cost is its total degree plus the ranks of its factors, and the dictionary keeps the
cheapest terms first (ties broken by a fixed key), so it is capped deterministically.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from desyr_dictionary.special import Coordinate

#: unary operators of the common vocabulary the dictionary knows
TRIG = ("sin", "cos")
HYPERBOLIC = ("sinh", "cosh")
KNOWN_UNARY = frozenset(TRIG + ("exp",) + HYPERBOLIC + ("log",))
#: the rank of ``log(v)``, a factor of a variable whose samples are all positive (its parameter stays 1:
#: ``log(w*v)`` is ``log(w) + log(v)``, so a free ``w`` would only trade places with the intercept)
LOG_RANK = 1

#: a sample span is snapped up to the nearest "nice" length (mantissa x 10^e, or that times pi) within 5%
NICE_MANTISSAS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)
NICE_SLACK = 1.05
#: teacher spectrum: grid oversampling (steps per pi/L), smallest RSS drop of a peak (relative to the first base),
#: and how close (in grid steps pi/L) a peak may come to a grid frequency before it is dropped as a duplicate
#: (the refinement reaches it from the grid frequency)
SPECTRUM_OVERSAMPLING = 4
SPECTRUM_MIN_POWER = 1e-3
SPECTRUM_DUPLICATE = 0.25
#: exp-rate spectrum: grid of rates a*L = +-(1/4 .. 16), a factor RATE_STEP apart; a peak within
#: RATE_DUPLICATE (relative) of a grid rate is dropped as its duplicate
RATE_STEP, RATE_DUPLICATE = 1.25, 0.02
#: the rank of a special factor of a derived coordinate (erf(a*xi), besselj(0, k*r): desyr_dictionary.special)
SPECIAL_RANK = 2
#: harmonics of the other variables turned into exp/sinh/cosh rates (exp(-w^2 t), exp(-w y), sinh(w y))
COUPLED_HARMONICS = 2


@dataclass(frozen=True)
class Factor:
    """One transcendental factor ``op(params[param] * v + phase)`` of one variable."""

    op: str
    param: int
    phase: float
    rank: int


#: the order of the terms of one cost level: degree, number of factors, powers, then the factors
_LevelKey = tuple[int, int, tuple[int, ...], tuple[tuple[str | int | float, ...], ...]]


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
    windows: list[tuple[float, float]] = field(default_factory=list)   # where each parameter may move
    frequencies: dict[str, list[float]] = field(default_factory=dict)   # trig frequencies per variable
    rates: dict[str, list[float]] = field(default_factory=dict)         # exp rates per variable
    peaks: dict[str, list[float]] = field(default_factory=dict)         # teacher-spectrum peaks per variable
    rate_peaks: dict[str, list[float]] = field(default_factory=dict)    # exp-rate spectrum peaks per variable


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


def spectrum_peaks(X: np.ndarray, y: np.ndarray, i: int, L: float, max_harmonic: int, count: int,
                   family: str = "trig") -> list[float]:
    """Peaks of a least-squares (Lomb-Scargle-like) periodogram of ``y`` along variable ``i``.

    For a trial frequency w the teacher values are fitted by ``B + M*(c sin(w v) + d cos(w v))``, with
    ``M`` the monomials of the other variables up to degree 2 (so a product ``f(v) g(others)`` shows up
    even where the mean of ``g`` is zero) and the base ``B = M*(a + b v)``; the power is the relative drop
    of the residual sum of squares against the base alone.  The strongest local maximum on the grid
    (steps of pi/(4L) up to (max_harmonic+1) pi/L) is refined by a bounded scalar search and, when its
    drop is at least 1e-3 of the first base's residual, kept and added to the base (prewhitening)
    before the next one is looked for; at the end each peak is refined again with all the others in
    the base.  With ``family`` "exp" the trial waves are ``M*c exp(a v)``
    and the grid is ``+-a`` with ``a*L`` from 1/4 to 16 in steps of a factor RATE_STEP."""
    if count <= 0:
        return []
    from scipy.optimize import minimize_scalar

    v = X[:, i] - X[:, i].min()
    others = np.delete(X, i, axis=1)
    M = _monomials(others - others.mean(axis=0), 2 if others.shape[1] <= 3 else 1)
    base = np.column_stack([M, M * v[:, None]])
    yc = y - y.mean()
    trig = family == "trig"
    step = math.pi / (SPECTRUM_OVERSAMPLING * L)
    if trig:
        grid = np.arange(2, SPECTRUM_OVERSAMPLING * (max_harmonic + 1) + 1) * step
    else:
        mags = RATE_STEP ** np.arange(math.ceil(math.log(64) / math.log(RATE_STEP)) + 1) / (4 * L)
        grid = np.concatenate([-mags[::-1], mags])

    def waves(w: float) -> list[np.ndarray]:
        if trig:
            return [M * np.sin(w * v)[:, None], M * np.cos(w * v)[:, None]]
        with np.errstate(over="ignore"):
            return [M * np.exp(w * v)[:, None]]

    def near(w: float, u: float) -> bool:
        return abs(w - u) <= (step if trig else (RATE_STEP - 1) * abs(u))

    def power(w: float, base: np.ndarray, rss0: float) -> float:
        A = np.column_stack([base, *waves(float(w))])
        return 1.0 - _rss(A, yc) / rss0 if np.all(np.isfinite(A)) else -1.0

    def best_near(g: float, pg: float, base: np.ndarray, rss0: float) -> tuple[float, float]:
        """The bounded scalar search around ``g`` (power ``pg``); ``g`` itself when that is no better."""
        g = float(g)
        lo, hi = (max(g - step, 0.5 * step), g + step) if trig else sorted((g / RATE_STEP, g * RATE_STEP))
        found = minimize_scalar(lambda w: -power(w, base, rss0), bounds=(lo, hi), method="bounded",
                                options={"xatol": 1e-7 * abs(g)})
        return (float(found.x), -float(found.fun)) if -float(found.fun) > pg else (g, float(pg))

    peaks: list[float] = []
    first = _rss(base, yc)
    start = base
    for _ in range(count):
        rss0 = _rss(base, yc)
        if not rss0 > SPECTRUM_MIN_POWER * first or not first > 1e-24 * max(float(yc @ yc), 1e-300):
            break
        p = np.array([power(w, base, rss0) if not any(near(w, u) for u in peaks) else -1.0 for w in grid])
        k = int(np.argmax(p))
        w, pw = best_near(grid[k], p[k], base, rss0)
        if pw * rss0 < SPECTRUM_MIN_POWER * first:
            break
        peaks.append(w)
        base = np.column_stack([base, *waves(w)])
    # polish: each peak again with all the others in the base (the first ones were found beside the later)
    for j in range(len(peaks) if len(peaks) > 1 else 0):
        others_base = np.column_stack([start, *(c for u in peaks[:j] + peaks[j + 1:] for c in waves(u))])
        rss0 = _rss(others_base, yc)
        peaks[j] = best_near(peaks[j], power(peaks[j], others_base, rss0), others_base, rss0)[0]
    return peaks


class _Params:
    """Nonlinear parameter values, one per distinct (variable, family, value), each with the window a
    refinement may move it in: a frequency ``w`` by half a grid step ``pi/(2L)`` (at most ``w/2``),
    a rate ``a`` between ``a/2`` and ``2a``."""

    def __init__(self) -> None:
        self.values: list[float] = []
        self.windows: list[tuple[float, float]] = []
        self._index: dict[tuple[int, str, float], int] = {}

    def index(self, var: int, family: str, value: float, step: float | None = None, fixed: bool = False) -> int:
        key = (var, family, float(np.float64(value).round(12)))
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(float(value))
            if fixed:       # an empty window: no refinement moves it
                self.windows.append((value, value))
            elif step is not None:
                h = min(step / 2, abs(value) / 2)
                self.windows.append((value - h, value + h))
            else:
                self.windows.append((min(value / 2, 2 * value), max(value / 2, 2 * value)))
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
                     exp_rates: Sequence[float], max_harmonic: int, params: _Params, dic: Dictionary,
                     rate_peaks: Sequence[float] = (), positive: bool = False) -> list[Factor]:
    """The transcendental factors of variable ``i`` (see the module docstring for the grids); with
    ``positive`` (every sample of the variable above zero) and "log" allowed, ``log(v)`` as well."""
    out: list[Factor] = []
    L = lengths[i]
    if L is None:
        return out
    if positive and "log" in ops:
        out.append(Factor("log", params.index(i, "log", 1.0, fixed=True), 0.0, LOG_RANK))
    grid = [k * math.pi / L for k in range(1, max_harmonic + 1)]
    own_peaks = [w for w in _unique(peaks[i]) if all(abs(w - g) > SPECTRUM_DUPLICATE * math.pi / L for g in grid)]
    trig = [(w, k) for k, w in enumerate(grid, start=1)] + [(w, 2) for w in own_peaks]
    # harmonics of the other variables: exp(-w^2 v) (diffusion), exp(-+w v) and sinh/cosh(w v) (Laplace)
    coupled: list[tuple[float, int]] = []
    for j, Lj in enumerate(lengths):
        if j != i and Lj is not None:
            coupled += [(k * math.pi / Lj, k) for k in range(1, COUPLED_HARMONICS + 1)]
    if ops & set(TRIG):
        dic.frequencies[name] = [w for w, _ in trig]
        for w, rank in trig:
            p = params.index(i, "trig", w, step=math.pi / L)
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
        rates += [(a, 2) for a in _unique(rate_peaks, [a for a, _ in rates], RATE_DUPLICATE)]
        _add_rates(out, i, "exp", ("exp",), rates, params)
        dic.rates[name] = _unique([a for a, _ in rates])
    if ops & set(HYPERBOLIC):
        hyper = [(abs(a), rate_rank(a)) for a in user] + [(w, k) for w, k in coupled]
        hyper += [(a, 2) for a in _unique([abs(a) for a in rate_peaks], [a for a, _ in hyper], RATE_DUPLICATE)]
        _add_rates(out, i, "hyp", [op for op in HYPERBOLIC if op in ops], hyper, params)
    return out


def _add_rates(out: list[Factor], i: int, family: str, ops: Sequence[str], rates: list[tuple[float, int]],
               params: _Params) -> None:
    """One factor per distinct rate and operator, with the lowest rank the rate was offered with."""
    kept = _unique([a for a, _ in rates])
    rank = {a: min(r for b, r in rates if abs(a - b) <= 1e-9 * max(abs(a), abs(b))) for a in kept}
    out += [Factor(op, params.index(i, family, a), 0.0, rank[a]) for op in ops for a in kept]


def build_dictionary(X: np.ndarray, y: np.ndarray, variables: Sequence[str], ops: frozenset[str], degree: int,
                     max_harmonic: int, exp_rates: Sequence[float], peaks_per_variable: int, max_columns: int,
                     total_degree: int | None = None, products: bool = True,
                     special: Sequence[Coordinate] = ()) -> Dictionary:
    """The cheapest ``max_columns`` terms (the constant term first) for the data ``X``, ``y``: powers
    up to ``degree`` per variable and ``total_degree`` (default ``degree``) per term; with
    ``products`` false a term is a single factor (one variable's power or transcendental factor).
    Each derived coordinate of ``special`` is one more position of every term, after the variables
    (its values are the samples' next column), whose only factors are its special functions."""
    d = X.shape[1]
    lengths = [nice_length(float(X[:, i].max() - X[:, i].min())) for i in range(d)]
    want = {"trig": peaks_per_variable if ops & set(TRIG) else 0,
            "exp": peaks_per_variable if ops & set(HYPERBOLIC + ("exp",)) else 0}
    peaks, rate_peaks = ([spectrum_peaks(X, y, i, L, max_harmonic, want[family], family) if L is not None else []
                          for i, L in enumerate(lengths)] for family in ("trig", "exp"))
    params = _Params()
    dic = Dictionary([], params.values, lengths, params.windows, peaks=dict(zip(variables, peaks)),
                     rate_peaks=dict(zip(variables, rate_peaks)))
    options = []   # per variable: (cost, power, factor) sorted by cost
    for i, name in enumerate(variables):
        factors: list[Factor | None] = [None, *variable_factors(i, name, ops, lengths, peaks, exp_rates,
                                                                 max_harmonic, params, dic, rate_peaks[i],
                                                                 positive=bool(X[:, i].min() > 0))]
        powers = range(degree + 1) if lengths[i] is not None else range(1)
        opts = [(k + (f.rank if f else 0), k, f) for f in factors for k in powers if products or not (k and f)]
        options.append(sorted(opts, key=lambda o: o[0]))
    for j, coord in enumerate(special, start=d):
        own = [Factor(op, params.index(j, op, value, coord.step), 0.0, SPECIAL_RANK)
               for op in coord.ops for value in coord.grid]
        options.append([(0, 0, None), *((SPECIAL_RANK, 0, f) for f in own)])
    total = degree if total_degree is None else total_degree
    dic.terms = _cheapest_terms(options, total, max_columns, products)
    return dic


def _cheapest_terms(options: list[list[tuple[int, int, Factor | None]]], degree: int, limit: int,
                    products: bool = True) -> list[Term]:
    """Terms of total degree at most ``degree`` in increasing cost, exact-cost level by level, until
    ``limit`` (ties: a fixed key); without ``products`` at most one variable is not trivial."""
    d = len(options)
    top = sum(o[-1][0] for o in options)
    chosen: list[Term] = []
    for budget in range(top + 1):
        level: list[tuple[_LevelKey, Term]] = []

        def walk(i: int, left: int, deg: int, busy: int, powers: tuple[int, ...],
                 factors: tuple[Factor | None, ...], level: list[tuple[_LevelKey, Term]] = level) -> None:
            if i == d:
                if left == 0:
                    key = (sum(powers), sum(f is not None for f in factors), powers,
                           tuple((f.op, f.rank, f.param, f.phase) if f else ("",) for f in factors))
                    level.append((key, Term(powers, factors)))
                return
            for cost, k, f in options[i]:
                if cost > left:
                    break
                used = bool(k or f)
                if deg + k <= degree and (products or busy + used < 2):
                    walk(i + 1, left - cost, deg + k, busy + used, powers + (k,), factors + (f,))

        walk(0, budget, 0, 0, (), ())
        level.sort(key=lambda kt: kt[0])
        chosen += [t for _, t in level[: max(limit - len(chosen), 0)]]
        if len(chosen) >= limit:
            break
    return chosen
