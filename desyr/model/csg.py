"""Union, difference and intersection of shapes, and the small language that writes them.

``"box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=0.5)"`` is read with :mod:`ast`
(never evaluated): calls of the primitives with numbers, tuples and lists; ``|`` or ``+`` for
union, ``-`` for difference, ``&`` for intersection.

A CSG boundary is made of pieces of its primitives' patches: a patch of ``A`` stays where it is
outside ``B`` (union, difference) or inside it (intersection), and a patch of ``B`` in ``A - B``
stays where it is inside ``A``, with its normal turned round.  A piece samples its patch and
keeps the points that meet its conditions, so its points are uniform on it.
"""
from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from desyr.model.patches import Patch
from desyr.model.shapes import Annulus, Ball, Box, Cylinder, Disk, Ellipse, Polygon, Shape, ShapeError

#: Monte Carlo points that estimate a piece's share of its patch (for spreading points), and find empty results
_PROBE = 4096


@dataclass(frozen=True)
class Piece:
    """A part of a shape's boundary: a primitive patch, kept where ``conditions`` hold."""

    patch: Patch
    flipped: bool = False
    conditions: tuple[tuple[Shape, bool], ...] = ()     # (shape, True: strictly inside / False: outside)

    @property
    def name(self) -> str:
        return self.patch.name

    def keep(self, P: np.ndarray) -> np.ndarray:
        mask = np.ones(len(P), dtype=bool)
        for shape, inside in self.conditions:
            level = shape.level(P)
            mask &= (level < 0) if inside else (level > 0)
        return mask

    def with_condition(self, shape: Shape, inside: bool, flip: bool = False) -> Piece:
        return Piece(self.patch, self.flipped ^ flip, self.conditions + ((shape, inside),))


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
        return tuple(p.patch for p in self.pieces())

    def pieces(self) -> list[Piece]:
        pa, pb = pieces_of(self.a), pieces_of(self.b)
        if self.op == "union":
            return [p.with_condition(self.b, False) for p in pa] + [p.with_condition(self.a, False) for p in pb]
        if self.op == "intersection":
            return [p.with_condition(self.b, True) for p in pa] + [p.with_condition(self.a, True) for p in pb]
        return [p.with_condition(self.b, False) for p in pa] + [p.with_condition(self.a, True, flip=True) for p in pb]

    def primitives(self) -> list[Shape]:
        return self.a.primitives() + self.b.primitives()

    def quadrature(self, order: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray] | None:
        # A - B with B inside A integrates as (rule of A) - (rule of B); other results have no rule here
        if self.op != "difference" or not _inside(self.b, self.a):
            return None
        ra, rb = self.a.quadrature(order, rng), self.b.quadrature(order, rng)
        if ra is None or rb is None:
            return None
        return np.vstack([ra[0], rb[0]]), np.concatenate([ra[1], -rb[1]])


def pieces_of(shape: Shape) -> list[Piece]:
    if isinstance(shape, Combined):
        return shape.pieces()
    return [Piece(p) for p in shape.patches()]


def _inside(inner: Shape, outer: Shape) -> bool:
    rng = np.random.default_rng(0)
    for piece in pieces_of(inner):
        P = piece.patch.sample(rng, 512)
        if not np.all(outer.level(P[piece.keep(P)]) <= 1e-12):
            return False
    return True


def check_not_empty(shape: Shape) -> None:
    lo, hi = shape.bounding_box()
    if not np.all(lo < hi):
        raise ShapeError(f"the shape {shape.text} is empty")
    rng = np.random.default_rng(0)
    P = lo + rng.random((4 * _PROBE, shape.dim)) * (hi - lo)
    if not np.any(shape.level(P) < 0):
        raise ShapeError(f"the shape {shape.text} is empty (no point of its bounding box lies inside it)")


def piece_share(piece: Piece) -> float:
    """The fraction of its patch that a piece keeps (1 for an unclipped patch)."""
    if not piece.conditions:
        return 1.0
    P = piece.patch.sample(np.random.default_rng(1), _PROBE)
    return float(np.mean(piece.keep(P)))


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
        return float(node.value)
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
    try:
        np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return True
