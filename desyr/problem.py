"""A differential problem: box domain, fields, equations, constraints, reference.

Built from a TOML config (see ``docs/config.md``).  Equations and constraint
operators are sympy expressions over variables and *jet symbols* (``u``,
``u_x``, ``u_xx``...), so the refit, the verification and the PINN teacher all
read the same single definition.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import sympy as sp

from desyr.errors import ConfigError
from desyr.expressions import ExpressionError, Jet, Vocabulary, parse_expression


@dataclass(frozen=True)
class Variable:
    name: str
    lo: float
    hi: float


@dataclass(frozen=True)
class Face:
    """A constraint set: the box with some variables fixed to values.

    All variables fixed gives a single point; one spatial variable fixed gives a
    face; ``t`` fixed at its lower bound gives the initial slice.
    """

    fixed: tuple[tuple[str, float], ...]

    def describe(self) -> str:
        return ", ".join(f"{n} = {v:g}" for n, v in self.fixed)


@dataclass
class Equation:
    text: str
    lhs: sp.Expr              # over variables and jets
    forcing: sp.Expr          # over variables only
    forcing_text: str

    @property
    def residual(self) -> sp.Expr:
        return self.lhs - self.forcing


@dataclass
class Constraint:
    label: str
    operator: sp.Expr         # over variables and jets
    value: sp.Expr            # over variables only
    faces: list[Face]
    n_points: int

    @property
    def residual(self) -> sp.Expr:
        return self.operator - self.value

    @property
    def fields(self) -> set[str]:
        return {j.field for j in jets_in(self.operator)}


@dataclass
class Problem:
    name: str
    title: str
    variables: list[Variable]
    fields: list[str]
    equations: list[Equation]
    constraints: list[Constraint]
    reference: dict[str, sp.Expr] | None
    vocabulary: Vocabulary
    time: str | None = None
    points: dict[str, int] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)   # search/teacher/refine/selection raw tables
    source: str = ""

    # ---------------------------------------------------------------- symbols
    @property
    def variable_names(self) -> list[str]:
        return [v.name for v in self.variables]

    @property
    def symbols(self) -> list[sp.Symbol]:
        return [self.vocabulary.var_symbols[v] for v in self.variable_names]

    @property
    def bounds(self) -> np.ndarray:
        return np.array([[v.lo, v.hi] for v in self.variables], dtype=float)

    @property
    def dim(self) -> int:
        return len(self.variables)

    def parse(self, text: str | float, *, allow_fields: bool = False) -> sp.Expr:
        """Parse a user expression in this problem's names (fields only if allowed)."""
        expr = parse_expression(text, self.vocabulary)
        if not allow_fields and jets_in(expr, self.vocabulary):
            raise ExpressionError(f"{text!r} may only use the variables {', '.join(self.variable_names)}")
        return expr

    def jets(self) -> list[Jet]:
        """Every field derivative the equations and constraints need, sorted."""
        found: set[Jet] = set()
        for expr in [e.lhs for e in self.equations] + [c.operator for c in self.constraints]:
            found |= jets_in(expr, self.vocabulary)
        return sorted(found, key=lambda j: (j.field, j.order, j.wrt))

    def jet_symbol(self, jet: Jet) -> sp.Symbol:
        return self.vocabulary.jet_symbol(jet)

    # ---------------------------------------------------------- substitution
    def apply(self, expr: sp.Expr, solution: Mapping[str, sp.Expr]) -> sp.Expr:
        """Replace every jet in ``expr`` by the matching derivative of ``solution``."""
        subs = {}
        for sym in expr.free_symbols:
            jet = self.vocabulary.jet_of(sym)
            if jet is None:
                continue
            if jet.field not in solution:
                raise ConfigError(f"no expression given for field '{jet.field}'")
            base = solution[jet.field]
            subs[sym] = sp.diff(base, *[self.vocabulary.var_symbols[v] for v in jet.wrt]) if jet.wrt else base
        return expr.xreplace(subs)

    def evaluate_reference(self, X: np.ndarray) -> np.ndarray | None:
        """Reference values (n, n_fields), or None; only for post hoc error."""
        if not self.reference:
            return None
        from desyr.numeric import evaluate
        return np.column_stack([evaluate(self.reference[f], self.symbols, X) for f in self.fields])


def jets_in(expr: sp.Expr, vocabulary: Vocabulary | None = None) -> set[Jet]:
    out = set()
    for sym in expr.free_symbols:
        jet = vocabulary.jet_of(sym) if vocabulary else None
        if jet is not None:
            out.add(jet)
    return out


# ======================================================================= loading
_POINT_DEFAULTS = {"refine": 2000, "verify": 2000, "search": 500, "validate": 2000,
                   "constraint": 200, "seed": 0}
_TOP_KEYS = {"name", "title", "description", "domain", "time", "fields", "equations",
             "constraints", "reference", "points", "search", "teacher", "refine", "selection",
             "plugins", "paper", "coupled"}


def problem_from_dict(data: Mapping[str, Any], source: str = "<config>") -> Problem:
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ConfigError(f"{source}: unknown top-level key(s) {', '.join(unknown)}")
    variables = _variables(data, source)
    names = [v.name for v in variables]
    time = data.get("time", (data.get("domain") or {}).get("time"))
    if time is not None and time not in names:
        raise ConfigError(f"{source}: time = {time!r} is not a variable of [domain] ({', '.join(names)})")
    fields = _string_list(data.get("fields", ["u"]), "fields", source)
    vocab = Vocabulary(names, fields)
    problem = Problem(
        name=str(data.get("name", "problem")), title=str(data.get("title", data.get("name", "problem"))),
        variables=variables, fields=fields, equations=[], constraints=[], reference=None,
        vocabulary=vocab, time=time, source=source,
        sections={k: dict(data.get(k, {})) for k in ("search", "teacher", "refine", "selection", "plugins", "paper",
                                                          "coupled")},
    )
    with _context(source, "reference"):
        problem.reference = _reference(data.get("reference"), problem)
    problem.equations = [_equation(i, e, problem, source) for i, e in enumerate(_tables(data, "equations", source))]
    if not problem.equations:
        raise ConfigError(f"{source}: at least one [[equations]] entry is required")
    problem.points = _points(data.get("points", {}), source)
    problem.constraints = [_constraint(i, c, problem, source) for i, c in enumerate(data.get("constraints", []))]
    return problem


class _context:
    """Prefix expression errors with where in the config they happened."""

    def __init__(self, source: str, where: str) -> None:
        self.prefix = f"{source}: {where}"

    def __enter__(self):
        return self

    def __exit__(self, etype, exc, tb):
        if etype is not None and issubclass(etype, ExpressionError):
            raise ConfigError(f"{self.prefix}: {exc}") from None
        return False


def _variables(data: Mapping[str, Any], source: str) -> list[Variable]:
    domain = data.get("domain")
    if not isinstance(domain, Mapping) or not domain:
        raise ConfigError(f"{source}: missing [domain] table, e.g. [domain] x = [0, 1]")
    out = []
    for name, span in domain.items():
        if name == "time" and isinstance(span, str):
            continue  # `time = "t"` written inside [domain] names the time variable
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name) or name in ("pi", "E"):
            raise ConfigError(f"{source}: invalid variable name {name!r}")
        if (not isinstance(span, list) or len(span) != 2
                or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in span)
                or not float(span[0]) < float(span[1])):
            raise ConfigError(f"{source}: domain {name} must be [lo, hi] with lo < hi, got {span!r}")
        out.append(Variable(name, float(span[0]), float(span[1])))
    return out


def _string_list(value: Any, key: str, source: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: {key} must be a list of names")
    return value


def _tables(data: Mapping[str, Any], key: str, source: str) -> list[Mapping[str, Any]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise ConfigError(f"{source}: {key} must be an array of tables ([[{key}]])")
    return value


def _reference(table: Any, problem: Problem) -> dict[str, sp.Expr] | None:
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise ConfigError(f"{problem.source}: [reference] must map field names to expressions")
    unknown = sorted(set(table) - set(problem.fields))
    if unknown:
        raise ConfigError(f"{problem.source}: [reference] names unknown field(s) {', '.join(unknown)}")
    return {f: problem.parse(text) for f, text in table.items()}


def _from_reference(problem: Problem, expr: sp.Expr, what: str) -> sp.Expr:
    if not problem.reference or set(problem.reference) != set(problem.fields):
        raise ConfigError(f"{problem.source}: {what} = \"reference\" needs a [reference] for every field")
    return sp.simplify(problem.apply(expr, problem.reference))


def _equation(i: int, table: Mapping[str, Any], problem: Problem, source: str) -> Equation:
    where = f"equations[{i}]"
    unknown = sorted(set(table) - {"lhs", "rhs"})
    if unknown or "lhs" not in table:
        raise ConfigError(f"{source}: {where} needs 'lhs' (and optional 'rhs'); unknown: {', '.join(unknown) or '-'}")
    with _context(source, where):
        lhs = problem.parse(table["lhs"], allow_fields=True)
        rhs_text = table.get("rhs", 0)
        if rhs_text == "from_reference":
            rhs = _from_reference(problem, lhs, f"{where}.rhs")
        else:
            rhs = problem.parse(rhs_text)
    if not jets_in(lhs, problem.vocabulary):
        raise ConfigError(f"{source}: {where}.lhs does not involve any field ({', '.join(problem.fields)})")
    return Equation(str(table["lhs"]), lhs, rhs, str(rhs_text))


def _points(table: Any, source: str) -> dict[str, int]:
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: [points] must be a table")
    unknown = sorted(set(table) - set(_POINT_DEFAULTS))
    if unknown:
        raise ConfigError(f"{source}: [points] unknown key(s) {', '.join(unknown)}; allowed: {', '.join(_POINT_DEFAULTS)}")
    out = {**_POINT_DEFAULTS, **table}
    for k, v in out.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < (0 if k == "seed" else 1):
            raise ConfigError(f"{source}: [points] {k} must be a positive integer, got {v!r}")
    return out


def _constraint(i: int, table: Mapping[str, Any], problem: Problem, source: str) -> Constraint:
    where = f"constraints[{i}]"
    allowed = {"operator", "on", "value", "points", "label"}
    unknown = sorted(set(table) - allowed)
    if unknown or "on" not in table or "value" not in table:
        raise ConfigError(f"{source}: {where} needs 'on' and 'value' (optional: operator, points, label); "
                          f"unknown: {', '.join(unknown) or '-'}")
    default_op = problem.fields[0] if len(problem.fields) == 1 else None
    op_text = table.get("operator", default_op)
    if op_text is None:
        raise ConfigError(f"{source}: {where} needs 'operator' when there are several fields")
    with _context(source, where):
        operator = problem.parse(op_text, allow_fields=True)
        if not jets_in(operator, problem.vocabulary):
            raise ConfigError(f"{source}: {where}.operator does not involve any field")
        value = (_from_reference(problem, operator, f"{where}.value") if table["value"] == "reference"
                 else problem.parse(table["value"]))
    faces = _faces(table["on"], problem, f"{source}: {where}.on")
    n_default = 1 if all(len(f.fixed) == problem.dim for f in faces) else problem.points["constraint"]
    n = table.get("points", n_default)
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ConfigError(f"{source}: {where}.points must be a positive integer")
    label = table.get("label") or f"{op_text} on {_on_text(table['on'])}"
    return Constraint(str(label), operator, value, faces, n)


def _on_text(on: Any) -> str:
    return on if isinstance(on, str) else " | ".join(map(str, on))


def _faces(on: Any, problem: Problem, where: str) -> list[Face]:
    specs = [on] if isinstance(on, str) else on
    if not isinstance(specs, list) or not specs or not all(isinstance(s, str) for s in specs):
        raise ConfigError(f"{where}: expected a set such as \"x = 0\", \"t = 0\", \"boundary\" or a list of them")
    faces: list[Face] = []
    for spec in specs:
        faces.extend(_parse_set(spec, problem, where))
    return faces


def _parse_set(spec: str, problem: Problem, where: str) -> list[Face]:
    text = spec.strip()
    bounds = {v.name: v for v in problem.variables}
    if text in ("boundary", "spatial_boundary"):
        spatial = [v for v in problem.variables if v.name != problem.time]
        return [Face(((v.name, b),)) for v in spatial for b in (v.lo, v.hi)]
    if text == "initial":
        if problem.time is None:
            raise ConfigError(f"{where}: \"initial\" needs time = \"<variable>\" in the config")
        return [Face(((problem.time, bounds[problem.time].lo),))]
    fixed = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9]*)\s*=\s*(\S+)\s*", part)
        if not m:
            raise ConfigError(f"{where}: cannot read set {spec!r}; write e.g. \"x = 0\" or \"x = 0, y = 1\"")
        name, value_text = m.groups()
        if name not in bounds:
            raise ConfigError(f"{where}: unknown variable '{name}' in {spec!r} (variables: {', '.join(bounds)})")
        try:
            value = float(parse_expression(value_text, Vocabulary([])).evalf())
        except (ExpressionError, TypeError) as exc:
            raise ConfigError(f"{where}: bad value in {spec!r}: {exc}") from None
        if not bounds[name].lo - 1e-12 <= value <= bounds[name].hi + 1e-12:
            raise ConfigError(f"{where}: {name} = {value:g} lies outside the domain [{bounds[name].lo:g}, {bounds[name].hi:g}]")
        fixed.append((name, value))
    order = problem.variable_names
    return [Face(tuple(sorted(fixed, key=lambda nv: order.index(nv[0]))))]
