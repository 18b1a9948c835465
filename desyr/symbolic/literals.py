"""How the expression parser reads number literals: a config's decimals as the rationals their digits
spell (``0.1`` is 1/10, so ``3*pi/1.397`` stays exact), and which numbers are not real (a field's
values are real: ``sqrt(-1)`` is refused, not read as ``I``)."""
from __future__ import annotations

import ast
import math
from fractions import Fraction

import sympy as sp

MAX_BITS = 1024            # bits of an exact integer or rational (the range of a double)
DOUBLE_DIGITS = 17         # significant digits a double holds: a formula's decimal with more is read at its own


def non_real(expr: sp.Expr) -> sp.Expr | None:
    """A number in ``expr`` that is not real (``sqrt(-1)`` is I, ``log(-1)`` is I*pi; ``asin(2)`` and
    ``(-1)**(1/3)`` stay unevaluated and are not real either), or None.  Quantities that depend on the
    variables (``sqrt(x - 2)``) are the verifier's: it proves their sign on the domain."""
    if expr.has(sp.I):
        return sp.I
    for node in expr.atoms(sp.Pow, sp.log, sp.asin, sp.acos, sp.Function):
        if node.is_number and node.is_real is False:
            return node
    return None


def decimal(value: float) -> sp.Expr:
    """A float as the decimal that prints it (a double's exact binary value for what no short decimal
    within MAX_BITS holds, such as 1e-320)."""
    exact = Fraction(repr(value))
    if max(exact.numerator.bit_length(), exact.denominator.bit_length()) > MAX_BITS:
        return sp.Float(value)
    return sp.Rational(exact.numerator, exact.denominator)


class Decimals(ast.NodeTransformer):
    """Each decimal literal as ``p / q`` in integers, from the digits as written (``0.1`` is 1/10)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if not isinstance(node.value, float) or not math.isfinite(node.value):
            return node
        digits = (ast.get_source_segment(self.text, node) or "").replace("_", "")
        try:
            exact = Fraction(digits)
        except ValueError:
            exact = Fraction(repr(node.value))
        if max(exact.numerator.bit_length(), exact.denominator.bit_length()) > MAX_BITS:
            return node         # left as the float it is: lost_literal refuses it before it is built
        if exact.denominator == 1:
            return ast.copy_location(ast.Constant(exact.numerator), node)
        fraction = ast.BinOp(ast.Constant(exact.numerator), ast.Div(), ast.Constant(exact.denominator))
        return ast.copy_location(fraction, node)


def lost_literal(tree: ast.AST, text: str, written: bool) -> str | None:
    """A number literal whose value would not be the number its digits spell, or None: one that a double
    rounds to 0 (``1e-400``: the term would vanish unseen); where decimals are read as written, one
    whose exact value needs more than MAX_BITS bits."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, float) or not math.isfinite(node.value):
            continue
        digits = (ast.get_source_segment(text, node) or "").replace("_", "")
        try:
            exact = Fraction(digits)
        except ValueError:
            continue
        if exact != 0 and node.value == 0.0:
            return digits
        if written and max(exact.numerator.bit_length(), exact.denominator.bit_length()) > MAX_BITS:
            return digits
    return None


def _significant(digits: str) -> int:
    """The significant digits of a decimal literal (``0.000120`` has 3, ``1.5e-3`` 2)."""
    mantissa = digits.lower().split("e")[0].replace(".", "").lstrip("+-").lstrip("0")
    return len(mantissa)


def long_decimal(digits: str, value: float) -> sp.Float | None:
    """A formula's decimal with more significant digits than a double holds, which the double does not equal,
    as a Float of all its digits (``1.0000000000000000000001`` is not 1: ``10**30*(1.0000000000000000000001 -
    1)`` is 1e8; red team 44c), else None (the double is the number)."""
    count = _significant(digits)
    try:
        exact = Fraction(digits)
    except ValueError:
        return None
    if count <= DOUBLE_DIGITS or exact == Fraction(value):
        return None
    return sp.Float(digits, count + 30)
