"""Union, difference and intersection of shapes (the language that writes them:
:mod:`desyr.model.shape_text`), whether one lies in another or meets it, and their boundaries.

A CSG boundary is made of pieces of its primitives' patches: where a patch has the whole shape
on one side and not on the other, it bounds the shape, with the primitive's normal or the
opposite one (the hole of a difference).  Which parts do is decided from the primitives' sides,
never by a step along the normal (:mod:`desyr.model.membership`), so a slit or a hole of any
size keeps its faces; faces two primitives share are kept once where they bound the shape, left
out where they are a seam inside it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from desyr.model.containment import primitive_inside, primitives_disjoint
from desyr.model.membership import Curve, curve_pieces, point_sides
from desyr.model.patches import Patch
from desyr.model.shapes import Shape, ShapeError
from desyr.model.written import Numbers

#: Monte Carlo points that estimate a 3-D piece's share of its patch and find the pieces of a 3-D CSG
#: boundary (one under about 1e-5 of its patch can go unseen there: in the plane the pieces are exact)
_PROBE = 65536
_PIECE_PROBE = 2**18
#: a 3-D piece that fewer probe points than this land on is too small to sample reliably: refused, not dropped
MIN_HITS = 32
#: a plane piece shorter than this share of its patch is round-off (two cuts that are one), unless it is all there is
_TINY = 1e-9


@dataclass(frozen=True)
class Piece:
    """Where a primitive's patch bounds the whole shape, with one orientation (``flipped``: the opposite
    normal, as for the hole of a difference). In the plane the piece is a list of parameter ``intervals``
    of the patch (:class:`desyr.model.membership.Curve`); in 3-D it is decided point by point."""

    patch: Patch
    flipped: bool = False
    whole: Shape | None = None              # None: a primitive on its own, the whole patch
    index: int = 0                          # the primitive's place in ``whole``
    intervals: tuple[tuple[float, float], ...] | None = None
    share: float = 1.0                      # of the patch's measure

    @property
    def name(self) -> str:
        return self.patch.name

    def keep(self, P: np.ndarray) -> np.ndarray:
        """Which points of the patch lie on the piece."""
        if self.whole is None:
            return np.ones(len(P), dtype=bool)
        if self.intervals is not None:
            t = Curve(self.patch).parameter(P)
            mask = np.zeros(len(P), dtype=bool)
            for a, b in self.intervals:
                mask |= (t >= a) & (t <= b)
            return mask
        normal, opposite = point_sides(self.whole, self.index, self.patch, P)
        return np.asarray(opposite if self.flipped else normal)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` points uniform on the piece."""
        if self.whole is None:
            return self.patch.sample(rng, n)
        if self.intervals is not None:
            return Curve(self.patch).sample(rng, n, self.intervals)
        out, count = [], 0
        for _ in range(50):
            P = self.patch.sample(rng, max(64, int(1.25 * (n - count) / max(self.share, 1e-6))))
            out.append(P[self.keep(P)])
            count += len(out[-1])
            if count >= n:
                return np.vstack(out)[:n]
        raise ShapeError(f"{self.name} is too small to sample")


class Combined(Shape):
    """``a op b`` for op in union, difference, intersection."""

    def __init__(self, op: str, a: Shape, b: Shape) -> None:
        if a.dim != b.dim:
            raise ShapeError(f"cannot combine a {a.dim}-D shape with a {b.dim}-D one")
        self.op, self.a, self.b, self.dim = op, a, b, a.dim
        symbol = {"union": "|", "difference": "-", "intersection": "&"}[op]
        self.text = f"({a.text} {symbol} {b.text})"

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        (la, ha), (lb, hb) = self.a.bounding_box(), self.b.bounding_box()
        if self.op == "union":
            return np.minimum(la, lb), np.maximum(ha, hb)
        if self.op == "intersection":
            return np.maximum(la, lb), np.minimum(ha, hb)
        return la, ha

    def level(self, P: np.ndarray) -> np.ndarray:
        a, b = self.a.level(P), self.b.level(P)
        if self.op == "union":
            return np.asarray(np.minimum(a, b))
        if self.op == "intersection":
            return np.asarray(np.maximum(a, b))
        return np.asarray(np.maximum(a, -b))

    def patches(self) -> tuple[Patch, ...]:
        return tuple(p for prim in self.primitives() for p in prim.patches())

    def primitives(self) -> list[Shape]:
        return self.a.primitives() + self.b.primitives()

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray] | None:
        return quadrature_rule(self, order, rng)


def inside(inner: Shape, outer: Shape, numbers: Numbers | None = None) -> bool | None:
    """True when ``inner`` is proved to lie in the closed ``outer``, False when a point of it is proved
    to lie outside, None when neither is decided: unions, differences and intersections by their parts,
    primitives exactly (:func:`desyr.model.containment.primitive_inside`)."""
    if isinstance(outer, Combined):
        a = inside(inner, outer.a, numbers)
        if outer.op == "intersection":
            b = inside(inner, outer.b, numbers)
            return False if False in (a, b) else True if a is True and b is True else None
        if outer.op == "union":
            return True if a is True or inside(inner, outer.b, numbers) is True else None
        if a is not True:
            return a
        return True if disjoint(inner, outer.b, numbers) is True else None
    if isinstance(inner, Combined):
        if inner.op == "union":
            a, b = inside(inner.a, outer, numbers), inside(inner.b, outer, numbers)
            return False if False in (a, b) else True if a is True and b is True else None
        if inner.op == "intersection":
            either = (inside(inner.a, outer, numbers), inside(inner.b, outer, numbers))
            return True if True in either else None
        return True if inside(inner.a, outer, numbers) is True else None
    return primitive_inside(inner, outer, numbers)


def disjoint(a: Shape, b: Shape, numbers: Numbers | None = None) -> bool | None:
    """True when the interiors of ``a`` and ``b`` are proved not to meet (touching is allowed: it has no
    area), None otherwise: combined shapes by their parts, primitives exactly
    (:func:`desyr.model.containment.primitives_disjoint`)."""
    for one, other in ((a, b), (b, a)):
        if isinstance(other, Combined):
            parts = (disjoint(one, other.a, numbers), disjoint(one, other.b, numbers))
            if other.op == "union":
                return True if parts == (True, True) else None
            if other.op == "intersection":
                return True if True in parts else None
            return True if parts[0] is True or inside(one, other.b, numbers) is True else None
    return primitives_disjoint(a, b, numbers)


@dataclass(frozen=True)
class Signed:
    """A shape as signed primitives for integration (``A - B``: A's, then B's with -1), and why not all
    the containments this rests on were decided exactly ("" when they were: the proof may use it)."""

    parts: tuple[tuple[int, Shape], ...]
    why: str = ""


def signed_parts(shape: Shape, numbers: Numbers | None = None) -> Signed | None:
    """``shape`` as signed primitives, or None (no rule). ``A - B`` is A minus B where B lies inside A;
    ``A & B`` is the one inside the other, ``A | B`` the one holding the other, or both where they do not
    overlap. Each containment is decided exactly (:mod:`desyr.model.containment`); a difference it cannot
    decide falls back on samples, good for numbers but not for a proof (``why`` says so)."""
    if not isinstance(shape, Combined):
        return Signed(((1, shape),))
    a, b = signed_parts(shape.a, numbers), signed_parts(shape.b, numbers)
    if a is None or b is None:
        return None
    if shape.op == "difference":
        nested = inside(shape.b, shape.a, numbers)
        if nested is False or (nested is None and not _inside(shape.b, shape.a)):
            return None
        why = "" if nested else (f"{shape.b.text[:80]} could not be shown exactly to lie inside {shape.a.text[:80]}"
                                 " (a sampled check found it inside)")
        return Signed(a.parts + tuple((-k, p) for k, p in b.parts), _joined(a.why, b.why, why))
    if inside(shape.b, shape.a, numbers) is True:
        return b if shape.op == "intersection" else a
    if inside(shape.a, shape.b, numbers) is True:
        return a if shape.op == "intersection" else b
    if shape.op == "union" and disjoint(shape.a, shape.b, numbers) is True:
        return Signed(a.parts + b.parts, _joined(a.why, b.why))
    return None


def _joined(*reasons: str) -> str:
    return "; ".join(r for r in reasons if r)


def quadrature_rule(shape: Shape, order: int, rng: np.random.Generator,
                    numbers: Numbers | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """Nodes and weights over ``shape``: the signed rules of :func:`signed_parts` (None: no rule)."""
    if not isinstance(shape, Combined):
        return shape.quadrature(order, rng)
    signed = signed_parts(shape, numbers)
    if signed is None:
        return None
    rules = [(k, p.quadrature(order, rng)) for k, p in signed.parts]
    if any(r is None for _, r in rules):
        return None
    return (np.vstack([r[0] for _, r in rules if r is not None]),
            np.concatenate([k * r[1] for k, r in rules if r is not None]))


def pieces_of(shape: Shape) -> list[Piece]:
    """The pieces of ``shape``'s boundary that hold points (see :func:`nonempty_pieces`)."""
    return nonempty_pieces(shape)


def _inside(inner: Shape, outer: Shape) -> bool:
    """Whether ``inner`` lies in ``outer`` on dense samples (its boundary and its interior: a disk that covers
    the hole of an annulus has its boundary in the annulus, not its interior): only where the exact
    decision (:func:`inside`) is not made, and never for a proof."""
    rng = np.random.default_rng(0)
    for piece in pieces_of(inner):
        P = piece.sample(rng, 4096)
        if not np.all(outer.level(P) <= 1e-12):
            return False
    lo, hi = inner.bounding_box()
    P = lo + rng.random((_PROBE, inner.dim)) * (hi - lo)
    return bool(np.all(outer.level(P[inner.level(P) < 0]) < 0))


def check_not_empty(shape: Shape) -> None:
    lo, hi = shape.bounding_box()
    if not np.all(lo < hi):
        if len(shape.primitives()) == 1:        # a primitive has a positive size: doubles lost it
            raise ShapeError(f"the shape {shape.text[:200]} is too small for where it lies: doubles cannot tell its "
                             f"sides apart so far from the origin; move it nearer to 0")
        raise ShapeError(f"the shape {shape.text[:200]} is empty")
    known = shape.fill()
    if known is not None and known > 0:
        fill = known                    # a formula's share: no sample (a polygon of 1000 edges took seconds)
    else:
        rng = np.random.default_rng(0)
        P = lo + rng.random((_PROBE, shape.dim)) * (hi - lo)
        fill = float(np.mean(shape.level(P) < 0))
    if fill == 0:
        raise ShapeError(f"the shape {shape.text[:200]} is empty (no point of its bounding box lies inside it)")
    if fill < MIN_FILL:
        raise ShapeError(f"the shape {shape.text[:200]} fills only {fill:.1e} of its bounding box, too little "
                         f"to sample (at least {MIN_FILL:g})")


def piece_share(piece: Piece) -> float:
    """The fraction of its patch that a piece keeps (1 for a primitive's own patch)."""
    return piece.share


def nonempty_pieces(shape: Shape, numbers: tuple[tuple[float, Any], ...] = ()) -> list[Piece]:
    """The pieces of ``shape``'s boundary that hold points, each patch carrying the exact ``numbers`` the
    config wrote (faces that are one are decided on them); a piece too small to sample reliably (a
    sliver of a face) is refused with a :class:`ShapeError`, never dropped unseen."""
    if not isinstance(shape, Combined):
        return [Piece(replace(p, numbers=numbers)) for p in shape.patches()]
    _check_surface_work(shape)
    out = []
    for k, prim in enumerate(shape.primitives()):
        for patch in prim.patches():
            patch = replace(patch, numbers=numbers)
            if patch.dim == 2:
                out += _plane_pieces(shape, k, patch)
            else:
                out += _sampled_pieces(shape, k, patch)
    return out


def surface_work(shape: Combined) -> int:
    """How many (surface patch, primitive) pairs the pieces of a 3-D CSG boundary are decided on: each patch
    is probed at :data:`_PIECE_PROBE` points against every primitive whose box meets its own primitive's."""
    prims = shape.primitives()
    boxes = [p.bounding_box() for p in prims]
    work = 0
    for k, prim in enumerate(prims):
        patches = [p for p in prim.patches() if p.dim != 2]
        if patches:
            (lo, hi) = boxes[k]
            near = sum(bool(np.all(a <= hi) and np.all(lo <= b)) for a, b in boxes)
            work += len(patches) * near
    return work


def _check_surface_work(shape: Combined) -> None:
    """Refuse, in one line, a 3-D CSG shape whose boundary would take minutes to decide (a union of 64
    overlapping boxes took half an hour), before any of that work."""
    work = surface_work(shape)
    if work > MAX_SURFACE_WORK:
        raise ShapeError(f"the shape's boundary is too intricate to decide: its {sum(len(p.patches()) for p in shape.primitives())} "
                         f"surface patches meet {work} primitives' boxes between them, at most {MAX_SURFACE_WORK} in 3-D "
                         f"(about 10 overlapping boxes); use fewer primitives")


def _plane_pieces(shape: Combined, k: int, patch: Patch) -> list[Piece]:
    curve = Curve(patch)
    total = curve.length(*curve.range)
    out = []
    for flipped, runs in zip((False, True), curve_pieces(shape, k, patch)):
        lengths = [curve.length(a, b) / total for a, b in runs]
        if runs and max(lengths) < _TINY:
            raise ShapeError(f"a part of the boundary of {shape.text[:120]} is too small to handle "
                             f"({sum(lengths):.1e} of {patch.name}): make the shapes overlap by more, or share whole faces")
        kept = tuple(r for r, share in zip(runs, lengths) if share >= _TINY)
        if kept:
            out.append(Piece(patch, flipped, shape, k, kept, float(sum(lengths))))
    return out


def _sampled_pieces(shape: Combined, k: int, patch: Patch) -> list[Piece]:
    P = patch.sample(np.random.default_rng(1), _PIECE_PROBE if patch.dim > 1 else 1)
    out = []
    for flipped, mask in zip((False, True), point_sides(shape, k, patch, P)):
        share = float(np.mean(mask))
        if share == 0:
            continue
        if share * len(P) < min(MIN_HITS, len(P)):
            raise ShapeError(f"a part of the boundary of {shape.text[:120]} is too small to sample "
                             f"reliably ({share:.1e} of {patch.name}): make the shapes overlap by more, "
                             f"or share whole faces")
        out.append(Piece(patch, flipped, shape, k, None, share))
    return out


#: (surface patch, primitive) pairs a 3-D CSG boundary may take to decide (:func:`surface_work`): each is
#: 2**18 probe points, a second or so on two cores
MAX_SURFACE_WORK = 256
#: a shape must fill at least this share of its bounding box, or rejection sampling would crawl
MIN_FILL = 1e-4
