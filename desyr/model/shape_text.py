"""The small language that writes shapes: ``"box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=0.5)"``
is read with :mod:`ast` (never evaluated): calls of the primitives with numbers, tuples and lists; ``|`` or
``+`` for union, ``-`` for difference, ``&`` for intersection (:class:`desyr.model.csg.Combined`). The table
form of ``[domain]`` builds one primitive from keyword arguments (:func:`build_shape`).
"""
from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from desyr.model.csg import Combined, check_not_empty
from desyr.model.shapes import Annulus, Ball, Box, Cylinder, Disk, Ellipse, Polygon, Shape, ShapeError

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
    return shape_number(node)


def shape_number(node: ast.AST) -> float:
    """The value of a number the shape language writes: a literal, ``pi``, a sign, ``+ - * /`` of numbers."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        try:
            return float(node.value)
        except OverflowError:          # an integer of 400 digits
            raise ShapeError(f"the number {str(node.value)[:20]}... is too large") from None
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = shape_number(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = shape_number(node.left), shape_number(node.right)
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
