"""The exact values of the numbers a config writes, keyed by the floats that sampling uses.

Points are drawn with floats, but a proof must use the number the user wrote: ``radius = 1/3`` is one
third, not 0.3333333333333333, and ``x = 0.1234567`` is 1234567/10000000.  A table ``float -> exact``
records each number of the shape text, the sets (``on = "x = 1/3"``, ``at = [...]``) and the domain
as written; :func:`desyr.model.patches.exact_number` reads it before guessing.  Two writings of one
float (``1/3`` and ``1/3 + 10**-20``) would make one of them false in the proof: refused; where one
writing is a double printed to its last digit (``0.3333333333333333``, ``2.718281828459045``) and the
other is not, the other is what it stands for.
"""
from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from fractions import Fraction

import sympy as sp

#: bits of a written number's numerator or denominator (as the expression parser allows)
MAX_BITS = 1024
#: float -> the exact number the config wrote for it
Numbers = Mapping[float, sp.Expr]


class NumberClash(ValueError):
    """One float written as two different exact numbers."""


def as_written(value: int | float) -> sp.Expr:
    """A TOML number as written: an integer, or a float's shortest decimal (what the user typed).
    ``at = [[0.7853981633974483]]`` is that decimal, not pi/4: only a range's end reads pi
    (:func:`range_end`)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return sp.Integer(value)
    short = Fraction(repr(float(value)))
    return sp.Rational(short.numerator, short.denominator)


def range_end(value: int | float) -> sp.Expr:
    """A ``[domain]`` or ``[parameters]`` range's end: as written, except that a float that is a short
    multiple of pi to the last bit is that multiple (TOML cannot write pi there: ``x = [0,
    3.141592653589793]`` means pi, as docs/config.md says). Nowhere else is a number read as pi: a point or
    a set can write ``pi/4`` as text."""
    if isinstance(value, float):
        guess = _pi_multiple(value)
        if guess is not None:
            return guess
    return as_written(value)


def _pi_multiple(value: float) -> sp.Expr | None:
    """``value`` as a short multiple of pi, where it is one to the last bit and not a short decimal."""
    if Fraction(repr(value)).denominator <= 10**6:
        return None
    ratio = Fraction(value / math.pi).limit_denominator(1000)
    guess = sp.Rational(ratio.numerator, ratio.denominator) * sp.pi
    return guess if float(guess) == value else None


def exact_number(value: float, numbers: Numbers | None = None) -> sp.Expr:
    """The exact number meant by ``value``: as the config wrote it where ``numbers`` records that, else
    as :func:`as_written` reads a bare float."""
    if numbers:
        known = numbers.get(float(value))
        if known is not None:
            return known
    # a float no config number records is derived from the ranges' ends (a period hi - lo): read as they are
    return range_end(float(value))


def note(numbers: dict[float, sp.Expr], value: float, exact: sp.Expr) -> None:
    """Record that ``value`` was written as ``exact``; a second, different writing is a clash."""
    key = float(value)
    if not math.isfinite(key):
        return
    known = numbers.get(key)
    if known is not None and known != exact:
        if _float_print(known, key) != _float_print(exact, key):
            # a double printed to the last digit stands for the other writing: ``x = [2.718281828459045, 5]``
            # beside ``on = "x = E"`` means e, as TOML cannot write e
            numbers[key] = known if _float_print(exact, key) else exact
            return
        raise NumberClash(f"the config writes the number {key!r} both as {known} and as {exact}; "
                          f"these are one float, so a proof could not tell them apart: write them the same way")
    numbers[key] = exact


def _float_print(exact: sp.Expr, key: float) -> bool:
    """Whether ``exact`` is only a double's shortest print (15 or more significant digits), not a number
    anyone writes by intent."""
    return isinstance(exact, sp.Rational) and exact.q > 10**6 and Fraction(repr(key)) == Fraction(int(exact.p), int(exact.q))


def shape_numbers(text: str, value_of: object) -> dict[float, sp.Expr]:
    """The numbers of a shape's text, each read exactly: ``1/3`` is one third, ``2*pi`` is 2*pi, and a
    decimal is the rational its digits spell (more digits than a float holds included).
    ``value_of(node)`` is the shape reader's own float for a number node, so the keys are its floats."""
    tree = ast.parse(text.strip(), mode="eval")
    out: dict[float, sp.Expr] = {}
    stack: list[ast.AST] = [tree.body]
    lines = _Lines(text.strip())
    while stack:
        node = stack.pop()
        exact = _exact(node, lines)
        if exact is None:
            stack.extend(ast.iter_child_nodes(node))
            continue
        note(out, value_of(node), exact)   # type: ignore[operator]
    return out


class _Lines:
    """A text's lines, split once: :func:`ast.get_source_segment` splits the whole text on every call, which
    made a polygon of 1000 vertices take 14 s to read."""

    def __init__(self, text: str) -> None:
        self.text = text
        # the lines as the parser counts them: ended by \r\n, \r or \n only
        self.lines = [line.encode("utf-8") for line in re.split(r"\r\n|\r|\n", text)]

    def segment(self, node: ast.AST) -> str:
        """The text of a node on one line (a number), as :func:`ast.get_source_segment` gives it."""
        line, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if line is None or line != end or not 1 <= line <= len(self.lines):
            return ast.get_source_segment(self.text, node) or ""
        start, stop = int(getattr(node, "col_offset", 0)), getattr(node, "end_col_offset", None)
        return str(self.lines[line - 1][start:stop].decode("utf-8"))


def _exact(node: ast.AST, text: _Lines) -> sp.Expr | None:
    """The exact value of a number node (None: not a number)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        if isinstance(node.value, int):
            return sp.Integer(node.value)
        written = text.segment(node).replace("_", "")
        try:
            exact = Fraction(written)
        except ValueError:
            exact = Fraction(repr(node.value))
        if max(exact.numerator.bit_length(), exact.denominator.bit_length()) > MAX_BITS:
            exact = Fraction(repr(node.value))     # 20000 digits: the float's own decimal, not a huge proof
        return sp.Rational(exact.numerator, exact.denominator)
    if isinstance(node, ast.Name) and node.id == "pi":
        return sp.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _exact(node.operand, text)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _exact(node.left, text), _exact(node.right, text)
        if a is None or b is None or (isinstance(node.op, ast.Div) and b == 0):
            return None
        if isinstance(node.op, ast.Div):
            return a / b
        return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
    return None
