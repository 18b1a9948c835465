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

    def broken(self) -> bool:
        """Whether the condition is on a number alone and provably fails (``log(-1)``, ``1/0``): the
        parser refuses the text."""
        return not self.quantity.free_symbols and decided(self.quantity, self.need) is False


def decided(number: sp.Expr, need: str) -> bool | None:
    """Whether ``number`` meets ``need``, as SymPy's assumptions (and their numeric evaluation) tell;
    None when they cannot tell (or fail on a huge number)."""
    try:
        value = getattr(number, _ASKS[need])
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return None
    return None if value is None else (not value if need == "nonzero" else bool(value))


_ASKS = {"positive": "is_positive", "nonnegative": "is_nonnegative", "nonzero": "is_zero"}


def _made(quantity: sp.Expr, need: str, written: str) -> Condition | None:
    # a condition on a number alone is decided here: one that holds drops out; one that fails is kept
    # for the parser to refuse (Condition.broken); one SymPy cannot decide is kept for the verifier,
    # whose sign proof then decides it or refuses the candidate -- never silently dropped
    if not quantity.free_symbols and decided(quantity, need) is True:
        return None
    return Condition(quantity, need, written)


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
    if name in ("csch", "coth"):
        return _made(argument, "nonzero", written)
    return None


def of_bessel(name: str, order: sp.Expr, argument: sp.Expr, written: str) -> Condition | None:
    """The condition of ``name(order, argument)``: Y and K, and every non-integer order, are real and finite
    only for a positive argument (a branch point at 0, as ``log``'s); J and I of integer order are entire."""
    if name in ("bessely", "besselk") or not order.is_integer:
        return _made(argument, "positive", written)
    return None


def of_power(base: sp.Expr, exponent: sp.Expr, written: str) -> Condition | None:
    """The condition of ``base**exponent``: a negative integer power needs ``base != 0``, a positive
    non-integer one ``base >= 0``, any other ``base > 0`` (a real power of a negative number is not real)."""
    if exponent.is_Integer:
        return _made(base, "nonzero", written) if exponent < 0 else None
    if exponent.is_integer:              # a sum's index: (-1)**n, x**n
        return None if exponent.is_nonnegative else _made(base, "nonzero", written)
    if exponent.is_number and exponent.is_positive:
        return _made(base, "nonnegative", written)
    return _made(base, "positive", written)


def of_division(denominator: sp.Expr, written: str) -> Condition | None:
    return _made(denominator, "nonzero", written)
