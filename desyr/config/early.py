"""The config's expressions checked before SymPy loads: their syntax and the names they use.

Most wrong expressions in a config are a typo (an unclosed parenthesis, ``^`` for ``**``, a
derivative in a variable the problem lacks, a misspelt function or parameter).  Reading the
config fully needs SymPy (about half a second); these checks read each expression with
:mod:`ast` against the problem's vocabulary (variables, fields and their derivative names,
parameters, unknowns, the expression language's functions and constants), so such a config
fails in a fraction of a second, with the one-line error the full reader gives, and starts no
helper process.  The full reader (:mod:`desyr.config.reading`) stays the authority: anything
this module is unsure of (a malformed table, a shape whose variables it cannot name) it leaves
to it, and it never refuses a config the full reader accepts.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from typing import Any

from desyr.errors import ConfigError
from desyr.symbolic.operator_names import CONSTANTS, FUNCTIONS, SERIES, TWO_ARGUMENTS
from desyr.symbolic.syntax import SyntaxProblem, describe, read_tree, short, syntax_hint

#: shape names by the number of their spatial variables (a box's is its corners' length)
_SHAPE_DIM = {"disk": 2, "annulus": 2, "ellipse": 2, "polygon": 2, "ball": 3, "cylinder": 3}
_DEFAULT_SPACE = ("x", "y", "z")
_SHAPE_KEYS = {"shape", "space", "center", "radius", "inner", "outer", "semi_axes", "vertices", "lo", "hi"}
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CORNER = re.compile(r"\blo\s*=\s*[(\[]([^)\]]*)")


class _Names:
    """Which names an expression may use, as :class:`desyr.symbolic.expressions.Vocabulary` resolves them."""

    def __init__(self, variables: list[str], fields: list[str], unknowns: list[str]) -> None:
        self.variables, self.fields, self.unknowns = variables, fields, unknowns

    def known(self, name: str, normal: bool) -> bool:
        if name in self.variables or name in self.unknowns or name in CONSTANTS or name in self.fields:
            return True
        head, sep, suffix = name.rpartition("_")
        if not sep or head not in self.fields or not suffix:
            return False
        return (normal and suffix == "n") or self._splits(suffix)

    def _splits(self, suffix: str) -> bool:
        reached = [True] + [False] * len(suffix)
        for i in range(len(suffix)):
            if reached[i]:
                for v in self.variables:
                    if suffix.startswith(v, i):
                        reached[i + len(v)] = True
        return reached[-1]

    def unknown_name(self, name: str) -> str:
        """The full reader's message for a name it cannot resolve."""
        known = [*self.variables, *self.fields, *sorted(self.unknowns), *sorted(CONSTANTS)]
        field = next((f for f in self.fields if name.startswith(f + "_")), None)
        hint = ""
        if field is not None and self.variables:
            v = self.variables[0]
            hint = (f"; a derivative is the field, '_' and variables of the domain "
                    f"({', '.join(self.variables)}): {field}_{v}, {field}_{v}{v}")
        return f"unknown name '{name}' (known: {', '.join(known)}){hint}"


def check_expressions(data: Mapping[str, Any], source: str) -> None:
    """Refuse an expression of the config that cannot parse or names something the problem lacks."""
    names = _names(data)
    if names is None:
        return
    for where, text, normal in _expressions(data):
        message = _problem_of(text, names, normal)
        if message is not None:
            raise ConfigError(f"{source}: {where}: {message}")


def _names(data: Mapping[str, Any]) -> _Names | None:
    """The problem's vocabulary, or None where the tables are not yet as the reader needs them."""
    domain, fields = data.get("domain"), data.get("fields", ["u"])
    parameters, unknowns = data.get("parameters", {}), data.get("unknowns", {})
    fields = [fields] if isinstance(fields, str) else fields
    if not (isinstance(domain, Mapping) and isinstance(parameters, Mapping) and isinstance(unknowns, Mapping)
            and isinstance(fields, list) and all(isinstance(f, str) for f in fields)):
        return None
    shape_keys = _SHAPE_KEYS if "shape" in domain else set()      # a box's variable may be called radius
    variables = _space(domain) + [k for k in domain
                                  if k not in shape_keys and not (k == "time" and isinstance(domain[k], str))]
    if not all(isinstance(v, str) for v in variables):
        return None
    variables = list(dict.fromkeys([*variables, *map(str, parameters)]))     # a cylinder's z: once
    return _Names(variables, list(fields), [str(k) for k in unknowns])


def _space(domain: Mapping[str, Any]) -> list[str]:
    """The shape's spatial variables: those named, else the default ones of its dimension (all three
    where the dimension is not plain from its text: a name too many never refuses a valid config)."""
    if "shape" not in domain:
        return []
    space = domain.get("space")
    if isinstance(space, list):
        return list(space)
    text = domain["shape"] if isinstance(domain["shape"], str) else ""
    dims = {_SHAPE_DIM[name] for name in _IDENTIFIER.findall(text) if name in _SHAPE_DIM}
    corner = _CORNER.search(text)            # a box's: box(lo=(0, 0), ...)
    if corner is not None:
        dims.add(corner.group(1).count(",") + 1)
    elif isinstance(domain.get("lo"), list):     # the table form: shape = "box", lo = [0, 0]
        dims.add(len(domain["lo"]))
    dim = dims.pop() if len(dims) == 1 else 3
    return list(_DEFAULT_SPACE[:dim])


def _expressions(data: Mapping[str, Any]) -> Iterator[tuple[str, Any, bool]]:
    """``(where, text, normal)`` of each expression, in the full reader's order; ``normal``: ``u_n``
    is a name there (a constraint's operator).  The texts that stand for something else (``rhs =
    "from_reference"``, ``value = "reference"``) are not expressions."""
    reference = data.get("reference")
    if isinstance(reference, Mapping):
        for text in reference.values():
            yield "reference", text, False
    for i, table in enumerate(_tables(data.get("equations"))):
        yield f"equations[{i}]", table.get("lhs"), False
        if table.get("rhs") != "from_reference":
            yield f"equations[{i}]", table.get("rhs"), False
    for i, table in enumerate(_tables(data.get("constraints"))):
        yield f"constraints[{i}]", table.get("operator"), True
        if table.get("value") != "reference":
            yield f"constraints[{i}]", table.get("value"), False
    observations = data.get("observations")
    if isinstance(observations, Mapping) and "file" not in observations:
        for field, text in observations.items():
            if field not in ("points", "noise", "seed"):
                yield f"[observations] {field}", text, False


def _tables(value: Any) -> list[Mapping[str, Any]]:
    return [t for t in value if isinstance(t, Mapping)] if isinstance(value, list) else []


def _problem_of(text: Any, names: _Names, normal: bool) -> str | None:
    """The reader's message for ``text``'s first syntax or name error, else None (also for what this
    check leaves to the reader: numbers, other types, blank text)."""
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        tree = read_tree(text)
    except SyntaxProblem as exc:
        return str(exc)
    return _first_bad_name(tree, names, normal, text)


#: the arithmetic the language has (desyr.symbolic.expressions._BINOPS)
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def _first_bad_name(node: ast.AST, names: _Names, normal: bool, text: str) -> str | None:
    """The reader's first error among the names and constructs, depth first and left to right as it
    builds: an unknown name or function, a field called as a function, a construct the language
    lacks.  A call with the wrong number of arguments stops the walk: the reader words that.  Inside
    ``Sum(term, (n, 1, oo))`` the index is a name of the term; the ranges are the reader's to check."""
    stack: list[tuple[ast.AST, frozenset[str]]] = [(node, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            continue
        if isinstance(node, ast.Name):
            if node.id not in bound and not names.known(node.id, normal):
                return names.unknown_name(node.id)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
            stack.extend(((node.right, bound), (node.left, bound)))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            stack.append((node.operand, bound))
        elif isinstance(node, ast.Call):
            message = _bad_call(node, names, text)
            if message is not None:
                return message
            name = node.func.id if isinstance(node.func, ast.Name) else ""
            if name == "Sum":
                indices = _indices(node)
                if indices is None:
                    return None
                stack.append((node.args[0], bound | indices))
                continue
            arity = SERIES.get(name, 2 if name in TWO_ARGUMENTS else 1)
            if node.keywords or len(node.args) != arity:
                return None
            stack.extend((a, bound) for a in reversed(node.args))
        else:
            return f"{describe(node)} is not allowed in {short(text)}{syntax_hint(text)}"
    return None


def _indices(node: ast.Call) -> frozenset[str] | None:
    """The index names of ``Sum(term, (n, 1, oo), ...)``, or None where the ranges are not as the
    reader wants them (it words the error)."""
    ranges = node.args[1:]
    if node.keywords or not ranges or not all(isinstance(r, ast.Tuple) and r.elts and isinstance(r.elts[0], ast.Name)
                                              for r in ranges):
        return None
    return frozenset(r.elts[0].id for r in ranges if isinstance(r, ast.Tuple) and isinstance(r.elts[0], ast.Name))


def _bad_call(node: ast.Call, names: _Names, text: str) -> str | None:
    if not isinstance(node.func, ast.Name):
        return f"call of {describe(node.func)} is not allowed in {short(text)}"
    name = node.func.id
    if name in names.fields:
        return (f"{name}(...) is not an expression here: write the field as {name} (its derivatives "
                f"{name}_x, ...); a condition's place goes in on, e.g. on = \"x = 0\"")
    if name not in FUNCTIONS and name not in TWO_ARGUMENTS and name not in SERIES:
        allowed = sorted([*FUNCTIONS, *TWO_ARGUMENTS, *SERIES])
        return f"function '{name}' is not allowed in {short(text)} (allowed: {', '.join(allowed)})"
    return None
