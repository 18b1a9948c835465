"""The domain conditions of an expression as written: what ``sqrt``, ``log``, ``asin``, a division...
need of their arguments.

SymPy evaluates as it builds: ``sqrt(u)**2`` becomes ``u`` and ``sin(asin(u))`` becomes ``u``, so the
condition that ``u >= 0`` (or ``-1 <= u <= 1``) disappears from the equation before anyone can check
it, and a formula for which the equation as written is undefined everywhere reduces its residual to
0.  The parser therefore records each condition at the node that brings it in, from the arguments
as built, before the node is combined with anything else (:func:`desyr.symbolic.expressions.parse_expression`).
The verifier proves them once a candidate is substituted (:mod:`desyr.verify.conditions`).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

#: what a condition asks of its quantity, and how a message writes it
NEEDS = {"positive": "> 0", "nonnegative": ">= 0", "nonzero": "!= 0"}


@dataclass(frozen=True)
class Condition:
    """``quantity`` must be ``need`` (a key of :data:`NEEDS`) for ``written`` (the node as the text wrote it)."""

    quantity: sp.Expr
    need: str
    written: str

    def describe(self) -> str:
        return f"{self.written[:60]} needs {str(self.quantity)[:60]} {NEEDS[self.need]}"

    def replaced(self, mapping: dict[sp.Basic, sp.Expr]) -> Condition:
        return Condition(self.quantity.xreplace(mapping), self.need, self.written)


def _made(quantity: sp.Expr, need: str, written: str) -> Condition | None:
    # a number's condition is the parser's (non-real numbers are refused there), not the verifier's
    return None if not quantity.free_symbols else Condition(quantity, need, written)


def of_call(name: str, argument: sp.Expr, written: str) -> Condition | None:
    """The condition of ``name(argument)`` (None: a function defined for every real argument)."""
    if name == "log":
        return _made(argument, "positive", written)
    if name == "sqrt":
        return _made(argument, "nonnegative", written)
    if name in ("asin", "acos"):
        return _made(1 - argument ** 2, "nonnegative", written)
    if name == "tan":
        return _made(sp.cos(argument), "nonzero", written)
    return None


def of_power(base: sp.Expr, exponent: sp.Expr, written: str) -> Condition | None:
    """The condition of ``base**exponent``: a negative integer power needs ``base != 0``, a positive
    non-integer one ``base >= 0``, any other ``base > 0`` (a real power of a negative number is not real)."""
    if exponent.is_Integer:
        return _made(base, "nonzero", written) if exponent < 0 else None
    if exponent.is_number and exponent.is_positive:
        return _made(base, "nonnegative", written)
    return _made(base, "positive", written)


def of_division(denominator: sp.Expr, written: str) -> Condition | None:
    return _made(denominator, "nonzero", written)
