"""Reading problem configs as data: TOML text and files, and the tables plugins give.

Every value is checked here, before any work: the structure of the tables, the
names, the expressions (which must be finite where they are data), and the
declared sections of :mod:`desyr.config.settings`.  Each failure is one
:class:`ConfigError` line that says where in the config it happened.
"""
from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib as tomllib  # re-exported: desyr.config.loading names it
else:  # pragma: no cover
    import tomli as tomllib

import json
import math
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import replace

import sympy as sp

from desyr.config import outline
from desyr.config.constraints import MAX_LABEL, check_set_count, read_constraints
from desyr.config.defined import check_data_defined
from desyr.config.inverse import (
    check_parameters_not_differentiated,
    check_unknowns_used,
    read_observations,
    read_parameters,
    read_unknowns,
)
from desyr.config.outline import MISSING_DOMAIN, check_outline
from desyr.config.regions import read_geometry, writing
from desyr.config.settings import SECTIONS, UNCHECKED, check_sections
from desyr.config.toml_text import read_toml as read_toml  # re-exported: desyr.config.loading names it
from desyr.errors import ConfigError
from desyr.model.geometry import Geometry
from desyr.model.names import check_name, field_names
from desyr.model.nesting import DataError, toml_loads
from desyr.model.problem import Equation, Problem, Variable, jets_in
from desyr.model.written import NumberClash, note, range_end
from desyr.symbolic.conditions import Condition
from desyr.symbolic.expressions import ExpressionError, Vocabulary
from desyr.symbolic.series import not_finite
from desyr.symbolic.simplify import bounded_simplify

#: the longest texts a config may give: every report repeats them (a 7 MB title made a 48 MB page)
MAX_TEXT = {**outline.MAX_TEXT, "label": MAX_LABEL}
#: whether forcing derived from the reference is simplified (the verifier needs no tidy form)
_TIDY: ContextVar[bool] = ContextVar("tidy", default=True)


def problem_from_toml(text: str, source: str = "<config>", *, tidy: bool = True) -> Problem:
    """A problem from TOML text (for plugins that ship problems), checked like a config file."""
    try:
        data = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: malformed TOML: {exc}") from None
    except DataError as exc:           # nested too deep, or a number with more digits than a float holds
        raise ConfigError(f"{source}: {exc}") from None
    except ValueError as exc:         # an integer of more than 4300 digits
        raise ConfigError(f"{source}: malformed TOML: {exc}") from None
    problem = problem_from_dict(data, source=source, tidy=tidy)
    return replace(problem, config_text=text, config_format="toml")


def load_problem_file(path: str | Path) -> Problem:
    path = Path(path)
    read_toml(path)                      # the same one-line errors for a missing or malformed file
    return problem_from_toml(path.read_text(encoding="utf-8"), source=str(path))


_TOP_KEYS = outline.TOP_KEYS
#: the sections every problem carries (empty when the config has none): the configs' identities (hashes)
#: were computed over these, so a section added later is carried only when a config sets it
_ALWAYS = ("search", "teacher", "refine", "selection", *UNCHECKED, "coupled", "execution", "escalation")


def _sections(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    later = [k for k in SECTIONS if k not in _ALWAYS and k != "points" and k in data]
    later += [k for k in data if k not in _TOP_KEYS and k not in _ALWAYS]     # a plugin's, checked by settings
    return {k: dict(data.get(k, {})) for k in (*_ALWAYS, *later)}


def problem_from_dict(data: Mapping[str, Any], source: str = "<config>", *, tidy: bool = True) -> Problem:
    """A problem from a config table (a plugin's dict, or parsed TOML), checked like a config file."""
    token = _TIDY.set(tidy)
    try:
        return _problem_from_dict(data, source)
    finally:
        _TIDY.reset(token)


def _problem_from_dict(data: Mapping[str, Any], source: str) -> Problem:
    check_outline(data, source)
    variables, geometry = _variables(data, source)
    parameters = read_parameters(data, [v.name for v in variables], source)
    variables += parameters
    names = [v.name for v in variables]
    time = data.get("time", (data.get("domain") or {}).get("time"))
    if time is not None and time not in names:
        raise ConfigError(f"{source}: time = {time!r:.40} is not a variable of [domain] ({', '.join(names)})")
    if time is not None and time in [p.name for p in parameters]:
        raise ConfigError(f"{source}: time = {time!r:.40} names a parameter; time is a variable of the domain")
    if geometry is not None and time in geometry.space:
        raise ConfigError(f"{source}: time = {time!r:.40} names a spatial variable of the shape; time is an "
                          f"interval of its own beside the shape, e.g. t = [0, 1]")
    fields = field_names(data, names, source)
    if "coupled" in data and len(fields) < 2:
        raise ConfigError(f"{source}: [coupled] applies only to problems with several fields")
    unknowns = read_unknowns(data, names, fields, source)
    try:
        vocab = Vocabulary(names, fields, {u.name: sp.Symbol(u.name, real=True) for u in unknowns})
    except ExpressionError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    problem = Problem(
        name=str(data.get("name", "problem")), title=str(data.get("title", data.get("name", "problem"))),
        variables=tuple(variables), fields=tuple(fields), equations=(), constraints=(), reference=None,
        vocabulary=vocab, time=time, source=source,
        sections=_sections(data), geometry=geometry,
        parameters=tuple(p.name for p in parameters), unknowns=unknowns,
        numbers=_written_numbers(data, geometry, source),
    )
    # the problem is frozen: each step below derives the next one from what the earlier steps read
    with _context(source, "reference"):
        problem = replace(problem, reference=_reference(data.get("reference"), problem))
    problem = replace(problem, equations=tuple(_equation(i, e, problem, source)
                                               for i, e in enumerate(_tables(data, "equations", source))))
    if not problem.equations:
        raise ConfigError(f"{source}: at least one [[equations]] entry is required")
    problem = replace(problem, points=_points(data.get("points", {}), source))
    with writing(problem) as numbers:
        constraints = tuple(c for i, table in enumerate(_tables(data, "constraints", source))
                            for c in read_constraints(i, table, problem, source, _from_reference))
    problem = replace(problem, constraints=constraints, numbers=numbers)
    check_set_count([f for c in problem.constraints for f in c.faces], problem.dim, source)
    check_data_defined(problem)
    check_parameters_not_differentiated(problem)
    problem = replace(problem, observations=read_observations(data, problem))
    check_unknowns_used(problem)
    check_sections(problem)
    try:
        text = json.dumps(data, sort_keys=True, default=str)
    except (RecursionError, ValueError) as exc:
        raise ConfigError(f"{source}: the config cannot be written as data ({type(exc).__name__})") from None
    return replace(problem, config_text=text)


class _context:
    """Prefix expression errors with where in the config they happened."""

    def __init__(self, source: str, where: str) -> None:
        self.prefix = f"{source}: {where}"

    def __enter__(self) -> _context:
        return self

    def __exit__(self, etype: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if etype is not None and issubclass(etype, ExpressionError):
            raise ConfigError(f"{self.prefix}: {exc}") from None


def _variables(data: Mapping[str, Any], source: str) -> tuple[list[Variable], Geometry | None]:
    domain = data.get("domain")
    if not isinstance(domain, Mapping) or not domain:
        raise ConfigError(f"{source}: {MISSING_DOMAIN}")
    shaped = read_geometry(domain, source)
    if shaped is None:
        return _intervals(domain, source), None
    geometry, rest = shaped
    lo, hi = geometry.shape.bounding_box()
    space = [Variable(v, *_domain_span(v, float(a), float(b), source)) for v, a, b in zip(geometry.space, lo, hi)]
    others = _intervals(rest, source) if any(k != "time" for k in rest) else []
    return space + others, geometry


def _written_numbers(data: Mapping[str, Any], geometry: Geometry | None, source: str) -> dict[float, sp.Expr]:
    """The shape's numbers and the ranges' ends as the config wrote them (:mod:`desyr.model.written`)."""
    numbers = dict(geometry.numbers) if geometry is not None else {}
    for table in (data.get("domain"), data.get("parameters")):
        for span in (table or {}).values():
            if isinstance(span, list) and len(span) == 2 and all(
                    isinstance(b, (int, float)) and not isinstance(b, bool) and _finite(b) for b in span):
                try:
                    for end in span:
                        note(numbers, end, range_end(end))
                except NumberClash as exc:
                    raise ConfigError(f"{source}: [domain]: {exc}") from None
    return numbers


def _intervals(domain: Mapping[str, Any], source: str) -> list[Variable]:
    out = []
    for name, span in domain.items():
        if name == "time" and isinstance(span, str):
            continue  # `time = "t"` written inside [domain] names the time variable
        check_name(name, "variable", source)
        if (not isinstance(span, list) or len(span) != 2
                or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in span)
                or not all(_finite(b) for b in span)
                or not float(span[0]) < float(span[1])):
            raise ConfigError(f"{source}: domain {name} must be [lo, hi] with finite lo < hi, got {span!r:.60}")
        out.append(Variable(name, *_domain_span(name, float(span[0]), float(span[1]), source)))
    return out


def _finite(number: int | float) -> bool:
    try:
        return math.isfinite(float(number))
    except OverflowError:         # a TOML integer of 400 digits
        return False


#: Points are drawn as lo + u*(hi - lo) and must be distinct: the interval must hold at least this many doubles.
MIN_DOUBLES_IN_DOMAIN = 2**24


def _domain_span(name: str, lo: float, hi: float, source: str) -> tuple[float, float]:
    """``(lo, hi)`` if points can be drawn in it: a finite width (``[-1e308, 1e308]`` is 2e308 wide, which
    overflows to inf), and wide enough for its magnitude that sampled points do not coincide."""
    width = hi - lo
    if not math.isfinite(width):
        raise ConfigError(f"{source}: domain {name} = [{lo:g}, {hi:g}] is too wide: its width hi - lo "
                          f"must be a finite number (at most {sys.float_info.max:.4g})")
    if width < MIN_DOUBLES_IN_DOMAIN * math.ulp(max(abs(lo), abs(hi))):
        raise ConfigError(f"{source}: domain {name} = [{lo!r}, {hi!r}] is too narrow for its magnitude: "
                          f"it holds fewer than 2**24 distinct numbers, so sampled points would coincide")
    return lo, hi


def _tables(data: Mapping[str, Any], key: str, source: str) -> list[Mapping[str, Any]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise ConfigError(f"{source}: {key} must be an array of tables ([[{key}]]), got {value!r:.40}")
    return value


def _finite_data(expr: sp.Expr, what: str, source: str) -> sp.Expr:
    """Forcing and constraint data must be finite expressions (``1/0`` is zoo, not a value)."""
    if not_finite(expr):
        raise ConfigError(f"{source}: {what} is not finite ({expr})")
    return expr


def _reference(table: Any, problem: Problem) -> dict[str, sp.Expr] | None:
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise ConfigError(f"{problem.source}: [reference] must map field names to expressions")
    unknown = sorted(set(table) - set(problem.fields))
    if unknown:
        raise ConfigError(f"{problem.source}: [reference] names unknown field(s) {', '.join(unknown)}")
    out = {f: problem.parse(text, written=True) for f, text in table.items()}
    for f, expr in out.items():
        used = sorted(s.name for s in expr.free_symbols if s.name in problem.unknown_names)
        if used:
            raise ConfigError(f"{problem.source}: [reference] {f} uses the unknown {used[0]}; a reference is the "
                              f"solution itself, written with the coefficients' true values")
    return out


def _from_reference(problem: Problem, expr: sp.Expr, what: str, word: str = "reference") -> sp.Expr:
    if not problem.reference or set(problem.reference) != set(problem.fields):
        raise ConfigError(f"{problem.source}: {what} = \"{word}\" needs a [reference] for every field")
    forcing = problem.apply(expr, problem.reference)
    if not _TIDY.get():
        return forcing
    # tidier forcing for the teacher and the report; bounded, since a config's reference can keep
    # sympy.simplify busy for minutes
    return bounded_simplify(forcing, max_nodes=400, seconds=5.0) or forcing


def _equation(i: int, table: Mapping[str, Any], problem: Problem, source: str) -> Equation:
    where = f"equations[{i}]"
    unknown = sorted(set(table) - {"lhs", "rhs"})
    if unknown or "lhs" not in table:
        raise ConfigError(f"{source}: {where} needs 'lhs' (and optional 'rhs'); unknown: {', '.join(unknown) or '-'}")
    conditions: list[Condition] = []
    with _context(source, where):
        lhs = problem.parse(table["lhs"], allow_fields=True, written=True, conditions=conditions)
        rhs_text = table.get("rhs", 0)
        if rhs_text == "from_reference":
            rhs = _from_reference(problem, lhs, f"{where}.rhs", "from_reference")
        else:
            rhs = problem.parse(rhs_text, written=True, conditions=conditions)
    if not jets_in(lhs, problem.vocabulary):
        raise ConfigError(f"{source}: {where}.lhs does not involve any field ({', '.join(problem.fields)})")
    _finite_data(lhs, f"{where}.lhs", source)
    return Equation(str(table["lhs"]), lhs, _finite_data(rhs, f"{where}.rhs", source), str(rhs_text),
                    tuple(conditions))


def _points(table: Any, source: str) -> dict[str, int]:
    from desyr.extension.options import OptionError, validate

    try:
        return validate(SECTIONS["points"], table, "[points]")
    except OptionError as exc:
        raise ConfigError(f"{source}: {exc}") from None
