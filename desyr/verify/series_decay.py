"""Termwise differentiation: where the series, and the series of each derivative taken, converge uniformly.

Weierstrass' M-test: if ``sup |d^a term_k|`` over a region is at most ``M_k`` with ``sum M_k < oo``, the
series of ``d^a`` converges absolutely and uniformly there, so the sum is differentiable term by term.
The majorant is built from the term's formula, factor by factor (:mod:`desyr.verify.series_bounds`),
as a sum of monomials ``C * prod_i k_i**p_i * exp(R(k))``: ``|sin|, |cos|, |J_nu| <= 1``, ``exp(z)`` at the
supremum of its affine exponent over the region, ``sinh``/``cosh`` by exponentials, a denominator by a
proved lower bound (a polynomial in the index positive on the whole range, ``sinh(a*k) >= c*exp(a*k)``).
A monomial is summable when the exponent decays in every index (``-n**2*pi**2*delta``) or, where it does
not, the powers sum below -1 (a mixed ``1/(m**2 + n**2)`` is split by the weighted AM-GM inequality).

The regions: every compact part of the open domain (each range shrunk by ``delta > 0``), the closed
domain, and near each constraint's set (its fixed variable over its whole range, the others shrunk).
The series itself must converge absolutely on the compact parts, or nothing is proved.  The equation
holds classically where the series of its derivatives converge there, else in the sense of
distributions (each partial sum meets it, with the source's partial expansion); a condition holds
pointwise on its set where its derivatives' series converge up to it, else in the L2 sense of the
expansion theorem (the partial sums meet it with the data's partial expansion).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from desyr.model.problem import Problem
from desyr.verify.series_bounds import DELTA, Mono, Region, summable, upper
from desyr.verify.series_identity import Range
from desyr.verify.series_modes import Piece
from desyr.verify.series_roots import at_the_roots
from desyr.verify.series_sturm import J
from desyr.verify.series_targets import Target, linear_coefficients

#: where "pointwise" is proved: the region ``_near`` keeps every variable along the set off its ends, so the
#: set's edges (a corner t = 0, x = 0 where the data's extension has a kink) are not claimed
RELATIVE_INTERIOR = ("on its set away from the set's edges (each variable along the set strictly inside its "
                     "range: a corner is not claimed)")


class Diverges(Exception):
    """The series does not converge absolutely on the compact parts of the domain (one line)."""


@dataclass(frozen=True)
class Senses:
    closed: bool                                   # uniform on the closed domain (continuous up to the boundary)
    equation: str                                  # "classically" or "in the sense of distributions"
    conditions: tuple[tuple[str, str], ...]        # (target, "pointwise" / "in L2 ..." / ...)

    @property
    def text(self) -> str:
        where = "the closed domain" if self.closed else "every compact part of the open domain"
        said = [f"the series converges absolutely and uniformly on {where}",
                f"the equation holds {self.equation} in the open domain"]
        weak = [f"{name} {sense}" for name, sense in self.conditions if sense != "pointwise"]
        said.append(f"every condition holds pointwise {RELATIVE_INTERIOR}" if not weak
                    else f"the other conditions hold pointwise {RELATIVE_INTERIOR}; " + "; ".join(weak))
        return "; ".join(said)


def senses(problem: Problem, name: str, pieces: Sequence[Piece], targets: Sequence[Target],
           ranges: Mapping[sp.Symbol, Range], active: set[str]) -> Senses:
    """How far termwise differentiation goes, for each target (``active``: the targets where the series'
    coefficients are the data's, rather than 0)."""
    inside = _region(ranges, shrink=set(ranges))
    if not _converges(pieces, [()], inside, problem):
        raise Diverges("the series does not converge absolutely on compact parts of the open domain "
                       "(no summable majorant of its terms)")
    closed = _converges(pieces, [()], _region(ranges, shrink=set()), problem)
    equation = "classically"
    conditions = []
    for target in targets:
        orders = _derivatives(problem, target)
        if target.face is None:
            if not _converges(pieces, orders, inside, problem):
                equation = "in the sense of distributions (its derivatives' series do not converge absolutely)"
            continue
        near = _near(ranges, target)
        if _converges(pieces, orders, near, problem):
            conditions.append((target.name, "pointwise"))
        elif target.name in active:
            conditions.append((target.name, "in the L2 sense of the expansion theorem"))
        else:
            conditions.append((target.name, "for every partial sum (its series does not converge up to the set)"))
    return Senses(closed, equation, tuple(conditions))


def _near(ranges: Mapping[sp.Symbol, Range], target: Target) -> Region:
    """A neighbourhood of the target's set: its fixed variable from the set halfway into the domain, the
    others shrunk by ``delta`` (the set's relative interior)."""
    out = dict(_region(ranges, shrink=set(ranges) - set(target.fixed)))
    for v, value in target.fixed.items():
        if v in ranges and value.is_number:
            lo, hi = ranges[v]
            out[v] = (value - (value - lo) / 2, value + (hi - value) / 2)
    return out


def _region(ranges: Mapping[sp.Symbol, Range], shrink: set[sp.Symbol]) -> Region:
    return {s: ((lo + DELTA, hi - DELTA) if s in shrink else (lo, hi)) for s, (lo, hi) in ranges.items()}


def _derivatives(problem: Problem, target: Target) -> list[tuple[sp.Symbol, ...]]:
    coefficients = linear_coefficients(problem, target.operator) or {}
    return [tuple(problem.vocabulary.var_symbols[v] for v in jet.wrt) for jet in coefficients]


def _converges(pieces: Sequence[Piece], orders: Sequence[tuple[sp.Symbol, ...]], region: Region,
               problem: Problem) -> bool:
    space = {problem.vocabulary.var_symbols[v] for v in problem.geometry.space} if problem.geometry else set()
    for piece in pieces:
        lowers = {i.symbol: i.lower for i in piece.indices}
        for wrt in orders:
            if piece.angular is not None:
                bound = _round_bound(piece, wrt, space, region, lowers)
            else:
                bound = upper(at_the_roots(sp.diff(piece.term, *wrt) if wrt else piece.term), region, lowers)
            if bound is None or not summable(bound, lowers):
                return False
    return True


def _round_bound(piece: Piece, wrt: tuple[sp.Symbol, ...], space: set[sp.Symbol], region: Region,
                 lowers: Mapping[sp.Symbol, int]) -> list[Mono] | None:
    """A disk's term ``C(k, t) * X(r) * Theta``: each derivative in x or y of ``J_m(s*r)*cos(m*theta)`` (or sin) is
    at most ``s`` to its order (Jacobi-Anger: ``J_m(s*r)*exp(i*m*theta)`` is a mean of plane waves
    ``exp(i*s*(x*cos(phi) + y*sin(phi)))``), so the majorant is that of ``d_t C * scale * s**order``."""
    mode = piece.modes[0]
    spatial = sum(1 for v in wrt if v in space)
    others = [v for v in wrt if v not in space]
    frequency = mode.branch.frequency.xreplace({J: mode.index})
    coefficient = sp.diff(piece.coefficient, *others) if others else piece.coefficient
    return upper(coefficient * mode.scale * frequency**spatial, region, lowers)
