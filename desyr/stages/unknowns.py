"""Stage B for inverse problems: start the unknowns, ask whether the data can decide them, name them exactly.

The refit fits a candidate's constants and the unknowns together, against the physics and the
misfit to the observations.  Here, after it:

1. **Identifiability** (:mod:`desyr.symbolic.identifiability`).  A direction of the unknowns
   that the objective's Jacobian cannot see means they are not decided: ``u_t = a*b*u_xx``
   sees only ``a*b``.  The run says so and names nothing.  A fit that misses the data names
   nothing either.
2. **Exact values.**  The physics holds exactly for the true coefficient; the data, noisy or
   not, only pick the branch.  So each unknown's simplest closed forms inside its confidence
   window (3 standard errors from the same Jacobian) are tried: the unknown is fixed, the
   other constants refit against the physics and the data, and the value is kept when the physics stays at its level and the
   squared misfit grows by at most 9 noise variances.  Among the forms that pass, the one of least
   cost wins: half the rise of the squared misfit in noise variances, plus a prior cost for its
   size and base.  When another costs less than :data:`DECISIVE_NATS` more, the data cannot
   decide between them, and the run says that instead; so it does when a form whose refit failed
   (from the search's tree and from the best passing fit) might have won.
3. **The physics held.**  The joint fit trades a little physics for noisy data; a last refit
   from the physics alone, the unknowns held, brings it back to round-off (an exact form
   needs that), if the data still fit within chance.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from desyr.model.candidates import Candidate
from desyr.model.context import RunContext
from desyr.model.problem import Problem
from desyr.model.residuals import sensitivity
from desyr.model.scaled import problem_scale
from desyr.model.unknowns import starting_values
from desyr.stages.measure import measure_phi, misfit_allows
from desyr.symbolic.simplify import simplify_expression

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
#: odds near 7 to 1, prior included); otherwise the data cannot decide
DECISIVE_NATS = 2.0
#: physics-only polishes of a held fit, at most: least squares can stop short of round-off when it
#: starts from a joint fit the data pulled off the physics (5e-8, then 3e-11, on the noisy oscillator)
POLISHES = 3
#: a polish that ends at or below this physics residual needs no other
ROUND_OFF = 1e-12

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
class Form:
    """A closed form of a coefficient and its prior cost in nats (the size of ``r`` and a base other
    than 1); ``expected``: the prior plus the Gaussian cost of its distance from the estimate, what
    it would cost if the data rose as the standard error says."""

    value: sp.Expr
    prior: float
    expected: float = 0.0


@dataclass(frozen=True)
class _Scored:
    cost: float
    form: Form
    fitted: dict[str, sp.Expr]


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
    return [Form(form, prior, guess) for form, (guess, prior) in best]


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


def identify_unknowns(cand: Candidate, joint: Refit, physics: Refit, ctx: RunContext) -> str:
    """Decide the unknowns of a refit candidate: exact values where the data allow one, else why not.
    ``joint`` refits against the physics and the data (a fixed unknown leaves directions only the data
    see), ``physics`` against the physics alone (the last polish, every unknown held)."""
    problem, exprs = ctx.problem, dict(cand.expressions or {})
    points = ctx.points
    found = sensitivity(problem, exprs, points.refine, points.constraints, points.reductions,
                        ctx.constraint_weight) if exprs else None
    if found is None:
        return ""
    misfit = problem.misfit(exprs)
    if misfit is not None and not misfit.consistent:
        # nothing to name: the formula itself misses the data, whatever the coefficient
        return (f"not decided: the fit misses the observations (relative misfit {misfit.worst:.3g}, "
                f"the stated noise allows {misfit.allowed:.3g})")
    if found.blind:
        cand.expressions = _simplified(_held(exprs, physics, ctx))
        what = f"only {found.combination} is determined" if found.combination else "the data cannot separate them"
        return (f"not identifiable: {', '.join(found.blind)} ({what}; the Jacobian has rank {found.rank} "
                f"of {found.size})")
    notes = []
    for unknown in problem.unknowns:
        value = exprs.get(unknown.name)
        # an exact number too: clean data can give c = 2 before this step, and its estimate, error and
        # odds are stated as on noisy data (a value named without them reads as a guess)
        if not (isinstance(value, sp.Expr) and value.is_number and value.is_real):
            continue
        error = found.errors.get(unknown.name, 0.0)
        chosen, note = _choose(unknown.name, float(value), error, exprs, (joint, physics), ctx)
        exprs = chosen or exprs
        notes.append(note)
    cand.expressions = _simplified(_held(exprs, physics, ctx))
    return "; ".join(notes)


def _simplified(exprs: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """What the refiner's own simplification gives; the refits above skip it, since their trees are
    refit again or only measured."""
    return {name: simplify_expression(expr) for name, expr in exprs.items()}


def _held(exprs: dict[str, sp.Expr], refit: Refit, ctx: RunContext) -> dict[str, sp.Expr]:
    """``exprs`` refit from the physics alone with every unknown held where it is (the joint fit trades a
    little physics for noisy data; an exact form needs the physics at round-off), if the refit keeps
    the data within chance; repeated, up to :data:`POLISHES` times, while it gains a factor of ten."""
    floats = {n: v for n, v in exprs.items() if n in ctx.problem.unknown_names and isinstance(v, sp.Float)}
    held = {n: sp.Rational(float(v)) for n, v in floats.items()}      # exact, so the refit leaves them
    best, phi = exprs, measure_phi(ctx, exprs).phi
    for _ in range(POLISHES):
        status, fitted = refit({**best, **held})
        if status not in ("converged", "fixed") or not fitted:
            break
        fitted = {**fitted, **floats}
        now = measure_phi(ctx, fitted).phi
        if not (now <= phi and misfit_allows(ctx.problem, exprs, fitted, 1)):
            break
        best, phi, gained = fitted, now, now < phi / 10
        if phi <= ROUND_OFF or not gained:
            break
    return best


def _choose(name: str, value: float, error: float, exprs: dict[str, sp.Expr], refits: tuple[Refit, Refit],
            ctx: RunContext) -> tuple[dict[str, sp.Expr] | None, str]:
    """The refit mapping with ``name`` fixed to its best closed form, and the note saying what was decided."""
    joint, physics = refits
    problem = ctx.problem
    variance = _noise_variance(problem, exprs)
    # the rise is measured from the same kind of fit: the physics held, this unknown still free
    baseline = _rss(problem, _held(exprs, physics, ctx))
    # the tolerance relative to the problem's scale, as "exact" is (docs/verify.md, "The tolerance's scale")
    points = ctx.points
    scale = problem_scale(problem, points.refine, points.constraints, points.reductions)
    limit = max(10 * measure_phi(ctx, exprs).phi, ctx.method.exact_tolerance * scale)

    def scored(form: Form, start: dict[str, sp.Expr]) -> _Scored | None:
        status, fitted = joint({**start, name: form.value})
        if status not in ("converged", "fixed") or not fitted:
            return None
        fitted = _held(fitted, physics, ctx)
        if not measure_phi(ctx, fitted).phi <= limit:
            return None
        rise = (_rss(problem, fitted) - baseline) / variance if variance else 0.0
        if rise > WINDOW ** 2:
            return _Scored(math.inf, form, fitted)            # refuted by the data
        return _Scored(form.prior + 0.5 * max(rise, 0.0), form, fitted)

    passed, failed = _score_forms(closed_forms(value, error), scored, exprs)
    estimate = f"estimate {value:.6g} +- {error:.2g}"      # +- 0 on noise-free data: said, not left out
    return decide(name, value, passed, failed, estimate)


def decide(name: str, value: float, passed: list[_Scored], failed: list[Form], estimate: str
           ) -> tuple[dict[str, sp.Expr] | None, str]:
    """The winning fit and the note, from the forms that passed (cheapest first) and those whose
    refit failed: a decision needs :data:`DECISIVE_NATS` over every rival, the failed ones included."""
    if not passed:
        return None, f"{name} = {value:.6g}: no closed form fits ({estimate})"
    best = passed[0]
    # a form the refit could not bring back to the physics is not refuted by the data: if it might
    # have won or come close, naming another would rest on a failed refit
    unsettled = [f for f in failed if f.expected < best.cost + DECISIVE_NATS]
    if unsettled:
        return None, (f"{name}: the data cannot decide between {best.form.value} and {unsettled[0].value} (the "
                      f"refit with {unsettled[0].value} did not return to the physics; {estimate})")
    if len(passed) > 1 and passed[1].cost - best.cost < DECISIVE_NATS:
        return None, f"{name}: the data cannot decide between {best.form.value} and {passed[1].form.value} ({estimate})"
    # the margin is part of the answer: how much likelier the form is than the next that fits
    runner = (f"; next {passed[1].form.value}, odds {math.exp(min(passed[1].cost - best.cost, 50)):.3g} to 1"
              if len(passed) > 1 else "; no other closed form fits")
    return best.fitted, f"{name} = {best.form.value} ({estimate}{runner})"


def _score_forms(forms: list[Form], scored: Callable[[Form, dict[str, sp.Expr]], _Scored | None],
                 exprs: dict[str, sp.Expr]) -> tuple[list[_Scored], list[Form]]:
    """The forms that pass, cheapest first, and those whose refit failed.  In order of prior cost:
    a form's cost is at least its prior, so once two have passed, a form whose prior is above the
    second's cost can change neither the choice nor the margin, and is not refit.  A form that fails
    is tried again from the best passing fit (the refit is local, and that one found the basin);
    one that failed before any passed, once one has."""
    passed: list[_Scored] = []

    def settled(form: Form) -> bool:
        return len(passed) >= 2 and form.prior >= passed[1].cost

    def attempt(form: Form, starts: list[dict[str, sp.Expr]]) -> bool:
        nonlocal passed
        for start in starts:
            found = scored(form, start)
            if found is not None:
                if math.isfinite(found.cost):
                    passed = sorted([*passed, found], key=lambda item: item.cost)
                return True
        return False

    deferred, failed = [], []
    for form in sorted(forms, key=lambda f: f.prior):
        if settled(form):
            break
        if passed and not attempt(form, [exprs, passed[0].fitted]):
            failed.append(form)
        elif not passed and not attempt(form, [exprs]):
            deferred.append(form)
    for form in deferred:
        if not settled(form) and not (passed and attempt(form, [passed[0].fitted])):
            failed.append(form)
    return passed, [f for f in failed if not settled(f)]


def _rss(problem: Problem, exprs: Mapping[str, sp.Expr]) -> float:
    misfit = problem.misfit(exprs)
    obs = problem.observations
    if misfit is None or obs is None:
        return 0.0
    # weighted as the fit weights the fields, so that every residual has the same noise variance
    return float(sum(obs.X.shape[0] * (obs.weight(f) * v) ** 2 for f, v in misfit.absolute.items()))


def _noise_variance(problem: Problem, exprs: Mapping[str, sp.Expr]) -> float:
    """The observations' noise variance estimated from the free fit, floored at round-off of the data."""
    obs = problem.observations
    if obs is None:
        return 0.0
    n = obs.X.shape[0] * len(obs.fields)
    floor = (1e-9 * max(obs.scale(f) for f in obs.fields)) ** 2
    return float(max(_rss(problem, exprs) / max(n - 1, 1), floor))
