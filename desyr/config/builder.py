"""Problems written in SymPy: :func:`sympy_problem` turns ``sp.Function`` fields' equations, a domain of
symbol intervals and small typed constraints into the config table a TOML file holds, read with exactly
a TOML file's checks (``problem.to_toml()`` writes it). What the config language cannot say (an
integral, an unknown function, a derivative of an expression) is one :class:`ConfigError` line naming it.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef, UndefinedFunction
from sympy.printing.str import StrPrinter

from desyr.config.loading import problem_from_toml
from desyr.config.shorthands import Constraint, NormalDerivative, TimeDerivative
from desyr.errors import ConfigError
from desyr.model.nesting import NestingError, check_nesting
from desyr.model.problem import Problem
from desyr.model.toml_writer import TomlWriteError, dumps
from desyr.symbolic.special import SPECIAL_CLASSES

#: the functions the config's expression parser knows (docs/config.md), by class: a user's class that
#: is only *named* sin would print as sin and read back as another function
KNOWN_FUNCTIONS = (sp.sin, sp.cos, sp.tan, sp.exp, sp.log, sp.tanh, sp.sinh, sp.cosh, sp.asin, sp.acos, sp.atan,
                   sp.Abs, *SPECIAL_CLASSES)
KNOWN_NAMES = ("sin, cos, tan, exp, log, sqrt, tanh, sinh, cosh, asin, acos, atan, abs, sech, csch, coth, erf, erfc, "
               "airyai, airybi, besselj, bessely, besseli, besselk")
#: the sympy atoms a written expression may hold besides symbols and the known functions
PLAIN = (sp.Add, sp.Mul, sp.Pow, sp.Number, sp.NumberSymbol, sp.Tuple)
def sympy_problem(equations: Any, domain: Mapping[Any, Any], constraints: Iterable[Constraint] = (), *,
                  fields: Sequence[Any] | None = None, time: Any = None, reference: Any = None,
                  name: str = "problem", title: str | None = None, description: str | None = None,
                  source: str = "<sympy>", shape: str | None = None, unknowns: Mapping[Any, Any] | None = None,
                  parameters: Mapping[Any, Any] | None = None, observations: Mapping[Any, Any] | None = None,
                  **sections: Mapping[str, Any]) -> Problem:
    """A problem from SymPy objects, checked exactly as a config file is.

    ``equations``: one or a list of ``sp.Eq`` (or expressions, meaning ``= 0``) in applied fields
    ``u(x, t)`` and their ``Derivative`` s. ``domain``: ``{x: (0, 1), t: (0, 1)}`` in order; with
    ``shape="disk(center=(0, 0), radius=1)"`` (docs/config.md), the variables it spans come first,
    as ``{x: None, y: None, t: (0, 1)}``.
    ``fields``: the field functions (default: those in the equations, in order of appearance).
    ``reference``: ``{u: expr}`` (or one expression for one field). ``unknowns`` and ``parameters``:
    ``{nu: (lo, hi)}``, symbols the equations may use (docs/inverse.md, docs/parametric.md);
    ``observations``: ``{u: expr, "points": 80, "noise": 0.01}`` or ``{"file": "data.npz"}``.
    ``sections``: the other config tables as dicts (``search``, ``teacher``, ``points``,
    ``solvers``, ...), written as given."""
    source = source if source.isprintable() else shown(source)
    eqs = list(equations) if isinstance(equations, (list, tuple)) else [equations]
    if not eqs:
        raise ConfigError(f"{source}: at least one equation is required")
    strangers = [e for e in eqs if not isinstance(e, sp.Basic)]
    if strangers:      # never sympify text: it would run as Python (docs/security.md)
        raise ConfigError(f"{source}: an equation must be a sympy expression or sp.Eq, got "
                          f"{type(strangers[0]).__name__} {shown(strangers[0])}; a config written as text is TOML")
    if not isinstance(domain, Mapping):
        raise ConfigError(f"{source}: domain must be a mapping {{x: (lo, hi), ...}}, got {type(domain).__name__}")
    variables = [_symbol(v, "a domain variable", source) for v in domain]
    if len({v.name for v in variables}) != len(variables):
        raise ConfigError(f"{source}: two domain variables share a name: {', '.join(v.name for v in variables)}")
    functions = _fields(eqs, fields, source)
    ranges = {key: _ranges(table, key, source) for key, table in (("parameters", parameters), ("unknowns", unknowns))
              if table is not None}
    writer = _Writer(variables, functions, source, None if time is None else _symbol(time, "time", source),
                     [n for table in ranges.values() for n in table])
    data: dict[str, Any] = {"name": name, "title": title if title is not None else name}
    if description is not None:
        data["description"] = description
    if time is not None:
        data["time"] = _symbol(time, "time", source).name
    if [f.name for f in functions] != ["u"]:
        data["fields"] = [f.name for f in functions]
    data["domain"] = _domain(domain, variables, shape, source)
    data.update(ranges)
    data["equations"] = [writer.equation(e, i) for i, e in enumerate(eqs)]
    bounds = {v.name: tuple(data["domain"][v.name]) for v in variables if v.name in data["domain"]}
    tables = [writer.constraint(c, i, bounds) for i, c in enumerate(constraints)]
    if tables:
        data["constraints"] = tables
    if reference is not None:
        data["reference"] = writer.reference(reference)
    if observations is not None:
        data["observations"] = writer.observations(observations)
    for key, table in sections.items():
        if not isinstance(table, Mapping):
            raise ConfigError(f"{source}: {key}= must be a table (a dict), got {type(table).__name__}")
        data[key] = dict(table)
    try:
        check_nesting(data)
        text = dumps(data)
    except (TomlWriteError, NestingError) as exc:
        raise ConfigError(f"{source}: {shown(str(exc))[1:-1]}") from None
    except ValueError as exc:       # an integer of more than 4300 digits
        raise ConfigError(f"{source}: a value cannot be written as TOML ({shown(str(exc))[1:-1]})") from None
    return _compare(problem_from_toml(text, source), eqs, variables, source)


def _compare(problem: Problem, given: list[Any], variables: list[sp.Symbol], source: str) -> Problem:
    """``problem`` when the equations as read back are those given: a derivative's name or a printed expression that
    reads as something else would otherwise make the config another problem, silently."""
    for i, (eq, read) in enumerate(zip(given, problem.equations)):
        lhs, rhs = (eq.lhs, eq.rhs) if isinstance(eq, sp.Equality) else (eq, 0)
        if not isinstance(rhs, (sp.Basic, int, float)):
            continue
        mine = _plain(sp.sympify(lhs - rhs), variables)
        theirs = _plain(read.lhs - read.forcing, variables, problem)
        if sp.expand(mine - theirs) != 0 and sp.simplify(mine - theirs) != 0:
            raise ConfigError(f"{source}: equations[{i}] reads back as {shown(read.lhs - read.forcing)} = 0, not "
                              f"as given ({shown(lhs - rhs)} = 0)")
    return problem


def _plain(expr: sp.Expr, variables: list[sp.Symbol], problem: Problem | None = None) -> sp.Expr:
    """``expr`` with assumption-free symbols and a problem's jets as the derivatives they stand for, so that
    what was given and what was read compare."""
    names = {v.name: sp.Symbol(v.name) for v in variables}
    swaps: dict[sp.Basic, sp.Expr] = {}
    for node in sp.preorder_traversal(expr):
        jet = problem.vocabulary.jet_of(node) if problem is not None and isinstance(node, sp.Symbol) else None
        if jet is not None:
            applied = sp.Function(jet.field)(*names.values())
            swaps[node] = sp.Derivative(applied, *[names[v] for v in jet.wrt]) if jet.wrt else applied
        elif isinstance(node, AppliedUndef):
            swaps[node] = sp.Function(node.func.__name__)(*names.values())
    out = expr.xreplace(swaps) if swaps else expr
    return out.xreplace({s: sp.Symbol(s.name) for s in out.free_symbols if isinstance(s, sp.Symbol)})


def _symbol(value: Any, what: str, source: str) -> sp.Symbol:
    """A plain Symbol with an identifier for a name (a name is written into the config as it is)."""
    if isinstance(value, str) and value.isidentifier():
        return sp.Symbol(value)
    if type(value) is sp.Symbol and value.name.isidentifier():
        return value
    raise ConfigError(f"{source}: {what} must be a sympy Symbol named by an identifier, got "
                      f"{type(value).__name__} {shown(value)}")


def shown(value: Any) -> str:
    """A value for a one-line message: its repr, cut (a name may hold a newline)."""
    text = repr(str(value)) if isinstance(value, (sp.Basic, str)) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _domain(domain: Mapping[Any, Any], variables: list[sp.Symbol], shape: str | None, source: str
            ) -> dict[str, Any]:
    """``[domain]``: an interval per variable, or a shape over the first ones (given as None) and
    intervals for the rest."""
    spanned = [v for key, v in zip(domain, variables) if domain[key] is None]
    if shape is not None and not isinstance(shape, str):
        raise ConfigError(f"{source}: shape must be text such as \"disk(center=(0, 0), radius=1)\", got "
                          f"{type(shape).__name__}")
    if (shape is None) != (not spanned) or variables[:len(spanned)] != spanned:
        raise ConfigError(f"{source}: a shape spans the domain's first variables, given as None: "
                          "{x: None, y: None, t: (0, 1)} with shape=\"...\"; every other variable needs (lo, hi)")
    table: dict[str, Any] = {"shape": shape, "space": [v.name for v in spanned]} if shape is not None else {}
    for key, v in zip(domain, variables):
        if domain[key] is not None:
            table[v.name] = [_number(b, f"domain {v.name}", source) for b in _interval(domain[key], v, source)]
    return table


def _ranges(table: Any, what: str, source: str) -> dict[str, list[int | float]]:
    """``{nu: (lo, hi)}`` as the config's ``[parameters]`` or ``[unknowns]`` table (its reader checks the rest)."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: {what} must be a mapping {{nu: (lo, hi), ...}}, got {type(table).__name__}")
    out = {}
    for key, bounds in table.items():
        symbol = _symbol(key, f"a name in {what}", source)
        out[symbol.name] = [_number(b, f"{what} {symbol.name}", source)
                            for b in _interval(bounds, symbol, source, what)]
    return out


def _interval(value: Any, var: sp.Symbol, source: str, what: str = "domain") -> tuple[Any, Any]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ConfigError(f"{source}: {what} {var.name} must be an interval (lo, hi), got {value!r:.60}")
    return value[0], value[1]


def _number(value: Any, where: str, source: str) -> int | float:
    """A plain number for TOML: ints stay ints, sympy numbers (pi, 1/2) become floats."""
    if isinstance(value, bool):
        raise ConfigError(f"{source}: {where} must be a number, got {value!r}")
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, sp.Basic):          # text is never sympified: it would run as Python
        raise ConfigError(f"{source}: {where} must be a number or a sympy number, got {type(value).__name__} "
                          f"{shown(value)}")
    expr = value
    if expr.is_Integer:
        return int(expr)
    if not expr.is_number or not expr.is_real:
        raise ConfigError(f"{source}: {where} must be a real number, got {value!r:.60}")
    number = float(expr)
    if not math.isfinite(number):
        raise ConfigError(f"{source}: {where} must be finite, got {value!r:.60}")
    return number


def _fields(eqs: list[Any], fields: Sequence[Any] | None, source: str) -> list[UndefinedFunction]:
    if fields is not None:
        out = [f.func if isinstance(f, AppliedUndef) else f for f in fields]
        bad = [f for f in out if not isinstance(f, UndefinedFunction)]
        if bad:
            raise ConfigError(f"{source}: fields must be sympy Functions such as sp.Function('u'), got {shown(bad[0])}")
        return _named(out, source)
    # the fields are the functions the equations differentiate; any other is named as undefined later
    found: list[UndefinedFunction] = []
    for eq in eqs:
        for node in sp.preorder_traversal(_as_expr(eq)):
            if isinstance(node, sp.Derivative) and isinstance(node.expr, AppliedUndef) and node.expr.func not in found:
                found.append(node.expr.func)
    if not found:
        raise ConfigError(f"{source}: the equations hold no field: write them in applied functions such as "
                          "u(x, t) = sp.Function('u')(x, t) and their derivatives, or name them with fields=[u]")
    return _named(found, source)


def _named(fields: list[UndefinedFunction], source: str) -> list[UndefinedFunction]:
    bad = [f for f in fields if not f.__name__.isidentifier()]
    if bad:
        raise ConfigError(f"{source}: a field's name must be an identifier, got {shown(bad[0].__name__)}")
    return fields


def _as_expr(eq: Any) -> sp.Expr:
    return eq.lhs - eq.rhs if isinstance(eq, sp.Equality) else eq


class _Printer(StrPrinter):  # type: ignore[misc]   # sympy is untyped
    """sympy's str, with floats as Python prints them (so a config reads back the same doubles)."""

    def _print_Float(self, expr: sp.Float) -> str:
        return repr(float(expr))

    def _print_Abs(self, expr: sp.Abs) -> str:
        return f"abs({self._print(expr.args[0])})"


class _Writer:
    """SymPy expressions as the config's strings: fields and derivatives as jet names (``u_xt``)."""

    def __init__(self, variables: list[sp.Symbol], fields: list[UndefinedFunction], source: str,
                 time: sp.Symbol | None, constants: Iterable[str] = ()) -> None:
        self.variables, self.fields, self.source, self.time = variables, fields, source, time
        self.names = {v.name for v in variables} | set(constants)     # parameters and unknowns too

    def text(self, value: Any, where: str, allow_fields: bool) -> str | int | float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            return value      # "reference", "from_reference", or expression text: the reader parses it, boundedly
        if not isinstance(value, sp.Basic):
            raise ConfigError(f"{self.source}: {where}: expected a number, text or a sympy expression, got "
                              f"{type(value).__name__} {shown(value)}")
        jets: set[str] = set()
        expr = self._jets(value, where, jets) if allow_fields else value
        self._check(expr, where, jets)
        return str(_Printer({"order": "none"}).doprint(expr))

    def _jets(self, expr: sp.Basic, where: str, made: set[str]) -> sp.Basic:
        """Fields and their derivatives as the config's jet symbols (``u``, ``u_xt``); their names go to ``made``."""
        swaps: dict[sp.Basic, sp.Symbol] = {}
        for node in sp.preorder_traversal(expr):
            if isinstance(node, sp.Derivative):
                inner = node.expr
                if not isinstance(inner, AppliedUndef) or inner.func not in self.fields:
                    raise ConfigError(f"{self.source}: {where}: a derivative of {shown(inner)} is not a field's "
                                      "derivative; write derivatives of the fields, u(x, t).diff(x)")
                self._arguments(inner, where)
                if not all(v in self.variables for v, _ in node.variable_count):
                    raise ConfigError(f"{self.source}: {where}: {shown(node)} differentiates by something that is "
                                      "not a domain variable")
                swaps[node] = sp.Symbol(f"{inner.func.__name__}_" + "".join(v.name * n for v, n in node.variable_count))
            elif isinstance(node, AppliedUndef) and node.func in self.fields:
                self._arguments(node, where)
                swaps.setdefault(node, sp.Symbol(node.func.__name__))
        made.update(s.name for s in swaps.values())
        return expr.xreplace({k: v for k, v in swaps.items() if isinstance(k, sp.Derivative)}).xreplace(swaps)

    def _arguments(self, node: AppliedUndef, where: str) -> None:
        if list(node.args) != self.variables:
            raise ConfigError(f"{self.source}: {where}: {shown(node)} must be applied to the domain's variables "
                              f"({', '.join(v.name for v in self.variables)}) in order")

    def _check(self, expr: sp.Basic, where: str, jets: set[str]) -> None:
        """Only what the config's parser reads back as the same expression: sympy's own classes (a
        subclass could print as anything), plain symbols named as variables or jets, known functions."""
        for node in sp.preorder_traversal(expr):
            if isinstance(node, (sp.Integral, sp.Sum, sp.Product, sp.Limit)):
                raise ConfigError(f"{self.source}: {where}: {type(node).__name__.lower()} {shown(node)} cannot be "
                                  f"written in a config (only algebra, derivatives of the fields and {KNOWN_NAMES})")
            if isinstance(node, AppliedUndef):
                raise ConfigError(f"{self.source}: {where}: {shown(node)} is an undefined function, not a field of "
                                  f"this problem ({', '.join(f.__name__ for f in self.fields)}; name every field "
                                  "with fields=[...])")
            if isinstance(node, sp.Function) and type(node) not in KNOWN_FUNCTIONS:
                raise ConfigError(f"{self.source}: {where}: the function {shown(type(node).__name__)} is not one the "
                                  f"config language knows ({KNOWN_NAMES})")
            if not type(node).__module__.startswith("sympy."):
                raise ConfigError(f"{self.source}: {where}: {type(node).__name__} is not a sympy class; write the "
                                  "expression with sympy's own")
            if isinstance(node, sp.Symbol) and (type(node) is not sp.Symbol or node.name not in self.names | jets):
                raise ConfigError(f"{self.source}: {where}: {shown(node.name)} is not a variable of the domain "
                                  f"({', '.join(sorted(self.names))})")
            if not isinstance(node, (sp.Symbol, sp.Function, *PLAIN)):
                raise ConfigError(f"{self.source}: {where}: {type(node).__name__} {shown(node)} cannot be written "
                                  "in a config")

    def equation(self, eq: Any, i: int) -> dict[str, Any]:
        where = f"equations[{i}]"
        lhs, rhs = (eq.lhs, eq.rhs) if isinstance(eq, sp.Equality) else (eq, 0)
        if isinstance(rhs, sp.Basic) and rhs.has(*self.fields):     # fields on the right: all move left
            lhs, rhs = lhs - rhs, 0
        table = {"lhs": self.text(lhs, f"{where}.lhs", True)}
        if rhs != 0:
            table["rhs"] = self.text(rhs, f"{where}.rhs", False)
        return table

    def constraint(self, c: Any, i: int, bounds: Mapping[str, tuple[float, float]]) -> dict[str, Any]:
        where = f"constraints[{i}]"
        if not isinstance(c, Constraint):
            raise ConfigError(f"{self.source}: {where}: expected Dirichlet, Neumann, Initial, PointValue or "
                              f"Constraint, got {type(c).__name__}")
        table: dict[str, Any] = {}
        if c.label is not None:
            table["label"] = c.label
        table["operator"] = self.text(self._operator(c.operator, bounds, where), f"{where}.operator", True)
        table["on"] = self._on(c.on, where)
        table["value"] = self.text(c.value, f"{where}.value", False)
        if c.points is not None:
            table["points"] = c.points
        return table

    def _operator(self, op: Any, bounds: Mapping[str, tuple[float, float]], where: str) -> Any:
        if isinstance(op, UndefinedFunction):
            return op(*self.variables)
        if isinstance(op, TimeDerivative):
            if self.time is None:
                raise ConfigError(f"{self.source}: {where}: Initial needs time= (the variable that is time)")
            return self._applied(op.field).diff(self.time, op.order) if op.order else self._applied(op.field)
        if isinstance(op, NormalDerivative):
            var = _symbol(op.variable, "the Neumann face's variable", self.source)
            lo, hi = bounds[var.name] if var.name in bounds else (None, None)
            at = _number(op.at, f"{where}.on", self.source)
            if at not in (lo, hi):
                raise ConfigError(f"{self.source}: {where}: a Neumann constraint needs a face of the box: "
                                  f"{var.name} = {lo} or {hi}, got {at}")
            d = self._applied(op.field).diff(var)
            return -d if at == lo else d
        return op

    def _applied(self, field: Any) -> sp.Expr:
        return field if isinstance(field, AppliedUndef) else field(*self.variables)

    def _on(self, on: Any, where: str) -> Any:
        if isinstance(on, str):
            return on
        if isinstance(on, Mapping):
            return ", ".join(f"{_symbol(k, f'{where}.on', self.source).name} = "
                             f"{_number(v, f'{where}.on', self.source)!r}" for k, v in on.items())
        if isinstance(on, (list, tuple)):
            return [self._on(o, where) for o in on]
        raise ConfigError(f"{self.source}: {where}.on must be a set word, {{x: 0}} or a list of them, got {on!r:.60}")

    def observations(self, table: Any) -> dict[str, Any]:
        """``{u: expr, "points": n, "noise": s, "seed": k}`` or ``{"file": path, "noise": s}``: the
        expressions written as text, the rest as given (the config's reader checks it all)."""
        if not isinstance(table, Mapping):
            raise ConfigError(f"{self.source}: observations must be a mapping, got {type(table).__name__}")
        out = {}
        for key, value in table.items():
            name = key.func.__name__ if isinstance(key, AppliedUndef) else getattr(key, "__name__", str(key))
            if name == "file" and isinstance(value, (str, PurePath)) and str(value):
                # absolute, so that the config a result carries finds its data from any folder
                value = str(Path(value).resolve())
            plain = name in ("file", "points", "noise", "seed")
            out[name] = value if plain else self.text(value, f"observations.{name}", False)
        return out

    def reference(self, reference: Any) -> dict[str, Any]:
        if not isinstance(reference, Mapping):
            if len(self.fields) != 1:
                raise ConfigError(f"{self.source}: reference: give {{field: expression}} for several fields")
            reference = {self.fields[0]: reference}
        out = {}
        names = {f.__name__ for f in self.fields}
        for key, expr in reference.items():
            name = key.func.__name__ if isinstance(key, AppliedUndef) else getattr(key, "__name__", key)
            if name not in names:
                raise ConfigError(f"{self.source}: reference: {shown(key)} is not a field of this problem "
                                  f"({', '.join(sorted(names))})")
            out[name] = self.text(expr, f"reference.{name}", False)
        return out
