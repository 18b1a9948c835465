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

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import sympy as sp

from desyr.exact.records import Acceptance, Check, ConstantDecision, ResidualPair, safe_check

#: bases b of the proposals r*b, simplest first (the order breaks ties)
BASES: tuple[sp.Expr, ...] = (
    sp.Integer(1), sp.pi, sp.pi ** 2, 1 / sp.pi, sp.sqrt(2), sp.sqrt(3), sp.E, sp.log(2), sp.sqrt(5),
    sp.sqrt(6), sp.sqrt(7), sp.pi ** 3, 1 / sp.pi ** 2, sp.sqrt(sp.pi), sp.pi ** sp.Rational(3, 2),
    sp.exp(-1), sp.sqrt(10),
)
RTOL = 1e-10            # float pre-check: a proposal must match the constant this closely
RATIONAL_DIGITS = 7     # digits of |p| plus digits of q for a plain rational p/q (1/480000 has 7)
BASE_DIGITS = 4         # for r*b with b transcendental or a surd (5*pi, pi**2/10, 3*sqrt(2)/2)
MAX_PROPOSALS = 3       # per constant; bounds the number of residual checks
MAX_CHECKS = 24         # per expression group, over the joint try and the fallbacks


def _digits(r: Fraction) -> int:
    return len(str(abs(r.numerator))) + len(str(r.denominator))


def propose(value: float, rtol: float = RTOL, limit: int = MAX_PROPOSALS,
            bases: Sequence[sp.Expr] = BASES) -> list[sp.Expr]:
    """Closed forms that equal ``value`` to ``rtol``, fewest digits first (no residual check)."""
    if not math.isfinite(value):
        return []
    if value == 0.0:
        return [sp.Integer(0)]
    found: dict[sp.Expr, tuple[int, int, float]] = {}
    for rank, base in enumerate(bases):
        budget = RATIONAL_DIGITS if base == 1 else BASE_DIGITS

        def scaled(r: Fraction, b: sp.Expr = base) -> Any:
            return sp.Rational(r.numerator, r.denominator) * b
        _add(found, value, value / float(base), scaled, budget, rank, rtol)
    # square roots of rationals: sqrt(3/2), -sqrt(7)/3 ...
    _add(found, value, value * value, lambda r: math.copysign(1, value) * sp.sqrt(sp.Rational(r.numerator, r.denominator)),
         BASE_DIGITS, len(bases), rtol)
    for k in range(-PHASE_TURNS, PHASE_TURNS + 1):
        _phase(found, value, k, len(bases) + 1 + abs(k), rtol)
    ordered = sorted(found.items(), key=lambda kv: kv[1])
    return [expr for expr, _ in ordered[:limit]]


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
        return dict(exprs), decisions
    joint = {c: proposals[c][0] for c in tried}
    after = safe_check(check, substitute(exprs, joint))
    if rule.accepts(before, after):
        decisions += [ConstantDecision(float(c), joint[c], True, before, after, "accepted jointly") for c in tried]
        return substitute(exprs, joint), decisions
    return _one_at_a_time(exprs, tried, proposals, check, before, rule, decisions)


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
