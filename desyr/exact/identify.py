"""Closed forms for the float constants of a selected expression, each one checked by the physics.

Proposals come from continued fractions (``fractions.Fraction.limit_denominator``,
the step sympy's ``nsimplify`` uses for rationals) applied to the constant
divided by a short list of bases: 1, rational powers of pi, e, ln 2 and square
roots of small integers; ``v**2`` rational gives square roots of rationals.
This is ``nsimplify(v, constants=[b])`` for one base at a time, without the
multi-constant integer relations that ``mpmath.identify`` also returns
(``-7*E/5 - 2/15 + ...`` for pi**2/10), which are not closed forms anyone wants.
A proposal must match the float to ``rtol`` and have few digits, so that a
random float rarely has one; the residual check then decides.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy as sp

from desyr.exact.records import Acceptance, Check, ConstantDecision, ResidualPair, safe_check

if TYPE_CHECKING:
    from desyr.model.problem import Problem

#: bases b of the proposals r*b, simplest first (the order breaks ties)
BASES: tuple[sp.Expr, ...] = (
    sp.Integer(1), sp.pi, sp.pi ** 2, 1 / sp.pi, sp.sqrt(2), sp.sqrt(3), sp.E, sp.log(2), sp.sqrt(5),
    sp.sqrt(6), sp.sqrt(7), sp.pi ** 3, 1 / sp.pi ** 2, sp.sqrt(sp.pi), sp.pi ** sp.Rational(3, 2),
    sp.exp(-1), sp.sqrt(10),
    # logs of small integers and their reciprocals: log(r)/log(2) on an annulus is 1/(2*log(2))*log(x**2 + y**2)
    sp.log(3), sp.log(5), sp.log(6), sp.log(7), sp.log(10),
    1 / sp.log(2), 1 / sp.log(3), 1 / sp.log(5), 1 / sp.log(6), 1 / sp.log(7), 1 / sp.log(10),
)
RTOL = 1e-10            # float pre-check: a proposal must match the constant this closely
RATIONAL_DIGITS = 7     # digits of |p| plus digits of q for a plain rational p/q (1/480000 has 7)
BASE_DIGITS = 4         # for r*b with b transcendental or a surd (5*pi, pi**2/10, 3*sqrt(2)/2)
MAX_PROPOSALS = 3       # per constant; bounds the number of residual checks
MAX_CHECKS = 24         # per expression group, over the joint try and the fallbacks
#: a constant at most this in magnitude is proposed as 0 (the verifier's exact tolerance): no short
#: closed form is that small, and a shift of 8.7e-12 left by a refit is 0 wherever the check agrees
ZERO = 1e-8
#: a refit stops about sqrt(eps) from the exact constants along a direction where the residual grows only
#: quadratically (the heat kernel ``exp((c - s/4)/(1 + t))/(b + t)`` is exact to first order on the line
#: c = b - 1): constants left unidentified are then proposed together, as 0 and short rationals this close
LOOSE_ZERO = 1e-6
LOOSE_RTOL = 1e-6
LOOSE_DIGITS = 4


def _digits(r: Fraction) -> int:
    return len(str(abs(r.numerator))) + len(str(r.denominator))


def propose(value: float, rtol: float = RTOL, limit: int = MAX_PROPOSALS,
            bases: Sequence[sp.Expr] = BASES, zero: float = ZERO, digits: int = RATIONAL_DIGITS) -> list[sp.Expr]:
    """Closed forms that equal ``value`` to ``rtol``, fewest digits first (no residual check)."""
    if not math.isfinite(value):
        return []
    if abs(value) <= zero:
        return [sp.Integer(0)]
    found: dict[sp.Expr, tuple[int, int, float]] = {}
    for rank, base in enumerate(bases):
        budget = digits if base == 1 else BASE_DIGITS

        def scaled(r: Fraction, b: sp.Expr = base) -> Any:
            return sp.Rational(r.numerator, r.denominator) * b
        _add(found, value, value / _float(base), scaled, budget, rank, rtol)
    # square roots of rationals: sqrt(3/2), -sqrt(7)/3 ...
    _add(found, value, value * value, lambda r: math.copysign(1, value) * sp.sqrt(sp.Rational(r.numerator, r.denominator)),
         BASE_DIGITS, len(bases), rtol)
    for k in range(-PHASE_TURNS, PHASE_TURNS + 1):
        _phase(found, value, k, len(bases) + 1 + abs(k), rtol)
    ordered = sorted(found.items(), key=lambda kv: kv[1])
    return [expr for expr, _ in ordered[:limit]]


@functools.lru_cache(maxsize=1024)
def _float(base: sp.Expr) -> float:
    """A base's value, once: SymPy's evalf is most of the cost of a proposal over many bases."""
    return float(base)


#: quarter turns a phase may be off the principal branch: sin(w*t - 3*pi/2 - atan(sqrt(7)/21)) is a
#: cosine written as a sine, as a search may write it
PHASE_TURNS = 4


def _phase(found: dict[sp.Expr, tuple[int, int, float]], value: float, k: int, rank: int, rtol: float) -> None:
    """``k*pi/2 + atan(r)`` and ``k*pi/2 + atan(+-sqrt(r))`` near ``value``: cos(w*t - atan(sqrt(7)/21))
    is what a damped oscillation released from rest is written as, and its tangent is the short number."""
    rest = value - k * math.pi / 2
    if not 0 < abs(rest) < math.pi / 2:
        return
    turn = sp.Integer(k) * sp.pi / 2
    tangent = math.tan(rest)
    sign = sp.Integer(1 if rest > 0 else -1)
    _add(found, value, tangent, lambda r: turn + sp.atan(sp.Rational(r.numerator, r.denominator)),
         BASE_DIGITS, rank, rtol)
    _add(found, value, tangent * tangent,
         lambda r: turn + sp.atan(sign * sp.sqrt(sp.Rational(r.numerator, r.denominator))), BASE_DIGITS, rank, rtol)


def _add(found: dict[sp.Expr, tuple[int, int, float]], value: float, target: float,
         build: Callable[[Fraction], Any], budget: int, rank: int, rtol: float) -> None:
    if not math.isfinite(target):      # value/base or value**2 overflowed: no short rational is near it
        return
    best = Fraction(target).limit_denominator(10 ** budget)
    if best == 0 or _digits(best) > budget:
        return
    expr = sp.sympify(build(best))
    if not expr.is_number or expr.has(sp.Float):
        return
    approx = float(expr)
    if abs(approx - value) <= rtol * abs(value) and expr not in found:
        found[expr] = (_digits(best), rank, abs(approx - value))


def float_constants(exprs: Mapping[str, sp.Expr]) -> list[sp.Float]:
    """Distinct Float atoms over all fields, in a stable order (largest magnitude first)."""
    atoms = set()
    for expr in exprs.values():
        atoms |= expr.atoms(sp.Float)
    return sorted(atoms, key=lambda f: (-abs(float(f)), float(f)))


def substitute(exprs: Mapping[str, sp.Expr], mapping: Mapping[sp.Float, sp.Expr]) -> dict[str, sp.Expr]:
    return {f: e.xreplace(dict(mapping)) for f, e in exprs.items()}


def context_bases(exprs: Mapping[str, sp.Expr], bounds: Mapping[sp.Symbol, tuple[float, float]]) -> list[sp.Expr]:
    """Bases the expression itself suggests: for each ``exp(k*v)`` with a rational rate ``k``, its
    values at the ends of ``v``'s interval and ``1/(exp(k*hi) - exp(k*lo))``, the normaliser of
    boundary-layer solutions such as ``(exp(5*x) - 1)/(exp(5) - 1)``."""
    found: list[sp.Expr] = []
    for expr in exprs.values():
        for atom in expr.atoms(sp.exp):
            coeff, var = atom.args[0].as_coeff_Mul()
            if var not in bounds or not coeff.is_number:
                continue
            rate = propose(float(coeff), bases=(sp.Integer(1),), limit=1)
            if not rate or not rate[0].is_Rational:
                continue
            lo, hi = (sp.nsimplify(b, rational=True) for b in bounds[var])
            ends = [sp.exp(rate[0] * lo), sp.exp(rate[0] * hi)]
            found += [b for b in (*ends, 1 / (ends[1] - ends[0])) if b.is_number and b not in found and b != 1]
    return found[:6]


#: a config's own numbers that give bases (:func:`problem_bases`), and those whose ratios give logs
MAX_NUMBERS = 8
MAX_LOG_PAIRS = 5


def problem_bases(problem: Problem) -> list[sp.Expr]:
    """Bases from the config's own numbers, read as written (1.397 is 1397/1000): for each such number
    c, ``c``, ``1/c``, ``pi*c``, ``pi/c``, ``pi**2*c**2``, ``pi**2/c**2``, ``log(c)`` and ``1/log(c)``,
    and the logs of ratios of two (an annulus between radii a and b gives ``1/log(b/a)``).  A base
    that is a short rational multiple of another adds nothing and is left out."""
    numbers = config_numbers(problem)
    found: list[sp.Expr] = []
    for c in numbers:
        found += [c, 1 / c, sp.pi * c, sp.pi / c, (sp.pi * c) ** 2, (sp.pi / c) ** 2, *_logs(c)]
    head = numbers[:MAX_LOG_PAIRS]
    for k, a in enumerate(head):
        found += [b for other in head[k + 1:] for b in _logs(a / other)]
    return _distinct(found)


def config_numbers(problem: Problem) -> list[sp.Expr]:
    """The positive exact numbers a config writes (their magnitudes, 0 and 1 left out): the equations' and
    constraints' first, then the domain's and the shape's; at most :data:`MAX_NUMBERS`."""
    exprs = [e.residual for e in problem.equations] + [x for c in problem.constraints for x in (c.operator, c.value)]
    out: list[sp.Expr] = []
    for value in [r for e in exprs for r in sorted(e.atoms(sp.Rational), key=sp.default_sort_key)] + \
            list(problem.numbers.values()):
        c = abs(value)
        if c.is_number and c.is_positive and c != 1 and c not in out and not c.has(sp.Float):
            out.append(c)
        if len(out) == MAX_NUMBERS:
            break
    return out


def _logs(c: sp.Expr) -> list[sp.Expr]:
    if c == 1 or not c.is_positive:
        return []
    big = c if c > 1 else 1 / c         # log(1/20) is -log(20): the sign is the rational's
    return [sp.log(big), 1 / sp.log(big)]


def _distinct(bases: Sequence[sp.Expr]) -> list[sp.Expr]:
    """``bases`` without those that are a short rational multiple of one before or of :data:`BASES`."""
    kept: list[tuple[sp.Expr, float]] = [(b, float(b)) for b in BASES]
    out: list[sp.Expr] = []
    for base in bases:
        value = float(base)
        if not math.isfinite(value) or value == 0 or any(_short_ratio(value / v) for _, v in kept):
            continue
        kept.append((base, value))
        out.append(base)
    return out


def _short_ratio(ratio: float) -> bool:
    near = Fraction(ratio).limit_denominator(100)
    return near != 0 and abs(near.numerator) <= 100 and abs(float(near) - ratio) <= 1e-12 * abs(ratio)


def identify_constants(exprs: Mapping[str, sp.Expr], check: Check, before: ResidualPair,
                       rule: Acceptance = Acceptance(), extra_bases: Sequence[sp.Expr] = ()
                       ) -> tuple[dict[str, sp.Expr], list[ConstantDecision]]:
    """Replace float constants by checked closed forms: all best proposals jointly first
    (one residual check in the usual case), then one constant at a time."""
    constants = float_constants(exprs)
    bases = tuple(BASES) + tuple(b for b in extra_bases if b not in BASES)
    proposals = {c: propose(float(c), bases=bases) for c in constants}
    decisions: list[ConstantDecision] = []
    for c in constants:
        if not proposals[c]:
            decisions.append(ConstantDecision(float(c), None, False, before, None, "no closed form within the pre-check"))
    tried = [c for c in constants if proposals[c]]
    if not tried:
        return _loosely(dict(exprs), check, before, rule, decisions)
    joint = {c: proposals[c][0] for c in tried}
    after = safe_check(check, substitute(exprs, joint))
    if rule.accepts(before, after):
        decisions += [ConstantDecision(float(c), joint[c], True, before, after, "accepted jointly") for c in tried]
        return _loosely(substitute(exprs, joint), check, before, rule, decisions)
    found, decisions = _one_at_a_time(exprs, tried, proposals, check, before, rule, decisions)
    return _loosely(found, check, before, rule, decisions)


def _loosely(exprs: dict[str, sp.Expr], check: Check, before: ResidualPair, rule: Acceptance,
             decisions: list[ConstantDecision]) -> tuple[dict[str, sp.Expr], list[ConstantDecision]]:
    """The constants still floats, all at once as 0 or short rationals at the refit's precision
    (:data:`LOOSE_RTOL`), kept only where the residual check accepts them together."""
    left = float_constants(exprs)
    joint = {}
    for c in left:
        near = propose(float(c), rtol=LOOSE_RTOL, limit=1, bases=(sp.Integer(1),), zero=LOOSE_ZERO,
                       digits=LOOSE_DIGITS)
        if near:
            joint[c] = near[0]
    if not joint:
        return exprs, decisions
    after = safe_check(check, substitute(exprs, joint))
    if not rule.accepts(before, after):
        return exprs, decisions
    decisions = [d for d in decisions if d.value not in {float(c) for c in joint}]
    decisions += [ConstantDecision(float(c), joint[c], True, before, after, "accepted jointly at the refit's "
                                   "precision") for c in joint]
    return substitute(exprs, joint), decisions


def _one_at_a_time(exprs: Mapping[str, sp.Expr], tried: Sequence[sp.Float],
                   proposals: Mapping[sp.Float, Sequence[sp.Expr]], check: Check, before: ResidualPair,
                   rule: Acceptance, decisions: list[ConstantDecision]
                   ) -> tuple[dict[str, sp.Expr], list[ConstantDecision]]:
    accepted: dict[sp.Float, sp.Expr] = {}
    checks = 1
    for c in tried:
        for form in proposals[c]:
            if checks >= MAX_CHECKS:
                decisions.append(ConstantDecision(float(c), form, False, before, None, "check budget exhausted"))
                break
            checks += 1
            after = safe_check(check, substitute(exprs, {**accepted, c: form}))
            ok = rule.accepts(before, after)
            reason = "accepted alone" if ok else "residuals change beyond round-off"
            decisions.append(ConstantDecision(float(c), form, ok, before, after, reason))
            if ok:
                accepted[c] = form
                break
    return substitute(exprs, accepted), decisions
