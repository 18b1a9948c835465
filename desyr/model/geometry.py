"""A problem's shape over its spatial variables, the boundary parts constraints name, and sampling.

Every point set of a run on a shape comes from here, with the caller's generator: uniform
interior points (rejection from the bounding box, exact for any shape), boundary points uniform
by arc length or area on each part, and quadrature nodes for integral constraints.  Time, when
the problem has it, is an interval beside the shape.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from desyr.model.csg import Piece, piece_share, pieces_of
from desyr.model.shapes import Shape

#: rejection rounds before a set is declared too thin to sample
_ROUNDS = 200
#: Gauss order of the quadrature rules of integral constraints (per axis), and time levels
QUADRATURE_ORDER = 24
TIME_LEVELS = 12


class EmptySet(ValueError):
    """A set of points that holds no point (a predicate that selects nothing)."""


@dataclass(frozen=True)
class Geometry:
    """``shape`` spans the spatial variables ``space`` (in the shape's axis order)."""

    shape: Shape
    space: tuple[str, ...]

    @property
    def text(self) -> str:
        return self.shape.text

    def pieces(self) -> list[Piece]:
        return pieces_of(self.shape)

    def part_names(self) -> list[str]:
        names: list[str] = []
        for piece in self.pieces():
            name = self.piece_name(piece)
            if name not in names:
                names.append(name)
        return names

    def piece_name(self, piece: Piece) -> str:
        patch = piece.patch
        if patch.kind == "face":   # a box's face reads like a face of a box domain: "x = -1"
            return f"{self.space[int(patch.data[0])]} = {patch.data[1]:g}"
        return patch.name


@dataclass(frozen=True)
class Part:
    """A constraint set on a shape's boundary: one piece (one normal), maybe cut by a predicate."""

    name: str
    piece: Piece
    condition: sp.Expr | None = None        # keep points where condition > 0
    condition_text: str = ""

    def describe(self) -> str:
        return self.name + (f" where {self.condition_text}" if self.condition_text else "")

    def normal(self, coordinates: Sequence[sp.Symbol]) -> tuple[sp.Expr, ...]:
        n = self.piece.patch.normal(coordinates)
        return tuple(-c for c in n) if self.piece.flipped else n


def sample_shape(shape: Shape, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` points uniform in ``shape`` (rejection from its bounding box)."""
    lo, hi = shape.bounding_box()
    out: list[np.ndarray] = []
    count = 0
    for _ in range(_ROUNDS):
        P = lo + rng.random((max(2 * (n - count), 64), shape.dim)) * (hi - lo)
        keep = P[shape.level(P) < 0]
        out.append(keep)
        count += len(keep)
        if count >= n:
            return np.vstack(out)[:n]
    raise EmptySet(f"the shape {shape.text} is too thin to sample")  # pragma: no cover


def sample_piece(piece: Piece, rng: np.random.Generator, n: int,
                 accept: object = None) -> np.ndarray:
    """``n`` points uniform on ``piece``, kept where ``accept(P)`` (a mask function) holds too."""
    out: list[np.ndarray] = []
    count = 0
    for _ in range(_ROUNDS):
        P = piece.patch.sample(rng, max(2 * (n - count), 64))
        mask = piece.keep(P)
        if accept is not None:
            mask &= accept(P)  # type: ignore[operator]
        out.append(P[mask])
        count += int(mask.sum())
        if count >= n:
            return np.vstack(out)[:n]
    raise EmptySet(f"no point of {piece.name} meets its conditions")


def part_share(part: Part) -> float:
    """The part's measure, for spreading a constraint's points over its parts."""
    return part.piece.patch.measure * piece_share(part.piece)
