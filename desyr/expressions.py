"""Safe parsing of expression strings into sympy, and derivative ("jet") names.

Config files and search outputs are untrusted text, so nothing here calls
``eval`` or ``sympify`` on a raw string.  The text is parsed with :mod:`ast`,
every node is checked against a whitelist, and the sympy expression is built
from the checked tree.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import sympy as sp
from sympy.printing.str import StrPrinter

FUNCTIONS: dict[str, Callable[..., sp.Expr]] = {
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan,
    "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt,
    "tanh": sp.tanh, "sinh": sp.sinh, "cosh": sp.cosh,
    "asin": sp.asin, "acos": sp.acos, "atan": sp.atan,
    "abs": sp.Abs, "Abs": sp.Abs,
}
CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "E": sp.E}

_BINOPS = {ast.Add: sp.Add, ast.Sub: lambda a, b: a - b, ast.Mult: sp.Mul,
           ast.Div: lambda a, b: a / b, ast.Pow: sp.Pow}


class ExpressionError(ValueError):
    """An expression string could not be accepted; the message says why."""


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


class Vocabulary:
    """Which names an expression may use: variables, fields (with derivatives), parameters."""

    def __init__(self, variables: Sequence[str], fields: Sequence[str] = (),
                 extra: Mapping[str, sp.Expr] | None = None) -> None:
        self.variables = list(variables)
        self.fields = list(fields)
        self.var_symbols = {v: sp.Symbol(v, real=True) for v in self.variables}
        self.extra = dict(extra or {})
        self._jets: dict[sp.Symbol, Jet] = {}

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
        # Longest match first so that a variable "x1" is not read as "x" then "1".
        names = sorted(self.variables, key=len, reverse=True)
        out: list[str] = []
        i = 0
        while i < len(suffix):
            for v in names:
                if suffix.startswith(v, i):
                    out.append(v)
                    i += len(v)
                    break
            else:
                return None
        return out

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
        known = self.variables + self.fields + sorted(self.extra) + sorted(CONSTANTS)
        raise ExpressionError(f"unknown name '{name}' (known: {', '.join(known)})")


def parse_expression(text: str | int | float, vocabulary: Vocabulary) -> sp.Expr:
    """Parse ``text`` into sympy using only whitelisted constructs."""
    if isinstance(text, bool):
        raise ExpressionError(f"expected an expression, got {text!r}")
    if isinstance(text, (int, float)):
        return sp.Integer(text) if isinstance(text, int) else sp.Float(text)
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError(f"expected an expression string, got {text!r}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {text!r}: {exc.msg}") from None
    return _build(tree.body, vocabulary, text)


def _build(node: ast.AST, vocab: Vocabulary, text: str) -> sp.Expr:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return sp.Integer(node.value) if isinstance(node.value, int) else sp.Float(node.value)
    if isinstance(node, ast.Name):
        return vocab.resolve(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _build(node.left, vocab, text), _build(node.right, vocab, text)
        return _BINOPS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _build(node.operand, vocab, text)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call):
        return _build_call(node, vocab, text)
    raise ExpressionError(f"{_describe(node)} is not allowed in {text!r}")


def _build_call(node: ast.Call, vocab: Vocabulary, text: str) -> sp.Expr:
    if not isinstance(node.func, ast.Name):
        raise ExpressionError(f"call of {_describe(node.func)} is not allowed in {text!r}")
    name = node.func.id
    if name not in FUNCTIONS:
        raise ExpressionError(
            f"function '{name}' is not allowed in {text!r} (allowed: {', '.join(sorted(FUNCTIONS))})"
        )
    if node.keywords or len(node.args) != 1:
        raise ExpressionError(f"function '{name}' takes exactly one positional argument in {text!r}")
    return FUNCTIONS[name](_build(node.args[0], vocab, text))


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"attribute access '.{node.attr}'"
    if isinstance(node, ast.BinOp):
        symbol = {ast.BitXor: "^ (write ** for powers)", ast.Mod: "%", ast.FloorDiv: "//"}
        return f"operator {symbol.get(type(node.op), type(node.op).__name__)}"
    if isinstance(node, ast.Constant):
        return f"literal {node.value!r}"
    return f"construct '{type(node).__name__}'"


def complexity(expr: sp.Expr) -> int:
    """Node count of the sympy expression tree (n-ary sums and products count once)."""
    return sum(1 for _ in sp.preorder_traversal(expr))


class _RoundTripPrinter(StrPrinter):
    """Floats printed with Python's shortest round-trip repr, so text -> float is exact."""

    def _print_Float(self, expr):
        return repr(float(expr))


def expression_text(expr: sp.Expr | None) -> str | None:
    """A sympy-parsable string whose constants read back to the same doubles."""
    return _RoundTripPrinter({"order": "none"}).doprint(expr) if expr is not None else None
