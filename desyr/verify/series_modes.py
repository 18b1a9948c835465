"""Which eigenfunctions a series' terms are: each piece's factor per direction, matched to the family.

A piece of a sum is a product ``C * X_1(v_1) * ... * X_d(v_d)``: one factor per *expansion
direction* (a spatial variable whose two end conditions every term meets exactly) and a coefficient
``C`` free of those variables.  Each factor must be an eigenfunction of the direction's family
(:mod:`desyr.verify.series_sturm`): it solves ``X'' + beta*X' + mu*X = 0`` for a ``mu`` free of the
variable, its frequency gives the canonical index ``J = p*k + q`` (integers ``p >= 0``, ``q``) of a
branch, and it is proportional to that branch's eigenfunction (their Wronskian is 0).  So a piece
covers the indices ``{p*k + q : k >= lower}`` of one branch per direction.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from math import gcd

import sympy as sp

from desyr.verify.series_form import Index, Series
from desyr.verify.series_identity import Range, zero_for_all
from desyr.verify.series_sturm import Branch, Family


class NotAnExpansion(Exception):
    """A piece is not a product of the families' eigenfunctions (one line)."""


@dataclass(frozen=True)
class Mode:
    """One direction of a piece: its factor is ``scale * branch.at(index)``."""

    family: Family
    branch: Branch
    index: sp.Expr             # the canonical index, p*k + q in the piece's index k (or a constant)
    eigenvalue: sp.Expr        # mu: factor'' + beta*factor' + mu*factor = 0
    factor: sp.Expr
    scale: sp.Expr

    @property
    def variable(self) -> sp.Symbol:
        return self.family.variable


@dataclass(frozen=True)
class Piece:
    term: sp.Expr
    indices: tuple[Index, ...]
    modes: tuple[Mode, ...]
    coefficient: sp.Expr        # term / product of the factors: free of the expansion directions
    #: on a disk: the angular mode (m, "cos" or "sin") the term is made of
    angular: tuple[int, str] | None = None

    @property
    def variables(self) -> tuple[sp.Symbol, ...]:
        return tuple(m.variable for m in self.modes)

    @property
    def key(self) -> tuple[tuple[sp.Symbol, str], ...]:
        """Its family and branches (which canonical eigenfunctions it is made of)."""
        return tuple((m.variable, m.branch.label) for m in self.modes)


@dataclass(frozen=True)
class Progression:
    """Canonical indices ``{step*k + offset : k >= start}`` (``step = 0``: the one index ``offset``)."""

    step: int
    offset: int
    start: int

    def first(self) -> int:
        return self.step * self.start + self.offset

    def contains(self, value: int) -> bool:
        if self.step == 0:
            return value == self.offset
        return value >= self.first() and (value - self.offset) % self.step == 0

    def at(self, k: sp.Expr) -> sp.Expr:
        return self.step * k + self.offset


def progression(index: sp.Expr, indices: Sequence[Index]) -> tuple[Progression, Index | None]:
    """``index = p*k + q`` as a progression over the piece's index ``k`` (or a single value)."""
    used = [i for i in indices if index.has(i.symbol)]
    if not used:
        if not index.is_Integer:
            raise NotAnExpansion(f"a canonical index {index} is not an integer")
        return Progression(0, int(index), 0), None
    if len(used) > 1:
        raise NotAnExpansion("one eigenfunction depends on two indices")
    k = used[0]
    poly = sp.Poly(index, k.symbol) if index.is_polynomial(k.symbol) else None
    if poly is None or poly.degree() != 1 or not all(c.is_Integer for c in poly.all_coeffs()):
        raise NotAnExpansion(f"the canonical index {index} is not p*{k.symbol} + q with integers p, q")
    p, q = (int(c) for c in poly.all_coeffs())
    if p < 1:
        raise NotAnExpansion(f"the canonical index {index} decreases with {k.symbol}")
    return Progression(p, q, k.lower), k


Meets = Callable[[sp.Expr, sp.Symbol], bool]


def pieces(series: Series, directions: Mapping[sp.Symbol, Family], ranges: Mapping[sp.Symbol, Range],
           annihilated: Meets, key: bytes) -> list[Piece]:
    """The pieces of ``series``: the whole term when it is one product, else its expanded terms grouped by
    the eigenfunctions they are made of.  ``annihilated(term, v)``: whether a term meets the conditions at
    both ends of the direction ``v``."""
    whole = _piece(series.term, series.indices, directions, ranges, annihilated, key)
    if whole is not None:
        return [whole]
    found: dict[tuple[object, ...], sp.Expr] = {}
    for part in sp.Add.make_args(sp.expand(series.term)):
        piece = _piece(part, series.indices, directions, ranges, annihilated, key)
        if piece is None:
            raise NotAnExpansion(f"a term of the series, {sp.sstr(part)[:80]}, is not a product of eigenfunctions "
                                 "that meet the homogeneous conditions")
        label = (piece.key, tuple(m.index for m in piece.modes))
        found[label] = found.get(label, sp.Integer(0)) + part
    out = []
    for term in found.values():
        piece = _piece(term, series.indices, directions, ranges, annihilated, key)
        if piece is None:
            raise NotAnExpansion("the terms of the series do not group into products of eigenfunctions")
        out.append(piece)
    return out


def _piece(term: sp.Expr, indices: tuple[Index, ...], directions: Mapping[sp.Symbol, Family],
           ranges: Mapping[sp.Symbol, Range], annihilated: Meets, key: bytes) -> Piece | None:
    chosen = [v for v in directions if annihilated(term, v)]
    if not chosen:
        return None
    parts = sp.separatevars(term, symbols=chosen, dict=True)
    if not isinstance(parts, dict):
        return None
    modes = []
    for v in chosen:
        mode = _mode(parts[v], directions[v], indices, ranges, key)
        if mode is None:
            return None
        modes.append(mode)
    used = [i.symbol for m in modes for i in indices if m.index.has(i.symbol)]
    if sorted(used, key=str) != sorted((i.symbol for i in indices), key=str):
        return None         # an index no eigenfunction follows repeats one eigenvalue forever (or two share one)
    coefficient = parts["coeff"]
    if coefficient.free_symbols & set(chosen):
        return None
    return Piece(term, indices, tuple(modes), coefficient)


def _mode(factor: sp.Expr, fam: Family, indices: Sequence[Index], ranges: Mapping[sp.Symbol, Range],
          key: bytes) -> Mode | None:
    v = fam.variable
    mu = sp.cancel(-(sp.diff(factor, v, 2) + fam.beta * sp.diff(factor, v)) / factor)
    if mu.has(v):
        mu = sp.simplify(mu)
        if mu.has(v):
            return None
    square = sp.expand(mu - fam.beta**2 / 4)
    for branch in fam.branches:
        if branch.single:
            index: sp.Expr = sp.Integer(branch.first)
            if sp.expand(square - branch.square) != 0:
                continue
        else:
            frequency = sp.sqrt(sp.factor(square))
            index = fam.index(branch, frequency)
            if index is None or not index.is_polynomial(*[i.symbol for i in indices]):
                continue
        canonical = branch.at(index)
        spans = {**{v: ranges[v]}, **{s: r for s, r in ranges.items() if factor.has(s)}}
        wronskian = factor * sp.diff(canonical, v) - sp.diff(factor, v) * canonical
        lowers = {i.symbol: i.lower for i in indices if index.has(i.symbol) or factor.has(i.symbol)}
        if not zero_for_all(sp.expand(wronskian), spans, lowers, key, f"wronskian {v}"):
            continue
        scale = sp.simplify(factor / canonical)
        if scale.has(v) or scale == 0:
            continue
        return Mode(fam, branch, index, mu, factor, scale)
    return None


def lcm(values: Sequence[int]) -> int:
    out = 1
    for v in values:
        out = out * v // gcd(out, v)
    return out
