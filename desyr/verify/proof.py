"""Proved: the exact form, substituted into the equations and constraints, reduces to exactly 0.

Round-off residuals on fresh points say a formula is right to the last digit there; they
cannot tell the solution from a formula that agrees with it to round-off on the domain
(a polynomial, and ``exp`` of a tiny rate times a few float factors).  A proof can: every
constant is exact (no float), and SymPy reduces the residual of each equation, and of each
constraint on each of its sets, to 0.  Each reduction is bounded in time; one that runs
out, or ends anywhere but 0, leaves the formula unproved, never "not exact".

SymPy is not trusted alone: each residual it reduces to 0 must also vanish numerically at a few
points of its set at 30 and 60 digits (:mod:`desyr.verify.witness`), and each integral it computes
must match a quadrature to 1e-30 of its value (:mod:`desyr.verify.quadrature`); the points of both checks
are drawn from a hash of the config and the exact form (:mod:`desyr.verify.unforeseen`).
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy as sp

from desyr.model.geometry import Part
from desyr.model.problem import Face, Problem
from desyr.model.written import Numbers
from desyr.symbolic.simplify import bounded_simplify
from desyr.symbolic.time_limit import OutOfTime, time_limit
from desyr.verify import witness
from desyr.verify.integrals import integral_difference
from desyr.verify.ranged import on_range
from desyr.verify.realness import real_on_domain
from desyr.verify.removable import analytic_fields, at_zero
from desyr.verify.spans import spans
from desyr.verify.unforeseen import proof_key
from desyr.verify.unforeseen import rng as witness_rng

SECONDS_PER_RESIDUAL = 4.0
SECONDS_PER_PROOF = 20.0
MAX_NODES = 4000


@dataclass(frozen=True)
class Proof:
    proved: bool
    reason: str                                  # one line: why it is, or is not, proved
    steps: tuple[tuple[str, bool], ...] = field(default_factory=tuple)   # (residual, reduced to 0)


def prove(problem: Problem, exprs: Mapping[str, sp.Expr], seed: int | None = None) -> Proof:
    """Try to reduce every residual of ``exprs`` (exact constants only) to 0; ``seed``, the verification's,
    joins the hash that draws the numeric witnesses' points."""
    floats = sorted({str(f) for e in exprs.values() for f in e.atoms(sp.Float)})
    if floats:
        return Proof(False, f"constants not identified ({len(floats)} float constant(s), e.g. {floats[0][:24]})")
    steps: list[tuple[str, bool]] = []
    clock = time.perf_counter()
    key = proof_key(problem, exprs, seed)
    rng = witness_rng(key, "witness")   # points of the sets no formula can be aimed at (desyr.verify.unforeseen)
    inside = witness.interior(problem, rng)
    rooted = analytic_fields(exprs)
    for k, eq in enumerate(problem.equations):
        residual = problem.apply(config_exact(eq.lhs) - config_exact(eq.forcing), exprs)
        steps.append((f"equation {k + 1}", reduces(problem, residual, inside)))
        if not steps[-1][1]:
            return Proof(False, f"equation {k + 1} did not reduce to 0", tuple(steps))
    for con in problem.constraints:
        exact = dataclasses.replace(con, operator=config_exact(con.operator), value=config_exact(con.value))
        if con.kind == "integral":
            name = f"constraint {con.label}"
            difference = integral_difference(problem, exact, exprs, key)
            steps.append((name, isinstance(difference, sp.Expr) and reduces(problem, difference, inside)))
            if not steps[-1][1]:
                why = difference if isinstance(difference, str) else "the integral was not reduced to its value"
                return Proof(False, f"{name}: {why}", tuple(steps))
            continue
        residual = problem.constraint_residual(exact, exprs)
        # where a root's argument vanishes on the set, its derivatives are their limits: the series form
        series = None if rooted is None else at_zero(problem.constraint_residual(exact, rooted))
        for face in con.faces:
            if time.perf_counter() - clock > SECONDS_PER_PROOF:
                return Proof(False, f"out of time ({SECONDS_PER_PROOF:g} s) before every residual was reduced",
                             tuple(steps))
            values = set_values(problem, face)
            name = f"constraint {con.label} on {face.describe()}"
            steps.append((name, values is not None and _on_set(problem, residual, series, face, values, rng)))
            if not steps[-1][1]:
                why = "its set is not at an exact value" if values is None else "did not reduce to 0"
                return Proof(False, f"{name}: {why}", tuple(steps))
    return Proof(True, f"every residual reduces to 0 ({len(steps)} checked)", tuple(steps))


def _on_set(problem: Problem, residual: sp.Expr, series: sp.Expr | None, where: Face | Part,
            values: Mapping[sp.Symbol, sp.Expr], rng: np.random.Generator) -> bool:
    """Whether a constraint's residual reduces to 0 on its set: on the whole face or curve the set lies on
    (an analytic residual that vanishes on an arc vanishes on the circle), else on each exact piece of the
    set (:mod:`desyr.verify.spans`), where an ``abs`` of a quantity of one sign there is that quantity;
    each as the fields are written, then (``series``) with an even function of a root as its series."""
    points = witness.on_set(problem, where, rng)
    forms = [residual] if series is None else [residual, series]
    if any(reduces(problem, at_zero(form.xreplace(dict(values))), points) for form in forms):
        return True
    pieces = spans(problem, where)
    if pieces is None:
        return False
    for piece in pieces:
        inside = witness.in_box(piece.bounds, rng)
        there = [at_zero(form.xreplace(piece.values)) for form in forms]
        # the residual itself, not only its form with abs() resolved, must vanish at the piece's points
        if not any(reduces(problem, ranged, inside) and witness.vanishes(form, inside)
                   for form in there for ranged in on_range(form, piece.bounds)):
            return False
    return True


def reduces(problem: Problem, expr: sp.Expr, points: Sequence[witness.Point]) -> bool:
    """:func:`is_zero`, or, where ``expr`` holds a logarithm and is shown real on the domain
    (:mod:`desyr.verify.realness`), exp(``expr``) reduced to exactly 1."""
    if is_zero(expr, points):
        return True
    if not expr.has(sp.log) or not real_on_domain(problem, expr):
        return False
    return witness.vanishes(expr, points) and is_zero(sp.expand_power_exp(sp.exp(expr)) - 1, points)


def is_zero(expr: sp.Expr, points: Sequence[witness.Point]) -> bool:
    """Whether SymPy reduces ``expr`` to exactly 0 within the time bound (``expand`` included: an
    outside review made it take 153 s on ``((x + y + z)/4)**400``), and ``expr`` vanishes to round-off
    at ``points`` at high precision (a SymPy simplification bug cannot forge the proof)."""
    try:
        with time_limit(2 * SECONDS_PER_RESIDUAL):
            return reduces_to_zero(expr) and witness.vanishes(expr, points)
    except OutOfTime:
        return False


def reduces_to_zero(expr: sp.Expr) -> bool:
    if expr == 0:
        return True
    if sp.count_ops(expr) > MAX_NODES:
        return False
    forms = [f for f in (expr, _rewritten(expr)) if f is not None]
    # cheap first: expansion (of the exponential form too) settles most residuals without simplify
    if any(sp.expand(f) == 0 for f in forms):
        return True
    for form in forms:
        simpler = bounded_simplify(form, max_nodes=MAX_NODES, seconds=SECONDS_PER_RESIDUAL)
        if simpler is not None and simpler == 0:
            return True
    return False


def _rewritten(expr: sp.Expr) -> sp.Expr | None:
    """Trigonometric and hyperbolic functions as exponentials, ``erfc`` as ``1 - erf``: identities simplify
    misses often cancel there (a candidate ``1 - erf(y/2)`` against Stokes' data ``erfc(y/2)``)."""
    try:
        return expr.rewrite(sp.exp).replace(sp.erfc, lambda z: 1 - sp.erf(z))
    except Exception:  # sympy's rewrite can fail on unusual trees
        return None


def config_exact(expr: sp.Expr) -> sp.Expr:
    """The problem's own decimals (``0.1`` written in the config) as the rationals they denote."""
    floats = expr.atoms(sp.Float)
    return expr.xreplace({f: sp.Rational(repr(float(f))) for f in floats}) if floats else expr


def set_values(problem: Problem, where: Face | Part) -> dict[sp.Symbol, sp.Expr] | None:
    """The variables on a set, as exact values (a face) or the parametrisation of its whole patch (a
    boundary part: an analytic residual that vanishes on a piece of a circle vanishes on all of it, so
    the proof asks for the whole circle, in the parameter)."""
    if isinstance(where, Face):
        return _face_values(problem, where)
    assert problem.geometry is not None
    coordinates = where.piece.patch.parametrisation()
    return {problem.vocabulary.var_symbols[v]: c for v, c in zip(problem.geometry.space, coordinates)}


def _face_values(problem: Problem, face: Face) -> dict[sp.Symbol, sp.Expr] | None:
    out = {}
    for name, value in face.fixed:
        exact = exact_number(value, problem.numbers)
        if exact is None:
            return None
        out[problem.vocabulary.var_symbols[name]] = exact
    return out


def exact_number(value: float, numbers: Numbers | None = None) -> sp.Expr | None:
    """The exact number a config wrote for ``value`` where ``numbers`` records it (``x = 1/3``, a point with
    9 decimals); else a short one it meant (0.5 -> 1/2, 3.14159... -> pi), if its float is exact."""
    if numbers and float(value) in numbers:
        return numbers[float(value)]
    short = Fraction(repr(float(value)))
    if short.denominator <= 10**6:
        return sp.Rational(short.numerator, short.denominator)
    for base in (sp.pi, sp.E, sp.sqrt(2), sp.sqrt(3)):
        ratio = Fraction(float(value) / float(base)).limit_denominator(1000)
        guess = sp.Rational(ratio.numerator, ratio.denominator) * base
        if float(guess) == float(value):
            return guess
    return None
