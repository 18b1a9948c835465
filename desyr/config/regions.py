"""Reading where things hold: the shape of ``[domain]``, and the sets constraints name.

A set is a face of the box (``"x = 0"``, ``"initial"``, a point ``"x = 0, y = 1"``) or, on a
shape, a named part of its boundary (``"circle"``, ``"inner"``, ``"edge 2"``, ``"boundary"``),
optionally cut by a predicate (``"boundary where x**2 + y**2 < 0.3"``).  ``u_n`` in an operator
is the outward normal derivative: it is written out with each set's own normal, so the sets of
such a constraint become one constraint each.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import sympy as sp

from desyr.errors import ConfigError
from desyr.model.geometry import Geometry, Part
from desyr.model.names import check_name
from desyr.model.problem import Face, Problem
from desyr.model.sets import PROBE, face_share, predicate_share, predicate_touches
from desyr.model.shape_text import SHAPES, build_shape, parse_shape, shape_number
from desyr.model.shapes import ShapeError
from desyr.model.written import NumberClash, as_written, exact_number, note, shape_numbers
from desyr.symbolic.expressions import ExpressionError, Jet, Vocabulary, parse_expression

#: the keys of ``[domain]`` that describe a shape rather than name a variable
SHAPE_KEYS = {"shape", "space", "center", "radius", "inner", "outer", "semi_axes", "vertices", "lo", "hi"}
#: the least share of a boundary part that a predicate may keep (a smaller one is refused, not dropped)
MIN_SHARE = 1e-3
_DEFAULT_SPACE = {1: ["x"], 2: ["x", "y"], 3: ["x", "y", "z"]}
#: the symbols ``u_n`` is written with before each set puts in its normal, one per spatial variable
#: (grown on demand: a box may have any number of variables)
NORMAL: list[sp.Dummy] = []


def _normal_symbols(n: int) -> list[sp.Dummy]:
    NORMAL.extend(sp.Dummy(f"normal{i}", real=True) for i in range(len(NORMAL), n))
    return NORMAL[:n]


# ------------------------------------------------------------------------------ the shape
def read_geometry(domain: Mapping[str, Any], source: str) -> tuple[Geometry, dict[str, Any]] | None:
    """The shape of ``[domain]`` and the table's other entries (the time interval), or None for a box."""
    if "shape" not in domain:
        return None
    text = domain["shape"]
    rest = {k: v for k, v in domain.items() if k not in SHAPE_KEYS}
    try:
        if isinstance(text, str) and text.strip() in SHAPES:
            kind = text.strip()
            arguments = {k: v for k, v in domain.items() if k in SHAPE_KEYS - {"shape", "space"}}
            if kind == "cylinder" and "z" in domain:     # the cylinder's z = [lo, hi] is its height
                arguments["z"] = rest.pop("z")
            shape = build_shape(kind, arguments)
            numbers = _table_numbers(arguments)
        else:
            extra = sorted(k for k in domain if k in SHAPE_KEYS - {"shape", "space"})
            if extra:
                raise ShapeError(f"{', '.join(extra)} belong inside the shape's text, e.g. disk(center=(0, 0), radius=1)")
            shape = parse_shape(text)
            numbers = shape_numbers(text, shape_number)
    except (ShapeError, NumberClash) as exc:
        raise ConfigError(f"{source}: [domain] shape: {exc}") from None
    space = domain.get("space", _DEFAULT_SPACE.get(shape.dim))
    if not isinstance(space, list) or len(space) != shape.dim:
        raise ConfigError(f"{source}: [domain] space must list the {shape.dim} spatial variables the shape spans, "
                          f"e.g. space = {_DEFAULT_SPACE.get(shape.dim, ['x', 'y'])!r}")
    for name in space:
        check_name(name, "variable", source)
        if name in rest:
            raise ConfigError(f"{source}: [domain] {name} is a spatial variable of the shape, so its range comes "
                              f"from the shape; only other variables (time) take a range")
    if len(set(space)) != len(space):
        raise ConfigError(f"{source}: [domain] space names a variable twice")
    geometry = Geometry(shape, tuple(space), tuple(numbers.items()))
    try:
        geometry.pieces()        # a sliver of a boundary is refused here, before any work (and kept)
    except ShapeError as exc:
        raise ConfigError(f"{source}: [domain] shape: {exc}") from None
    return geometry, rest


def _table_numbers(arguments: Mapping[str, Any]) -> dict[float, sp.Expr]:
    """The TOML numbers of a shape's table form, as written (their floats' decimals)."""
    numbers: dict[float, sp.Expr] = {}
    stack = list(arguments.values())
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            note(numbers, value, as_written(value))
    return numbers


#: the numbers a problem being read has written so far (the problem itself is frozen): see :func:`writing`
_WRITTEN: ContextVar[dict[float, sp.Expr] | None] = ContextVar("written_numbers", default=None)


@contextmanager
def writing(problem: Problem) -> Iterator[dict[float, sp.Expr]]:
    """The sets read inside the block record how the config wrote their numbers into the dict yielded
    (it starts with ``problem``'s); the reader then derives the problem that carries them."""
    numbers = dict(problem.numbers)
    token = _WRITTEN.set(numbers)
    try:
        yield numbers
    finally:
        _WRITTEN.reset(token)


def written(problem: Problem, value: float) -> sp.Expr:
    """The exact number the config wrote for ``value``, counting the sets read so far (:func:`writing`)."""
    numbers = _WRITTEN.get()
    return exact_number(value, problem.numbers if numbers is None else numbers)


def noted(problem: Problem, value: float, exact: sp.Expr, where: str) -> None:
    """Record how the config wrote ``value`` (:mod:`desyr.model.written`), or refuse a second writing
    (outside :func:`writing`, the writing is checked and not kept)."""
    numbers = _WRITTEN.get()
    try:
        note(dict(problem.numbers) if numbers is None else numbers, value, exact)
    except NumberClash as exc:
        raise ConfigError(f"{where}: {exc}") from None


# ------------------------------------------------------------------------------ the sets
def read_sets(on: Any, problem: Problem, where: str) -> list[Face | Part]:
    specs = [on] if isinstance(on, str) else on
    if not isinstance(specs, list) or not specs or not all(isinstance(s, str) for s in specs):
        raise ConfigError(f"{where}: expected a set such as \"x = 0\", \"t = 0\", \"boundary\" or a list of them")
    out: list[Face | Part] = []
    for spec in specs:
        out.extend(_read_set(spec, problem, where))
    return out


def _read_set(spec: str, problem: Problem, where: str) -> list[Face | Part]:
    text = spec.strip()
    geometry = problem.geometry
    name, _, predicate = text.partition(" where ")
    name = name.strip()
    if geometry is not None and (name in ("boundary", "spatial_boundary") or name in geometry.part_names()):
        return _parts(name, predicate.strip(), problem, where)
    if predicate:
        known = ", ".join(["boundary", *geometry.part_names()]) if geometry else "boundary parts of a shape"
        raise ConfigError(f"{where}: \"where\" cuts a boundary part ({known}); {name!r:.40} is not one")
    faces = _box_sets(text, problem, where)
    if geometry is None:
        return faces
    parts = _face_parts(faces, problem)
    if parts:
        return parts
    for face in faces:
        assert isinstance(face, Face)          # what _box_sets reads
        share = face_share(problem, face)
        if share == 0:
            raise ConfigError(f"{where}: the set {face.describe()!r} holds no point of the shape {geometry.text}")
        if share < 1e-3 and len(face.fixed) < problem.dim:
            raise ConfigError(f"{where}: only {share:.1e} of the set {face.describe()!r} lies in the shape, too "
                              f"little to sample; name a boundary part instead")
    return faces


def _face_parts(faces: list[Face | Part], problem: Problem) -> list[Face | Part]:
    """``"x = -1.0"`` on a shape with a box face there: that face's parts (with their normal)."""
    geometry = problem.geometry
    assert geometry is not None
    if len(faces) != 1 or not isinstance(faces[0], Face) or len(faces[0].fixed) != 1:
        return []
    name, value = faces[0].fixed[0]
    if name not in geometry.space:
        return []
    axis = geometry.space.index(name)
    at = written(problem, value)             # the face is the one at the number written, exactly
    return [Part(geometry.piece_name(p), p) for p in geometry.pieces() if p.patch.kind == "face"
            and int(p.patch.data[0]) == axis and abs(p.patch.data[1] - value) <= 1e-9 * (1 + abs(value))
            and sp.expand(p.patch.exact_data()[1] - at) == 0]


def _parts(name: str, predicate: str, problem: Problem, where: str) -> list[Face | Part]:
    geometry = problem.geometry
    assert geometry is not None
    condition, condition_text = (None, "") if not predicate else _condition(predicate, problem, where)
    pieces = [p for p in geometry.pieces()
              if name in ("boundary", "spatial_boundary") or geometry.piece_name(p) == name]
    parts: list[Face | Part] = []
    for piece in pieces:
        part = Part(geometry.piece_name(piece), piece, condition, condition_text)
        share = predicate_share(problem, part)
        if share == 0 and predicate_touches(problem, part):
            raise ConfigError(f"{where}: the predicate keeps a sliver of {part.name} (under {1 / PROBE:.0e} of it), "
                              f"too little to sample; widen it or name the part")
        if share == 0:
            continue       # a piece the predicate leaves empty holds no points
        if share < MIN_SHARE:
            raise ConfigError(f"{where}: the predicate keeps only {share:.1e} of {part.name} (at least {MIN_SHARE:g} "
                              f"of each part it touches), too little to sample; widen it or name the part")
        parts.append(part)
    if not parts:
        raise ConfigError(f"{where}: {name}{' where ' + predicate if predicate else ''} selects no boundary point "
                          f"of {PROBE} sampled on each part: it selects nothing, or a share under "
                          f"{1 / PROBE:.0e}, too little to sample; widen it")
    return parts


def _condition(text: str, problem: Problem, where: str) -> tuple[sp.Expr, str]:
    """One comparison, or several joined by ``and``: kept where all hold (the least margin > 0)."""
    margins, shown = [], []
    for part in re.split(r"\s+and\s+", text):
        m = re.fullmatch(r"([^<>=]+?)(<=|>=|<|>)([^<>=]+)", part)
        if not m:
            raise ConfigError(f"{where}: cannot read the predicate {text!r:.80}; write one comparison such as "
                              f"\"x**2 + y**2 < 0.3\", or several joined by 'and'")
        left, op, right = m.groups()
        try:
            a, b = problem.parse(left), problem.parse(right)
        except ExpressionError as exc:
            raise ConfigError(f"{where}: predicate {text!r:.80}: {exc}") from None
        margins.append(b - a if op in ("<", "<=") else a - b)
        shown.append(f"{left.strip()} {op} {right.strip()}")
    condition = margins[0] if len(margins) == 1 else sp.Min(*margins)
    return condition, " and ".join(shown)


def _box_sets(text: str, problem: Problem, where: str) -> list[Face | Part]:
    bounds = {v.name: v for v in problem.variables}
    if text in ("boundary", "spatial_boundary"):
        spatial = [v for v in problem.variables if v.name != problem.time]
        return [Face(((v.name, b),)) for v in spatial for b in (v.lo, v.hi)]
    if text == "initial":
        if problem.time is None:
            raise ConfigError(f"{where}: \"initial\" needs time = \"<variable>\" in the config")
        return [Face(((problem.time, bounds[problem.time].lo),))]
    fixed: list[tuple[str, float]] = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9]*)\s*=\s*(\S+)\s*", part)
        if not m:
            hint = (f" or a part of the shape ({', '.join(['boundary', *problem.geometry.part_names()])})"
                    if problem.geometry is not None else "")
            raise ConfigError(f"{where}: cannot read set {text!r}; write e.g. \"x = 0\" or \"x = 0, y = 1\"{hint}")
        name, value_text = m.groups()
        if name not in bounds:
            raise ConfigError(f"{where}: unknown variable '{name}' in {text!r} (variables: {', '.join(bounds)})")
        try:
            exact = parse_expression(value_text, Vocabulary([]), written=True)
            value = float(exact.evalf())
        except (ExpressionError, TypeError) as exc:
            raise ConfigError(f"{where}: bad value in {text!r}: {exc}") from None
        if not bounds[name].lo - 1e-12 <= value <= bounds[name].hi + 1e-12:
            raise ConfigError(f"{where}: {name} = {value:g} lies outside the domain [{bounds[name].lo:g}, {bounds[name].hi:g}]")
        if any(name == other for other, _ in fixed):
            raise ConfigError(f"{where}: {text!r} fixes {name} twice; list separate sets instead: [\"{name} = ...\", ...]")
        noted(problem, value, exact, where)     # 1/3 stays one third, 0.1234567 its decimal, in the proof
        fixed.append((name, value))
    order = problem.variable_names
    return [Face(tuple(sorted(fixed, key=lambda nv: order.index(nv[0]))))]


def point_sets(at: Any, problem: Problem, where: str) -> list[Face | Part]:
    """``at = [[x, y], ...]``: listed points, in the order of the domain's variables."""
    if (not isinstance(at, list) or not at or len(at) > 100_000
            or not all(isinstance(p, list) and len(p) == problem.dim for p in at)):
        raise ConfigError(f"{where}.at must be a list of points, each [{', '.join(problem.variable_names)}]")
    P = np.array(at, dtype=float) if all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                         for p in at for v in p) else None
    if P is None or not np.all(np.isfinite(P)):
        raise ConfigError(f"{where}.at must hold finite numbers")
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    outside = ~np.all((P >= lo - 1e-12) & (P <= hi + 1e-12), axis=1)
    if problem.geometry is not None:
        space = [problem.variable_names.index(v) for v in problem.geometry.space]
        outside |= problem.geometry.shape.level(P[:, space]) > 1e-9
    if outside.any():
        k = int(np.argmax(outside))
        raise ConfigError(f"{where}.at: point {k} {at[k]!r:.60} lies outside the domain")
    for point in at:
        for v in point:
            noted(problem, v, as_written(v), f"{where}.at")
    return [Face(tuple(zip(problem.variable_names, map(float, p)))) for p in P]


# ------------------------------------------------------------------------------ u_n
def normal_vocabulary(problem: Problem) -> Vocabulary | None:
    """The problem's names plus ``<field>_n`` for each field (None when a variable is named ``n``)."""
    vocab = problem.vocabulary
    if "n" in vocab.variables:
        return None
    space = _space(problem)
    normal = _normal_symbols(len(space))
    extra = {f"{f}_n": sum(normal[i] * vocab.jet_symbol(Jet(f, (v,))) for i, v in enumerate(space))
             for f in problem.fields}
    # the unknown coefficients of an inverse problem stay names of its constraints (u_x + h*u, h unknown)
    return Vocabulary(vocab.variables, vocab.fields, {**vocab.extra, **extra})


def _space(problem: Problem) -> list[str]:
    if problem.geometry is not None:
        return list(problem.geometry.space)
    return [v for v in problem.variable_names if v != problem.time]


def has_normal(expr: sp.Expr) -> bool:
    return bool(expr.free_symbols & set(NORMAL))


def with_normal(expr: sp.Expr, s: Face | Part, problem: Problem, where: str) -> sp.Expr:
    """``expr`` with the outward normal of set ``s`` put in for ``u_n``."""
    space = _space(problem)
    symbols = [problem.vocabulary.var_symbols[v] for v in space]
    if isinstance(s, Part):
        normal = s.normal(symbols)
    else:
        normal = _face_normal(s, problem, space, where)
    return expr.xreplace(dict(zip(_normal_symbols(len(space)), normal)))


def _face_normal(face: Face, problem: Problem, space: list[str], where: str) -> tuple[sp.Expr, ...]:
    fixed = [(n, v) for n, v in face.fixed if n in space]
    if len(fixed) != 1 or len(face.fixed) != 1 or problem.geometry is not None:
        raise ConfigError(f"{where}: the set {face.describe()!r} has no outward normal, so u_n is undefined there "
                          f"(a normal derivative needs a face of the box or a boundary part of the shape)")
    name, value = fixed[0]
    variable = next(v for v in problem.variables if v.name == name)
    if value not in (variable.lo, variable.hi):
        raise ConfigError(f"{where}: the set {face.describe()!r} lies inside the domain, so it has no outward normal")
    sign = 1 if value == variable.hi else -1
    return tuple(sp.Integer(sign if v == name else 0) for v in space)
