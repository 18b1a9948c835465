"""Safe parsing of expression strings into sympy, and derivative ("jet") names.

Config files and search outputs are untrusted text, so nothing here calls
``eval`` or ``sympify`` on a raw string.  The text is parsed with :mod:`ast`,
every node is checked against a whitelist, and the sympy expression is built
from the checked tree.
"""
from __future__ import annotations

import ast
import keyword
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import sympy as sp
from sympy.printing.str import StrPrinter

from desyr.symbolic.conditions import Condition, of_bessel, of_call, of_division, of_power
from desyr.symbolic.literals import MAX_BITS, Decimals, decimal, long_decimal, lost_literal, non_real
from desyr.symbolic.nodes import MAX_EXPONENT as MAX_EXPONENT
from desyr.symbolic.nodes import ExpressionError as ExpressionError
from desyr.symbolic.nodes import checked_condition, checked_exact, checked_number, number, power
from desyr.symbolic.nodes import short as _short
from desyr.symbolic.operator_names import RESERVED, SERIES
from desyr.symbolic.series import not_finite
from desyr.symbolic.series_parse import Names, build_eigenvalue, build_factorial, build_sum
from desyr.symbolic.special import BESSEL, UNARY, bessel_order
from desyr.symbolic.syntax import MAX_TEXT as MAX_TEXT
from desyr.symbolic.syntax import SyntaxProblem, describe, read_tree, syntax_hint

FUNCTIONS: dict[str, Callable[..., sp.Expr]] = {
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan,
    "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt,
    "tanh": sp.tanh, "sinh": sp.sinh, "cosh": sp.cosh,
    "asin": sp.asin, "acos": sp.acos, "atan": sp.atan,
    "abs": sp.Abs, "Abs": sp.Abs,
    **UNARY,                    # erf, erfc, airyai, airybi, sech, csch, coth (desyr.symbolic.special)
}
#: ``name(order, argument)``: a constant integer or half-integer order (desyr.symbolic.special)
TWO_ARGUMENTS: dict[str, Callable[..., sp.Expr]] = dict(BESSEL)
CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "E": sp.E}

_BINOPS = {ast.Add: sp.Add, ast.Sub: lambda a, b: a - b, ast.Mult: sp.Mul,
           ast.Div: lambda a, b: a / b, ast.Pow: sp.Pow}


#: Bounds on untrusted expression text (config files, search outputs).  Generous for
#: anything a PDE or a symbolic search produces; they exist so that hostile or broken
#: text gives a one-line error instead of a hang, a RecursionError or a MemoryError.
MAX_NODES = 1000           # syntax-tree nodes
MAX_DEPTH = 200            # syntax-tree nesting depth
MAX_CALL_DEPTH = 12        # nested function calls: symbolic work on them grows exponentially with the depth

#: Names that an expression vocabulary may not define: they already mean something
#: in expressions, or in the numpy code that expressions are compiled to.
RESERVED_NAMES = RESERVED


def check_name(name: object, what: str = "name") -> str:
    """``name`` if it may be used as a variable, field or parameter name, else :class:`ExpressionError`."""
    if not isinstance(name, str) or not name:
        raise ExpressionError(f"{what} must be a non-empty string, got {name!r}")
    if not name.isascii() or not name.isidentifier():
        raise ExpressionError(f"{what} {name!r} is not an ASCII identifier (letters, digits, _; not starting with a digit)")
    if name in RESERVED_NAMES or keyword.iskeyword(name):
        raise ExpressionError(f"{what} {name!r} is reserved (a function, constant or keyword); choose another name")
    return name


@dataclass(frozen=True)
class Jet:
    """A field or one of its partial derivatives, e.g. ``u_xt`` = d²u/dxdt."""

    field: str
    wrt: tuple[str, ...]      # variables differentiated by, in problem variable order

    @property
    def order(self) -> int:
        return len(self.wrt)

    @property
    def name(self) -> str:
        return self.field if not self.wrt else f"{self.field}_{''.join(self.wrt)}"


def _check_unambiguous(variables: Sequence[str], field: str) -> None:
    """Refuse variable names that split some derivative suffix two ways: with x and xx, ``u_xx`` is
    d2u/dx2 and du/dxx. The Sardinas-Patterson test: follow every dangling rest of one split against
    another; a rest that is itself a name closes two different splits of one suffix."""
    names = set(variables)
    # a rest and the two splits (as lists of names) that left it: ahead + rest == behind
    todo = [(w[len(v):], [v], [w]) for v in names for w in names if w != v and w.startswith(v)]
    seen: set[str] = set()
    while todo:
        rest, behind, ahead = todo.pop()
        if rest in seen:
            continue
        seen.add(rest)
        for v in names:
            if v == rest:
                one, two = "".join([*behind, v]), (", ".join([*behind, v]), ", ".join(ahead))
                raise ExpressionError(f"the variable names make a derivative name ambiguous: {field}_{one} is the "
                                      f"derivative by {two[0]} and by {two[1]}; "
                                      "rename a variable so that no name is a run of others (x, xx or a, b, ab)")
            if v.startswith(rest):
                todo.append((v[len(rest):], ahead, [*behind, v]))
            elif rest.startswith(v):
                todo.append((rest[len(v):], [*behind, v], ahead))


class Vocabulary:
    """Which names an expression may use: variables, fields (with derivatives), parameters."""

    def __init__(self, variables: Sequence[str], fields: Sequence[str] = (),
                 extra: Mapping[str, sp.Expr] | None = None) -> None:
        self.variables = tuple(check_name(v, "variable name") for v in variables)
        self.fields = tuple(check_name(f, "field name") for f in fields)
        for name in extra or {}:
            check_name(name, "parameter name")
        seen: set[str] = set()
        for name in [*self.variables, *self.fields, *(extra or {})]:
            if name in seen:
                raise ExpressionError(f"name {name!r} is defined twice (variables, fields and parameters must differ)")
            seen.add(name)
        if self.fields:
            _check_unambiguous(self.variables, self.fields[0])
        # read-only: a problem's vocabulary is part of the frozen problem every component reads
        self.var_symbols: Mapping[str, sp.Symbol] = MappingProxyType({v: sp.Symbol(v, real=True) for v in self.variables})
        self.extra: Mapping[str, sp.Expr] = MappingProxyType(dict(extra or {}))
        self._jets: dict[sp.Symbol, Jet] = {}

    def __getstate__(self) -> dict[str, Any]:
        # a mapping proxy does not pickle or deep-copy; its plain dict does
        return {**self.__dict__, "var_symbols": dict(self.var_symbols), "extra": dict(self.extra)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, var_symbols=MappingProxyType(state["var_symbols"]),
                             extra=MappingProxyType(state["extra"]))

    # jets ------------------------------------------------------------------
    def jet_symbol(self, jet: Jet) -> sp.Symbol:
        sym = sp.Symbol(jet.name, real=True)
        self._jets[sym] = jet
        return sym

    def jet_of(self, symbol: sp.Symbol) -> Jet | None:
        return self._jets.get(symbol)

    @property
    def jets(self) -> dict[sp.Symbol, Jet]:
        return dict(self._jets)

    def parse_jet(self, name: str) -> Jet | None:
        """``u`` -> Jet(u, ()), ``u_xt`` -> Jet(u, (x, t)); None if not a jet name."""
        if name in self.fields:
            return Jet(name, ())
        head, sep, suffix = name.rpartition("_")
        if not sep or head not in self.fields or not suffix:
            return None
        wrt = self._split_variables(suffix)
        if wrt is None:
            return None
        order = {v: i for i, v in enumerate(self.variables)}
        return Jet(head, tuple(sorted(wrt, key=order.__getitem__)))

    def _split_variables(self, suffix: str) -> list[str] | None:
        # every way to end a split at each position, so that a variable "x1" is not read as "x" then "1"
        # and a, ab, bc split "abc" as a, bc; the names admit at most one split (_check_unambiguous)
        ways: list[list[str] | None] = [[]] + [None] * len(suffix)
        for i in range(len(suffix)):
            done = ways[i]
            if done is None:
                continue
            for v in self.variables:
                if suffix.startswith(v, i) and ways[i + len(v)] is None:
                    ways[i + len(v)] = [*done, v]
        return ways[-1]

    # names -----------------------------------------------------------------
    def resolve(self, name: str) -> sp.Expr:
        if name in self.var_symbols:
            return self.var_symbols[name]
        if name in self.extra:
            return self.extra[name]
        if name in CONSTANTS:
            return CONSTANTS[name]
        jet = self.parse_jet(name)
        if jet is not None:
            return self.jet_symbol(jet)
        known = [*self.variables, *self.fields, *sorted(self.extra)] + sorted(CONSTANTS)
        hint = ""
        field = next((f for f in self.fields if name.startswith(f + "_")), None)
        if field is not None and self.variables:     # a derivative in a variable the problem does not have
            v = self.variables[0]
            hint = (f"; a derivative is the field, '_' and variables of the domain "
                    f"({', '.join(self.variables)}): {field}_{v}, {field}_{v}{v}")
        raise ExpressionError(f"unknown name '{name}' (known: {', '.join(known)}){hint}")


def parse_expression(text: str | int | float, vocabulary: Vocabulary, *, written: bool = False,
                     conditions: list[Condition] | None = None) -> sp.Expr:
    """Parse ``text`` into sympy using only whitelisted constructs.

    ``written``: each decimal is the rational its digits spell (``1.397`` -> 1397/1000), so that
    ``3*pi/1.397`` stays ``3000*pi/1397`` instead of folding into a float: how a config's own numbers
    are read. Without it (a searcher's or a user's formula) a decimal is a float to identify.

    The text, the syntax tree and every exact number are bounded (``MAX_*``); an
    expression that is undefined everywhere (``1/0``, ``log(0)``, ``1/(x-x)``) or
    infinite is refused.  Every failure is one :class:`ExpressionError`.

    ``conditions``: where given, the domain condition of each node as written (``sqrt(u)`` needs
    ``u >= 0``) is appended to it, before SymPy's evaluation can drop it (:mod:`desyr.symbolic.conditions`).
    """
    if isinstance(text, bool):
        raise ExpressionError(f"expected an expression, got {text!r}")
    if isinstance(text, (int, float)):
        if isinstance(text, float) and not math.isfinite(text):
            raise ExpressionError(f"expected a finite number, got {text!r}")
        if isinstance(text, int) and text.bit_length() > MAX_BITS:
            raise ExpressionError(f"integer with {text.bit_length()} bits is too large (at most {MAX_BITS})")
        return sp.Integer(text) if isinstance(text, int) else decimal(text) if written else sp.Float(text)
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError(f"expected an expression string, got {_short(text)}")
    try:
        tree = read_tree(text)
    except SyntaxProblem as exc:
        raise ExpressionError(str(exc)) from None
    _check_size(tree, text)
    lost = lost_literal(tree, text.strip(), written)
    if lost is not None:
        raise ExpressionError(f"the number {_short(lost, 40)} in {_short(text)} is beyond what DeSyR reads "
                              f"(a double would make it 0, or it needs over {MAX_BITS} bits); "
                              f"write a number within a double's range, or leave the term out")
    body = Decimals(text.strip()).visit(tree) if written else tree
    try:
        expr = _build(body, vocabulary, text, conditions)
    except (RecursionError, MemoryError, OverflowError):
        raise ExpressionError(f"expression {_short(text)} is too large to build") from None
    if not_finite(expr):
        raise ExpressionError(f"expression {_short(text)} is undefined or infinite (it simplifies to {expr}); "
                              f"check for division by zero or log(0)")
    imaginary = non_real(expr)
    if imaginary is not None:
        raise ExpressionError(f"expression {_short(text)} has the non-real number {_short(str(imaginary), 40)}: "
                              f"values, fields and equations are real")
    return expr


def _check_size(root: ast.AST, text: str) -> None:
    """Node count, nesting depth and call nesting of the syntax tree, iteratively (no recursion)."""
    stack, nodes = [(root, 1, 0)], 0
    while stack:
        node, depth, calls = stack.pop()
        nodes += 1
        calls += isinstance(node, ast.Call)
        if nodes > MAX_NODES:
            raise ExpressionError(f"expression {_short(text)} has more than {MAX_NODES} syntax nodes")
        if depth > MAX_DEPTH:
            raise ExpressionError(f"expression {_short(text)} is nested more than {MAX_DEPTH} levels deep")
        if calls > MAX_CALL_DEPTH:
            raise ExpressionError(f"expression {_short(text)} nests function calls more than {MAX_CALL_DEPTH} deep")
        stack.extend((child, depth + 1, calls) for child in ast.iter_child_nodes(node))


def _build(node: ast.AST, vocab: Names, text: str, notes: list[Condition] | None = None) -> sp.Expr:
    """The SymPy expression of ``node``, each node checked as it is built (:func:`desyr.symbolic.nodes.checked_number`)."""
    return checked_number(_build_node(node, vocab, text, notes), _segment(text, node), text)


def _build_node(node: ast.AST, vocab: Names, text: str, notes: list[Condition] | None) -> sp.Expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        long = long_decimal(_segment(text, node).replace("_", ""), node.value) \
            if isinstance(node.value, float) and math.isfinite(node.value) else None
        return long if long is not None else number(node.value, text)
    if isinstance(node, ast.Name):
        return vocab.resolve(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _build(node.left, vocab, text, notes), _build(node.right, vocab, text, notes)
        written = _segment(text, node)
        pow_ = isinstance(node.op, ast.Pow)
        # checked before its condition is noted, so that a non-real number is named as one
        built = checked_number(power(left, right, text, written) if pow_ else _BINOPS[type(node.op)](left, right),
                               written, text)
        if notes is not None and isinstance(node.op, (ast.Pow, ast.Div)):
            _note(notes, of_power(left, right, written) if pow_ else of_division(right, written), text)
        return checked_exact(built, text)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _build(node.operand, vocab, text, notes)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call):
        return _build_call(node, vocab, text, notes)
    # u'' parses as a string literal (u-prefixed): the prime hint applies there too
    raise ExpressionError(f"{describe(node)} is not allowed in {_short(text)}{syntax_hint(text)}")


def _segment(text: str, node: ast.AST) -> str:
    return ast.get_source_segment(text.strip(), node) or ast.unparse(node)


def _note(notes: list[Condition], condition: Condition | None, text: str) -> None:
    if condition is not None:
        notes.append(checked_condition(condition, text))


def _build_call(node: ast.Call, vocab: Names, text: str, notes: list[Condition] | None) -> sp.Expr:
    if not isinstance(node.func, ast.Name):
        raise ExpressionError(f"call of {describe(node.func)} is not allowed in {_short(text)}")
    name = node.func.id
    if name in vocab.fields:
        raise ExpressionError(f"{name}(...) is not an expression here: write the field as {name} (its derivatives "
                              f"{name}_x, ...); a condition's place goes in on, e.g. on = \"x = 0\"")
    if name in TWO_ARGUMENTS:
        return _build_bessel(node, vocab, text, notes)
    if name in SERIES:
        return _SERIES_BUILDERS.get(name, build_eigenvalue)(node, vocab, text, notes,
                                                           lambda n, v, c: _build(n, v, text, c))
    if name not in FUNCTIONS:
        allowed = sorted([*FUNCTIONS, *TWO_ARGUMENTS, *SERIES])
        raise ExpressionError(f"function '{name}' is not allowed in {_short(text)} (allowed: {', '.join(allowed)})")
    if node.keywords or len(node.args) != 1:
        raise ExpressionError(f"function '{name}' takes exactly one positional argument in {_short(text)}")
    argument = _build(node.args[0], vocab, text, notes)
    built = checked_number(FUNCTIONS[name](argument), _segment(text, node), text)
    if notes is not None:
        _note(notes, of_call(name, argument, _segment(text, node)), text)
    return checked_exact(built, text)


def _build_bessel(node: ast.Call, vocab: Names, text: str, notes: list[Condition] | None) -> sp.Expr:
    """``besselj(order, argument)`` and its kin: the order a constant integer or half-integer."""
    name = node.func.id if isinstance(node.func, ast.Name) else "?"
    if node.keywords or len(node.args) != 2:
        raise ExpressionError(f"function '{name}' takes exactly two positional arguments (a constant order, then "
                              f"the argument) in {_short(text)}")
    written = _segment(text, node.args[0])
    try:
        order = bessel_order(_build(node.args[0], vocab, text, notes))
    except ValueError as exc:
        raise ExpressionError(f"the order {_short(written, 30)} of {name} in {_short(text)} {exc}") from None
    argument = _build(node.args[1], vocab, text, notes)
    built = checked_number(TWO_ARGUMENTS[name](order, argument), _segment(text, node), text)
    if notes is not None:
        _note(notes, of_bessel(name, order, argument, _segment(text, node)), text)
    return checked_exact(built, text)


_SERIES_BUILDERS = {"Sum": build_sum, "factorial": build_factorial}


def complexity(expr: sp.Expr) -> int:
    """Node count of the sympy expression tree (n-ary sums and products count once)."""
    return sum(1 for _ in sp.preorder_traversal(expr))


class _RoundTripPrinter(StrPrinter):  # type: ignore[misc]  # SymPy's printers are untyped (Any)
    """Floats printed with Python's shortest round-trip repr, so text -> float is exact."""

    def _print_Float(self, expr: sp.Float) -> str:
        return repr(float(expr))


def expression_text(expr: sp.Expr | None) -> str | None:
    """A sympy-parsable string whose constants read back to the same doubles."""
    return _RoundTripPrinter({"order": "none"}).doprint(expr) if expr is not None else None
