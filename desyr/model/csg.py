"""Union, difference and intersection of shapes, and the small language that writes them.

``"box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=0.5)"`` is read with :mod:`ast`
(never evaluated): calls of the primitives with numbers, tuples and lists; ``|`` or ``+`` for
union, ``-`` for difference, ``&`` for intersection.

A CSG boundary is made of pieces of its primitives' patches: where a patch has the whole shape
on one side and not on the other, it bounds the shape, with the primitive's normal or the
opposite one (the hole of a difference).  Which parts do is decided from the primitives' sides,
never by a step along the normal (:mod:`desyr.model.membership`), so a slit or a hole of any
size keeps its faces; faces two primitives share are kept once where they bound the shape, left
out where they are a seam inside it.
"""
from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from desyr.model.containment import disjoint, inside
from desyr.model.membership import Curve, curve_pieces, point_sides
from desyr.model.patches import Patch
from desyr.model.shapes import Annulus, Ball, Box, Cylinder, Disk, Ellipse, Polygon, Shape, ShapeError
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
    decision (:func:`desyr.model.containment.inside`) is not made, and never for a proof."""
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


# --------------------------------------------------------------------------- the language
_BUILDERS: dict[str, tuple[Callable[..., Shape], tuple[str, ...]]] = {
    "disk": (Disk, ("center", "radius")),
    "annulus": (Annulus, ("center", "inner", "outer")),
    "ellipse": (Ellipse, ("center", "semi_axes")),
    "polygon": (Polygon, ("vertices",)),
    "ball": (Ball, ("center", "radius")),
    "cylinder": (Cylinder, ("center", "radius", "z")),
    "box": (Box, ("lo", "hi")),
}
SHAPES = tuple(_BUILDERS)
_OPS = {ast.Sub: "difference", ast.BitOr: "union", ast.Add: "union", ast.BitAnd: "intersection"}
MAX_SHAPE_TEXT = 20_000
#: primitives in one shape: each piece of the boundary is tested against the whole shape
MAX_PRIMITIVES = 64
MAX_COORDINATE = 1e100
#: (surface patch, primitive) pairs a 3-D CSG boundary may take to decide (:func:`surface_work`): each is
#: 2**18 probe points, a second or so on two cores
MAX_SURFACE_WORK = 256
#: a shape must fill at least this share of its bounding box, or rejection sampling would crawl
MIN_FILL = 1e-4


def parse_shape(text: str) -> Shape:
    """A shape from its text; raises :class:`ShapeError` with one line on anything else."""
    if not isinstance(text, str) or not text.strip():
        raise ShapeError("shape must be text such as \"disk(center=(0, 0), radius=1)\"")
    if len(text) > MAX_SHAPE_TEXT:
        raise ShapeError(f"shape text is {len(text)} characters long; at most {MAX_SHAPE_TEXT}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ShapeError(f"cannot read shape {text!r:.80}; write e.g. \"box(lo=(-1, -1), hi=(1, 1)) - "
                         "disk(center=(0, 0), radius=0.5)\"") from None
    calls = sum(isinstance(n, ast.Call) for n in ast.walk(tree))
    if calls > MAX_PRIMITIVES:
        raise ShapeError(f"the shape has {calls} primitives; at most {MAX_PRIMITIVES}")
    shape = _node(tree.body)
    check_not_empty(shape)
    return shape


def build_shape(kind: str, arguments: dict[str, Any]) -> Shape:
    """A primitive from keyword arguments (the table form of ``[domain]``)."""
    if kind not in _BUILDERS:
        raise ShapeError(f"unknown shape {kind!r:.40}; known: {', '.join(SHAPES)}")
    builder, names = _BUILDERS[kind]
    unknown = sorted(set(arguments) - set(names))
    missing = [n for n in names if n not in arguments]
    if unknown or missing:
        raise ShapeError(f"{kind} takes {', '.join(names)}"
                         + (f"; unknown: {', '.join(map(str, unknown))}" if unknown else "")
                         + (f"; missing: {', '.join(missing)}" if missing else ""))
    values = {n: _checked(kind, n, arguments[n]) for n in names}
    shape = builder(**values)
    check_not_empty(shape)
    return shape


def _node(node: ast.AST) -> Shape:
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return Combined(_OPS[type(node.op)], _node(node.left), _node(node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _BUILDERS:
        kind = node.func.id
        names = _BUILDERS[kind][1]
        if len(node.args) > len(names):
            raise ShapeError(f"{kind} takes {', '.join(names)}")
        arguments = {n: _literal(a) for n, a in zip(names, node.args)}
        for kw in node.keywords:
            if kw.arg is None or kw.arg in arguments:
                raise ShapeError(f"{kind}: argument {kw.arg or '**'} given twice or unnamed")
            arguments[kw.arg] = _literal(kw.value)
        return build_shape(kind, arguments)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        raise ShapeError(f"unknown shape {node.func.id!r:.40}; known: {', '.join(SHAPES)}")
    raise ShapeError(f"a shape is a call such as disk(...) or shapes joined by |, - and &; "
                     f"got {ast.dump(node)[:60]}")


def _literal(node: ast.AST) -> Any:
    if isinstance(node, (ast.Tuple, ast.List)):
        return [_literal(e) for e in node.elts]
    return _number(node)


def _number(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        try:
            return float(node.value)
        except OverflowError:          # an integer of 400 digits
            raise ShapeError(f"the number {str(node.value)[:20]}... is too large") from None
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _number(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _number(node.left), _number(node.right)
        if isinstance(node.op, ast.Div):
            if b == 0:
                raise ShapeError("division by zero in a shape's number")
            return a / b
        return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
    raise ShapeError(f"expected a number, got {ast.dump(node)[:50]}")


def _checked(kind: str, name: str, value: Any) -> Any:
    """Finite numbers of the right form: the size of a center, the sign of a radius."""
    flat = np.asarray(value, dtype=float) if _numeric(value) else None
    if flat is None or not np.all(np.isfinite(flat)):
        raise ShapeError(f"{kind}.{name} must be finite numbers, got {value!r:.60}")
    if np.any(np.abs(flat) > MAX_COORDINATE):      # squared in the level functions, they must stay finite
        raise ShapeError(f"{kind}.{name}: numbers are at most {MAX_COORDINATE:g} in magnitude, got {value!r:.60}")
    if flat.size == 0:
        raise ShapeError(f"{kind}.{name} is empty")
    if name in ("radius", "inner", "outer") and not (flat.ndim == 0 and flat > 0):
        raise ShapeError(f"{kind}.{name} must be a positive number, got {value!r:.40}")
    if name == "semi_axes" and not (flat.shape == (2,) and np.all(flat > 0)):
        raise ShapeError(f"{kind}.semi_axes must be two positive numbers, got {value!r:.40}")
    if name == "center" and flat.shape != ((3,) if kind == "ball" else (2,)):
        raise ShapeError(f"{kind}.center must have {3 if kind == 'ball' else 2} coordinates, got {value!r:.40}")
    if name == "vertices" and (flat.ndim != 2 or flat.shape[1] != 2 or len(flat) > 1000):
        raise ShapeError("polygon.vertices must be a list of at most 1000 points [x, y]")
    return flat.tolist() if flat.ndim else float(flat)


def _numeric(value: Any) -> bool:
    if isinstance(value, bool) or (isinstance(value, list) and any(isinstance(v, bool) for v in np.ravel(
            np.asarray(value, dtype=object)))):
        return False
    try:
        np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return True
