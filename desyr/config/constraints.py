"""Reading ``[[constraints]]``: pointwise, periodic and integral constraints (``docs/config.md``).

- pointwise: ``operator = value`` on the sets ``on`` (or the listed points ``at``);
- periodic: ``operator`` on ``on`` equals ``operator`` at the matching point of ``periodic``;
- integral: ``integral = true``: the integral of ``operator`` over the domain equals ``value``
  (at every time, for a time-dependent problem).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from desyr.config.regions import has_normal, normal_vocabulary, point_sets, read_sets, with_normal, written
from desyr.config.settings import MAX_POINTS
from desyr.errors import ConfigError
from desyr.model.geometry import EmptySet, Part
from desyr.model.problem import Constraint, Face, Problem, jets_in
from desyr.model.sets import integral_rule, shape_set_points
from desyr.symbolic.conditions import Condition
from desyr.symbolic.expressions import ExpressionError, parse_expression
from desyr.symbolic.series import not_finite

_ALLOWED = {"operator", "on", "value", "points", "label", "at", "periodic", "integral"}
#: the longest label a config may give (every report repeats it)
MAX_LABEL = 500
#: (problem, expression, where) -> the value "reference" stands for
FromReference = Callable[[Problem, sp.Expr, str], sp.Expr]


#: the most constraint sets (faces, boundary parts, each with its own residual and proof) a problem may have:
#: a polygon of 1000 edges with u_n on its boundary made 2000, and its verdict depended on the machine's load
MAX_SETS = 512


def check_set_count(sets: Sequence[object], dim: int, where: str) -> None:
    """Refuse more than :data:`MAX_SETS` constraint sets that are not single points, in one line (listed
    points are one cheap set each: 20000 of them are checked in seconds)."""
    count = sum(1 for s in sets if not (isinstance(s, Face) and len(s.fixed) == dim))
    if count > MAX_SETS:
        raise ConfigError(f"{where}: the constraints hold on {count} sets (each face, boundary part and polygon edge "
                          f"is one; listed points are not counted); at most {MAX_SETS} in all: use a shape with "
                          f"fewer edges")


def read_constraints(i: int, table: Mapping[str, Any], problem: Problem, source: str,
                     from_reference: FromReference) -> list[Constraint]:
    """One ``[[constraints]]`` entry: one constraint, or one per set when ``u_n`` takes each set's normal."""
    where = f"constraints[{i}]"
    unknown = sorted(set(table) - _ALLOWED)
    integral = table.get("integral", False)
    if not isinstance(integral, bool):
        raise ConfigError(f"{source}: {where}.integral must be true or false")
    kind = "integral" if integral else "periodic" if "periodic" in table else "pointwise"
    missing = {"integral": [] if "value" in table else ["'value'"],
               "periodic": [] if "on" in table else ["'on'"],
               "pointwise": ([] if "on" in table or "at" in table else ["'on' (or 'at')"])
               + ([] if "value" in table else ["'value'"])}[kind]
    if unknown or missing:
        raise ConfigError(f"{source}: {where} needs {' and '.join(missing) or 'nothing more'} (optional: operator, "
                          f"points, label, at, periodic, integral); unknown: {', '.join(unknown) or '-'}")
    if "on" in table and "at" in table:
        raise ConfigError(f"{source}: {where} gives both 'on' and 'at'; a constraint holds on sets or at points")
    op_text = table.get("operator", problem.fields[0] if len(problem.fields) == 1 else None)
    if op_text is None:
        raise ConfigError(f"{source}: {where} needs 'operator' when there are several fields")
    conditions: list[Condition] = []     # of the operator and value as written, for the verifier
    operator = _operator(op_text, problem, f"{source}: {where}", conditions)
    label = table.get("label") or _default_label(op_text, table)
    if not isinstance(label, str):
        raise ConfigError(f"{source}: {where}.label must be a string")
    if "label" in table and len(label) > MAX_LABEL:      # the default one is made here, from the config
        raise ConfigError(f"{source}: {where}.label is {len(label)} characters long; at most {MAX_LABEL}")
    if integral:
        if "on" in table or "at" in table or "periodic" in table:
            raise ConfigError(f"{source}: {where}: an integral constraint holds over the whole domain; "
                              f"it takes no 'on', 'at' or 'periodic'")
        return [_integral(operator, table, problem, f"{source}: {where}", label, from_reference, conditions)]
    where = f"{source}: {where}"
    sets = point_sets(table["at"], problem, where) if "at" in table else read_sets(table["on"], problem, f"{where}.on")
    check_set_count(sets, problem.dim, where)       # before any set's normal or value is worked out
    for s in sets:
        held = [n for n, _ in getattr(s, "fixed", ()) if n in problem.parameters]
        if held and not (isinstance(s, Face) and len(s.fixed) == problem.dim):
            raise ConfigError(f"{where}: {s.describe()} fixes the parameter {held[0]}; a family's constraints hold "
                              f"for every value of its parameters (a parameter's ends are not a boundary)")
    n = _count(table, sets, problem, where)
    if "periodic" in table:
        return [_periodic(operator, table, sets, problem, where, label, n, tuple(conditions))]
    value_text = table["value"]
    if not has_normal(operator):
        value = _value(value_text, operator, problem, where, from_reference, conditions)
        return [Constraint(label, operator, value, tuple(sets), n, conditions=tuple(conditions))]
    out = []
    for s in sets:      # u_n: each set with its own normal
        op = with_normal(operator, s, problem, where)
        name = s.describe() if isinstance(s, (Face, Part)) else str(s)
        own = list(conditions)
        value = _value(value_text, op, problem, where, from_reference, own)
        own = [Condition(with_normal(c.quantity, s, problem, where), c.need, c.written) for c in own]
        out.append(Constraint(f"{label} [{name}]" if len(sets) > 1 else label, op, value, (s,), n,
                              conditions=tuple(own)))
    return out


def _default_label(op_text: str, table: Mapping[str, Any]) -> str:
    if table.get("integral"):
        return f"integral of {op_text}"
    if "at" in table:
        return f"{op_text} at {len(table['at']) if isinstance(table['at'], list) else '?'} point(s)"
    on = table.get("on")
    where = on if isinstance(on, str) else " | ".join(map(str, on)) if isinstance(on, list) else str(on)
    if "periodic" in table:
        return f"{op_text} periodic from {where} to {table['periodic']}"
    return f"{op_text} on {where}"


def _operator(text: Any, problem: Problem, where: str, conditions: list[Condition]) -> sp.Expr:
    vocabulary = normal_vocabulary(problem) or problem.vocabulary
    try:
        operator = parse_expression(text, vocabulary, written=True, conditions=conditions)
    except ExpressionError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    for sym in operator.free_symbols:       # jets the text named: known to the problem's own vocabulary too
        jet = vocabulary.jet_of(sym)
        if jet is not None:
            problem.vocabulary.jet_symbol(jet)
    if not jets_in(operator, problem.vocabulary):
        raise ConfigError(f"{where}.operator does not involve any field")
    _finite(operator, f"{where}.operator")
    return operator


def _value(text: Any, operator: sp.Expr, problem: Problem, where: str, from_reference: FromReference,
           conditions: list[Condition]) -> sp.Expr:
    try:
        value = (from_reference(problem, operator, f"{where}.value") if text == "reference"
                 else problem.parse(text, written=True, conditions=conditions))
    except ExpressionError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return _finite(value, f"{where}.value")


def _finite(expr: sp.Expr, what: str) -> sp.Expr:
    if not_finite(expr):
        raise ConfigError(f"{what} is not finite ({expr})")
    return expr


def _count(table: Mapping[str, Any], sets: list[Face | Part], problem: Problem, where: str) -> int:
    points_only = all(isinstance(s, Face) and len(s.fixed) == problem.dim for s in sets)
    n = table.get("points", len(sets) if points_only else problem.points["constraint"])
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_POINTS:
        raise ConfigError(f"{where}.points must be an integer in [1, {MAX_POINTS}]")
    return n


def _integral(operator: sp.Expr, table: Mapping[str, Any], problem: Problem, where: str, label: str,
              from_reference: FromReference, conditions: list[Condition]) -> Constraint:
    if has_normal(operator):
        raise ConfigError(f"{where}: u_n is defined on the boundary; an integral constraint integrates over the domain")
    if table["value"] == "reference":
        raise ConfigError(f"{where}.value: an integral constraint needs its value written out (a number, or an "
                          f"expression of time)")
    value = _value(table["value"], operator, problem, where, from_reference, conditions)
    held = {problem.time, *problem.parameters}
    space = {problem.vocabulary.var_symbols[v] for v in problem.variable_names if v not in held}
    if value.free_symbols & space:
        raise ConfigError(f"{where}.value of an integral constraint may depend on time and parameters only, not on "
                          f"{', '.join(sorted(map(str, value.free_symbols & space)))}")
    try:
        _, G = integral_rule(problem, np.random.default_rng(0))
    except EmptySet:
        text = problem.geometry.text if problem.geometry else "the box"
        raise ConfigError(f"{where}: integral constraints need a domain with a quadrature rule; {text} has none "
                          f"(a primitive shape, a box, A - B with B inside A, or A & B and A | B with one inside the "
                          f"other; inside decided on the numbers as written)") from None
    return Constraint(label, operator, value, (), 1, kind="integral", measure=float(G[0].sum()),
                      conditions=tuple(conditions))


def _periodic(operator: sp.Expr, table: Mapping[str, Any], sets: list[Face | Part], problem: Problem, where: str,
              label: str, n: int, conditions: tuple[Condition, ...]) -> Constraint:
    if "value" in table:
        raise ConfigError(f"{where}: a periodic constraint takes no 'value' (the operator is equal on both sets)")
    if has_normal(operator):
        raise ConfigError(f"{where}: a periodic constraint pairs derivatives along the variables (u_x), not u_n")
    partner = read_sets(table["periodic"], problem, f"{where}.periodic")
    if len(sets) != 1 or len(partner) != 1:
        raise ConfigError(f"{where}: a periodic constraint pairs one set with one set (on and periodic)")
    exact = _shift(sets[0], partner[0], problem, where)
    return Constraint(label, operator, sp.Integer(0), tuple(sets), n, kind="periodic",
                      shift=tuple(float(s) for s in exact), exact_shift=exact, conditions=conditions)


def _shift(a: Face | Part, b: Face | Part, problem: Problem, where: str) -> tuple[sp.Expr, ...]:
    """The translation that carries set ``a`` onto set ``b``, as the exact numbers the config wrote (the
    float ``0.3 - 0.1`` is not 1/5, and a period read off it made the wrong period Proved), or a one-line
    error."""
    names = problem.variable_names
    shift: list[sp.Expr] = [sp.Integer(0)] * problem.dim
    if isinstance(a, Face) and isinstance(b, Face):
        if [n for n, _ in a.fixed] != [n for n, _ in b.fixed] or len(a.fixed) != 1:
            raise ConfigError(f"{where}: the periodic pair {a.describe()!r} and {b.describe()!r} have different "
                              f"extents (a pair fixes the same one variable at two values)")
        shift[names.index(a.fixed[0][0])] = written(problem, b.fixed[0][1]) - written(problem, a.fixed[0][1])
    elif isinstance(a, Part) and isinstance(b, Part) and a.piece.patch.kind == b.piece.patch.kind == "face":
        (axis_a, at_a), (axis_b, at_b) = (p.piece.patch.exact_data()[0:2] for p in (a, b))
        if axis_a != axis_b:
            raise ConfigError(f"{where}: the periodic pair {a.describe()!r} and {b.describe()!r} have different "
                              f"extents (a pair of faces fixes the same variable)")
        assert problem.geometry is not None
        shift[names.index(problem.geometry.space[int(a.piece.patch.data[0])])] = at_b - at_a
    elif isinstance(a, Part) and isinstance(b, Part) and a.piece.patch.kind == b.piece.patch.kind == "cap":
        assert problem.geometry is not None
        ea, eb = a.piece.patch.exact_data(), b.piece.patch.exact_data()
        if ea[0:3] != eb[0:3]:
            raise ConfigError(f"{where}: the periodic pair {a.describe()!r} and {b.describe()!r} have different "
                              f"extents (caps of different cylinders)")
        shift[names.index(problem.geometry.space[2])] = eb[3] - ea[3]
    elif isinstance(a, Part) and isinstance(b, Part) and a.piece.patch.kind == b.piece.patch.kind == "segment":
        assert problem.geometry is not None
        for j, v in enumerate(problem.geometry.space):
            shift[names.index(v)] = _segment_move(a, b, where)[j]
    else:
        raise ConfigError(f"{where}: a periodic pair is two faces of a box (a box domain, or a box in a shape), "
                          f"the two caps of a cylinder, or two parallel edges of a polygon of the same length")
    _check_pair(a, b, np.array([float(s) for s in shift]), problem, where)
    return tuple(shift)


def _segment_move(a: Part, b: Part, where: str) -> tuple[sp.Expr, sp.Expr]:
    """The translation carrying edge ``a`` onto edge ``b`` (either way round), decided on the exact
    vertices: parallel edges of the same length, one a translate of the other."""
    ea, eb = a.piece.patch.exact_data(), b.piece.patch.exact_data()
    p0, p1, q0, q1 = ea[0:2], ea[2:4], eb[0:2], eb[2:4]
    for start, end in ((q0, q1), (q1, q0)):
        move = (start[0] - p0[0], start[1] - p0[1])
        if all(sp.expand(p1[k] + move[k] - end[k]) == 0 for k in (0, 1)):
            return move
    raise ConfigError(f"{where}: the periodic pair {a.describe()!r} and {b.describe()!r} have different "
                      f"extents (no translation carries one onto the other)")


def _check_pair(a: Face | Part, b: Face | Part, shift: np.ndarray, problem: Problem, where: str) -> None:
    """Moved by ``shift``, the points of ``a`` stay in the domain, and moved back, those of ``b`` do too:
    each set is carried onto the other, not into a part of it."""
    if problem.geometry is None:
        return
    space = [problem.variable_names.index(v) for v in problem.geometry.space]
    uniform = lambda r, n, d: r.random((n, d))  # noqa: E731
    for here, move in ((a, shift), (b, -shift)):
        P = shape_set_points(problem, [here], 512, np.random.default_rng(0), uniform) + move
        if np.any(problem.geometry.shape.level(P[:, space]) > 1e-9):
            raise ConfigError(f"{where}: the periodic pair {a.describe()!r} and {b.describe()!r} have different "
                              f"extents (moved onto the other, points of one leave the domain)")
