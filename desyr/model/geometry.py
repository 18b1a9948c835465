"""A problem's shape over its spatial variables, the boundary parts constraints name, and sampling.

Every point set of a run on a shape comes from here, with the caller's generator: uniform
interior points (rejection from the bounding box, exact for any shape), boundary points uniform
by arc length or area on each part, and quadrature nodes for integral constraints.  Time, when
the problem has it, is an interval beside the shape.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import sympy as sp

from desyr.model.csg import Piece, nonempty_pieces, piece_share
from desyr.model.patches import number_text
from desyr.model.shapes import Annulus, Ball, Cylinder, Disk, Shape

#: rejection rounds, and the most points one round draws, before a set is declared too thin to sample
_ROUNDS = 50
_BATCH = 2_000_000


class EmptySet(ValueError):
    """A set of points that holds no point (a predicate that selects nothing)."""


#: primitives with a centre a radius is measured from
ROUND = (Disk, Annulus, Ball, Cylinder)


@dataclass(frozen=True)
class Geometry:
    """``shape`` spans the spatial variables ``space`` (in the shape's axis order)."""

    shape: Shape
    space: tuple[str, ...]
    #: the exact values the shape's text wrote (``radius = 1/3``), as (float, exact) pairs: the proof's
    numbers: tuple[tuple[float, sp.Expr], ...] = field(default=(), compare=False)

    @property
    def text(self) -> str:
        return self.shape.text

    @cached_property
    def _pieces(self) -> tuple[Piece, ...]:
        return tuple(nonempty_pieces(self.shape, self.numbers))

    def pieces(self) -> list[Piece]:
        """The pieces of the boundary that hold points (raises :class:`ShapeError` for a sliver)."""
        return list(self._pieces)

    def part_names(self) -> list[str]:
        names: list[str] = []
        for piece in self.pieces():
            name = self.piece_name(piece)
            if name not in names:
                names.append(name)
        return names

    def centres(self) -> tuple[dict[str, float], ...]:
        """The centre of each round primitive (disk, annulus, ball; a cylinder's across its axis), as
        spatial variable -> coordinate, once each: where a searcher measures a radius from."""
        out: list[dict[str, float]] = []
        for prim in self.shape.primitives():
            if isinstance(prim, ROUND):
                centre = dict(zip(self.space, (float(c) for c in prim.c)))
                out += [centre] if centre not in out else []
        return tuple(out)

    def piece_name(self, piece: Piece) -> str:
        patch = piece.patch
        if patch.kind == "face":   # a box's face reads like a face of a box domain: "x = -1"
            return f"{self.space[int(patch.data[0])]} = {number_text(patch.data[1])}"
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


def rejection(draw: Callable[[int], np.ndarray], accept: Callable[[np.ndarray], np.ndarray], n: int,
              what: str) -> np.ndarray:
    """``n`` of the points ``draw(m)`` gives that ``accept`` keeps, in draw order. Each batch is sized by
    the acceptance seen so far, so a thin shape costs more points, not more rounds."""
    out: list[np.ndarray] = []
    count = drawn = 0
    for _ in range(_ROUNDS):
        rate = count / drawn if drawn else 0.5
        m = int(min(_BATCH, max(64, 1.25 * (n - count) / max(rate, 1e-6))))
        P = draw(m)
        keep = P[accept(P)]
        out.append(keep)
        count, drawn = count + len(keep), drawn + m
        if count >= n:
            return np.vstack(out)[:n]
    raise EmptySet(f"{what} is too small to sample ({count} of {drawn} drawn points)")


def sample_shape(shape: Shape, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` points uniform in ``shape`` (rejection from its bounding box)."""
    lo, hi = shape.bounding_box()
    return rejection(lambda m: lo + rng.random((m, shape.dim)) * (hi - lo),
                     lambda P: shape.level(P) < 0, n, f"the shape {shape.text[:80]}")


def sample_piece(piece: Piece, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` points uniform on ``piece``."""
    return piece.sample(rng, n)


def part_share(part: Part) -> float:
    """The part's measure, for spreading a constraint's points over its parts."""
    return part.piece.patch.measure * piece_share(part.piece)
