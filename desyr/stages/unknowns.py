"""Stage B for inverse problems: start the unknowns, ask whether the data can decide them, name them exactly.

The refit fits a candidate's constants and the unknowns together, against the physics and the
misfit to the observations.  Here, after it:

1. **Identifiability.**  The Jacobian of that objective with respect to every free number,
   each column scaled by its value (relative changes), is decomposed.  A direction it cannot
   see (singular value below :data:`RANK_TOLERANCE` of the largest) that moves an unknown
   means the unknowns are not decided: ``u_t = a*b*u_xx`` sees only ``a*b``.  The run says so
   and names nothing.
2. **Exact values.**  The physics holds exactly for the true coefficient; the data, noisy or
   not, only pick the branch.  So each unknown's simplest closed forms inside its confidence
   window (3 standard errors from the same Jacobian) are tried: the unknown is fixed, the
   other constants refit, and the value is kept when the physics stays at its level and the
   squared misfit grows by at most 9 noise variances.  Among the forms that pass, the one of least
   cost wins: half the rise of the squared misfit in noise variances, plus a prior cost for its
   size and base.  When another costs less than :data:`DECISIVE_NATS` more, the data cannot
   decide between them, and the run says that instead.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from desyr.model.candidates import Candidate
from desyr.model.context import RunContext
from desyr.model.problem import Problem
from desyr.model.unknowns import starting_values
from desyr.stages.measure import measure_phi
from desyr.symbolic.parameterize import parameterize
from desyr.symbolic.physics import OBSERVATION_WEIGHT, for_refinement

#: singular values below this fraction of the largest are directions the objective cannot see
RANK_TOLERANCE = 1e-7
#: the confidence window of an unknown, in standard errors
WINDOW = 3.0
#: a window never narrower than this (relative): round-off of an exact fit
MIN_WINDOW = 1e-9
#: a window never wider than this (relative): beyond it "the simplest number" means nothing
MAX_WINDOW = 0.2
#: bases of the closed forms of a coefficient, simplest first
BASES = (sp.Integer(1), sp.pi, sp.pi ** 2, 1 / sp.pi, sp.sqrt(2), sp.sqrt(3), sp.E)
MAX_DIGITS = 5
MAX_TRIES = 6
#: prior cost of a closed form p/q*b, in nats: log(|p| + 1) + log(q), and this for a base other than 1
BASE_NATS = math.log(len(BASES))
#: a form is chosen only when every other passing form costs at least this many nats more (posterior
#: odds of e to 1, prior included); otherwise the data cannot decide
DECISIVE_NATS = 1.0

#: refits a candidate's expression mapping with the run's refiner: (status, refined mapping)
Refit = Callable[[Mapping[str, sp.Expr]], tuple[str, dict[str, sp.Expr]]]


def seeded(cand: Candidate, ctx: RunContext) -> None:
    """Give the candidate a starting value for each unknown it lacks: the teacher's estimate, else the
    middle of the bounds; a float the refit will move (0 and +-1 are structure, so start beside them)."""
    for name, start in starting_values(ctx.problem.unknowns, ctx.unknown_estimates).items():
        cand.search_expressions.setdefault(name, start)


def outside_bounds(problem: Problem, exprs: Mapping[str, sp.Expr]) -> str:
    """Why a refit's unknowns are not acceptable: one lies outside its declared range ("" if none)."""
    for unknown in problem.unknowns:
        value = exprs.get(unknown.name)
        if value is None or not value.is_number:
            continue
        v = float(value)
        slack = 1e-9 * max(abs(unknown.lo), abs(unknown.hi))
        if not unknown.lo - slack <= v <= unknown.hi + slack:
            return f"the refit put {unknown.name} = {v:.6g} outside its range [{unknown.lo:g}, {unknown.hi:g}]"
    return ""


@dataclass(frozen=True)
class Sensitivity:
    """What the objective's Jacobian says about the unknowns at a fit."""

    rank: int
    size: int
    blind: tuple[str, ...]              # unknowns moved by a direction the objective cannot see
    combination: str                    # what the data do decide, when two unknowns are blind
    errors: dict[str, float]            # standard error of each unknown (absolute)


def sensitivity(problem: Problem, exprs: Mapping[str, sp.Expr], ctx: RunContext) -> Sensitivity | None:
    """The scaled Jacobian's rank and the unknowns' standard errors at ``exprs`` (None: nothing to fit)."""
    names = [u.name for u in problem.unknowns if isinstance(exprs.get(u.name), sp.Float)]
    if not names:
        return None
    parts = {f: parameterize(e, prefix=f"{f}_s") for f, e in exprs.items()}
    symbols = [s for p in parts.values() for s in p.symbols]
    values = np.array([v for p in parts.values() for v in p.values], dtype=float)
    system = for_refinement(problem, {f: p.expression for f, p in parts.items()}, symbols, ctx.points,
                            ctx.constraint_weight)
    with np.errstate(all="ignore"):
        J = system.jacobian(values)
        F = system.vector(values)
    if not (np.all(np.isfinite(J)) and np.all(np.isfinite(F))):
        return None
    # unit columns: a dependence is seen whatever the sizes of the numbers (a 6e-9 coefficient too)
    norms = np.linalg.norm(J, axis=0)
    norms[norms == 0] = 1.0
    _, s, Vt = np.linalg.svd(J / norms, full_matrices=False)
    rank = int(np.sum(s > RANK_TOLERANCE * s[0])) if s.size and s[0] > 0 else 0
    unknown_columns = {n: symbols.index(parts[n].symbols[0]) for n in names}
    null = Vt[rank:] / norms                          # the blind directions, in the numbers themselves
    null = null / np.maximum(np.linalg.norm(null, axis=1, keepdims=True), 1e-300)
    blind = tuple(n for n, j in unknown_columns.items() if null.size and np.max(np.abs(null[:, j])) > 0.1)
    relative = null / np.where(values == 0, 1.0, values)   # the same directions in relative changes
    return Sensitivity(rank, len(symbols), blind, _combination(blind, relative, unknown_columns),
                       _errors(J / norms, F, norms, s, Vt, rank, unknown_columns, problem))


def _combination(blind: tuple[str, ...], null: np.ndarray, columns: Mapping[str, int]) -> str:
    """``a*b`` when the one blind direction moves a and b oppositely in relative terms."""
    if len(blind) != 2 or null.shape[0] != 1:
        return ""
    p, q = (float(null[0, columns[n]]) for n in blind)
    ratio = Fraction(-q / p).limit_denominator(4) if p else None
    if ratio is None or abs(float(ratio) + q / p) > 1e-3:
        return ""
    a, b = blind
    exponent = "" if ratio == 1 else f"**({ratio})"
    return f"{a}*{b}{exponent}" if ratio > 0 else f"{a}/{b}{'' if ratio == -1 else f'**({-ratio})'}"


def _errors(Jn: np.ndarray, F: np.ndarray, norms: np.ndarray, s: np.ndarray, Vt: np.ndarray, rank: int,
            columns: Mapping[str, int], problem: Problem) -> dict[str, float]:
    """Standard errors of the unknowns: the noise variance (from the observation rows) times the
    covariance of the unit-column Jacobian, inverted on the directions it sees."""
    obs = problem.observations
    if obs is None or rank == 0:
        return {}
    n = obs.X.shape[0] * len(obs.fields)
    rows = F[-n:] / math.sqrt(OBSERVATION_WEIGHT)      # the observation blocks come last
    variance = float(rows @ rows) / max(n - rank, 1)
    seen = Vt[:rank] / s[:rank, None]
    covariance = variance * (seen.T @ seen)           # pinv(Jn^T Jn), unit columns
    return {name: math.sqrt(max(covariance[j, j], 0.0)) / norms[j] for name, j in columns.items()}


@dataclass(frozen=True)
class Form:
    """A closed form of a coefficient and its prior cost in nats: the size of ``r`` and a base other than 1."""

    value: sp.Expr
    prior: float


def closed_forms(value: float, error: float) -> list[Form]:
    """Closed forms r*b inside ``value +- WINDOW*error`` (window clipped to [MIN_WINDOW, MAX_WINDOW]
    relative), the :data:`MAX_TRIES` likeliest first by prior cost plus the Gaussian cost of their distance."""
    half = min(max(WINDOW * error, MIN_WINDOW * abs(value)), MAX_WINDOW * abs(value)) or MIN_WINDOW
    sigma = max(error, half / WINDOW)
    ranked: dict[sp.Expr, tuple[float, float]] = {}
    for rank, base in enumerate(BASES):
        b = float(base)
        lo, hi = sorted(((value - half) / b, (value + half) / b))
        for r in _fractions(lo, hi):
            form = sp.Rational(r.numerator, r.denominator) * base
            prior = math.log(abs(r.numerator) + 1) + math.log(r.denominator) + (0.0 if rank == 0 else BASE_NATS)
            guess = prior + 0.5 * ((float(form) - value) / sigma) ** 2
            if form not in ranked or guess < ranked[form][0]:
                ranked[form] = (guess, prior)
    best = sorted(ranked.items(), key=lambda kv: kv[1][0])[:MAX_TRIES]
    return [Form(form, prior) for form, (_, prior) in best]


def _digits(r: Fraction) -> int:
    return len(str(abs(r.numerator))) + (len(str(r.denominator)) if r.denominator != 1 else 0)


def _fractions(lo: float, hi: float) -> list[Fraction]:
    """Fractions of at most MAX_DIGITS digits in [lo, hi]: the simplest one, and every one with a
    denominator below 1000 while there are few (a wide window holds many)."""
    found = []
    simplest = simplest_rational(lo, hi)
    if simplest is not None and _digits(simplest) <= MAX_DIGITS:
        found.append(simplest)
    for q in range(1, 1000):
        first, last = math.ceil(lo * q), math.floor(hi * q)
        if last - first > 20:
            break
        found += [Fraction(p, q) for p in range(first, last + 1)
                  if math.gcd(p, q) == 1 and _digits(Fraction(p, q)) <= MAX_DIGITS]
        if len(found) > 200:
            break
    return list(dict.fromkeys(found))


def simplest_rational(lo: float, hi: float) -> Fraction | None:
    """The rational with the smallest denominator in [lo, hi] (then the smallest numerator)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        return None
    if lo <= 0 <= hi:
        return Fraction(0)
    if hi < 0:
        r = simplest_rational(-hi, -lo)
        return None if r is None else -r
    a, b = Fraction(lo), Fraction(hi)
    return _stern_brocot(a, b, depth=0)


def _stern_brocot(a: Fraction, b: Fraction, depth: int) -> Fraction | None:
    """Simplest fraction in [a, b], 0 < a <= b, by continued fractions."""
    if depth > 60:
        return None
    floor = a.numerator // a.denominator
    if Fraction(floor) == a:
        return Fraction(floor)
    if floor + 1 <= b:
        return Fraction(floor + 1)
    inner = _stern_brocot(1 / (b - floor), 1 / (a - floor), depth + 1)
    return None if inner is None else floor + 1 / inner


def identify_unknowns(cand: Candidate, refit: Refit, ctx: RunContext) -> str:
    """Decide the unknowns of a refit candidate: exact values where the data allow one, else why not."""
    problem, exprs = ctx.problem, dict(cand.expressions or {})
    found = sensitivity(problem, exprs, ctx) if exprs else None
    if found is None:
        return ""
    misfit = problem.misfit(exprs)
    if misfit is not None and not misfit.consistent:
        # nothing to name: the formula itself misses the data, whatever the coefficient
        return (f"not decided: the fit misses the observations (relative misfit {misfit.worst:.3g}, "
                f"the stated noise allows {misfit.allowed:.3g})")
    if found.blind:
        what = f"only {found.combination} is determined" if found.combination else "the data cannot separate them"
        return (f"not identifiable: {', '.join(found.blind)} ({what}; the Jacobian has rank {found.rank} "
                f"of {found.size})")
    notes = []
    for unknown in problem.unknowns:
        value = exprs.get(unknown.name)
        if not isinstance(value, sp.Float):
            continue
        error = found.errors.get(unknown.name, 0.0)
        chosen, note = _choose(unknown.name, float(value), error, exprs, refit, ctx)
        exprs = chosen or exprs
        notes.append(note)
    cand.expressions = exprs
    return "; ".join(notes)


def _choose(name: str, value: float, error: float, exprs: dict[str, sp.Expr], refit: Refit, ctx: RunContext
            ) -> tuple[dict[str, sp.Expr] | None, str]:
    """The refit mapping with ``name`` fixed to its best closed form, and the note saying what was decided."""
    problem = ctx.problem
    base_phi = measure_phi(ctx, exprs).phi
    variance = _noise_variance(problem, exprs)
    scored = []
    for form in closed_forms(value, error):
        status, fitted = refit({**exprs, name: form.value})
        if status not in ("converged", "fixed") or not fitted:
            continue
        if not measure_phi(ctx, fitted).phi <= max(10 * base_phi, ctx.method.physics_absolute):
            continue
        rise = (_rss(problem, fitted) - _rss(problem, exprs)) / variance if variance else 0.0
        if rise <= WINDOW ** 2:
            scored.append((form.prior + 0.5 * max(rise, 0.0), form.value, fitted))
    scored.sort(key=lambda item: item[0])
    estimate = f"estimate {value:.6g} +- {error:.2g}" if error else f"estimate {value:.12g}"
    if not scored:
        return None, f"{name} = {value:.6g}: no closed form fits ({estimate})"
    if len(scored) > 1 and scored[1][0] - scored[0][0] < DECISIVE_NATS:
        return None, f"{name}: the data cannot decide between {scored[0][1]} and {scored[1][1]} ({estimate})"
    return scored[0][2], f"{name} = {scored[0][1]} ({estimate})"


def _rss(problem: Problem, exprs: Mapping[str, sp.Expr]) -> float:
    misfit = problem.misfit(exprs)
    obs = problem.observations
    if misfit is None or obs is None:
        return 0.0
    return float(sum(obs.X.shape[0] * v ** 2 for v in misfit.absolute.values()))


def _noise_variance(problem: Problem, exprs: Mapping[str, sp.Expr]) -> float:
    """The observations' noise variance estimated from the free fit, floored at round-off of the data."""
    obs = problem.observations
    if obs is None:
        return 0.0
    n = obs.X.shape[0] * len(obs.fields)
    floor = max((1e-9 * obs.scale(f)) ** 2 for f in obs.fields)
    return float(max(_rss(problem, exprs) / max(n - 1, 1), floor))
