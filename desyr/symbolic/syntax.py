"""The text of an expression read into a syntax tree, without SymPy: its length, its characters and
its syntax, each failure worded once.  :func:`desyr.symbolic.expressions.parse_expression` builds on
it, and the config's precheck (:mod:`desyr.config.early`) reads a config's expressions with it
before SymPy loads, so both give a wrong expression the same one-line error.
"""
from __future__ import annotations

import ast
import unicodedata
import warnings

#: the longest expression text, in characters
MAX_TEXT = 5000


class SyntaxProblem(ValueError):
    """An expression text that cannot be read; its message is the one-line error."""


def short(value: object, limit: int = 80) -> str:
    out = repr(value) if isinstance(value, str) else str(value)
    return out if len(out) <= limit else out[:limit - 3] + "..."


def syntax_hint(text: str) -> str:
    """What a new user most often wrote instead of an expression."""
    if "'" in text:
        return "; derivatives are written u_x, u_xx (no primes)"
    if "=" in text.replace("==", "").replace("<=", "").replace(">=", "").replace("!=", ""):
        return "; an expression has no '=': an equation's right side goes in rhs, a condition's place in on"
    return ""


def read_tree(text: str) -> ast.expr:
    """The syntax tree of a non-blank expression text, or :class:`SyntaxProblem`."""
    if len(text) > MAX_TEXT:
        raise SyntaxProblem(f"expression of {len(text)} characters is too long (at most {MAX_TEXT})")
    for ch in text:
        if not ch.isascii():
            raise SyntaxProblem(f"non-ASCII character {ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}) "
                                f"in {short(text)}; write expressions in plain ASCII")
    try:
        with warnings.catch_warnings():
            # Python warns about some odd text (`1if x else 2`); that is a parse failure here, not a second line
            warnings.simplefilter("error", SyntaxWarning)
            return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise SyntaxProblem(f"cannot parse {short(text)}: {exc.msg}{syntax_hint(text)}") from None
    except SyntaxWarning as exc:
        raise SyntaxProblem(f"cannot parse {short(text)}: {exc}") from None
    except (RecursionError, MemoryError, ValueError):
        raise SyntaxProblem(f"cannot parse {short(text)}: nested too deeply or too large") from None


def describe(node: ast.AST) -> str:
    """A construct the expression language does not have, as its error names it."""
    if isinstance(node, ast.Attribute):
        return f"attribute access '.{node.attr}'"
    if isinstance(node, ast.BinOp):
        symbol = {ast.BitXor: "^ (write ** for powers)", ast.Mod: "%", ast.FloorDiv: "//"}
        return f"operator {symbol.get(type(node.op), type(node.op).__name__)}"
    if isinstance(node, ast.Constant):
        return f"literal {node.value!r}"
    return f"construct '{type(node).__name__}'"
