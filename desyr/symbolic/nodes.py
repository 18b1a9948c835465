"""What each node the expression parser builds must be, checked as it is built and before SymPy can
fold it into anything else: exact numbers of bounded size, and numbers that are defined and real.

SymPy evaluates as it builds: ``0*log(-1)`` is 0, ``asin(2) - asin(2)`` is 0, ``acos(2)**0`` is 1 and
``abs((-1)**u)`` is 1, so a check of the finished expression alone lets a non-real number vanish.
"""
from __future__ import annotations

import math

import sympy as sp

from desyr.errors import DesyrError
from desyr.symbolic.conditions import NEEDS, Condition
from desyr.symbolic.literals import MAX_BITS, non_real
from desyr.symbolic.special import real_number
from desyr.symbolic.syntax import short as short

MAX_EXPONENT = 1000        # |numeric exponent| of a power


class ExpressionError(DesyrError, ValueError):
    """An expression string could not be accepted; the message says why (one line, for users)."""


def number(value: int | float, text: str) -> sp.Expr:
    if isinstance(value, int):
        if value.bit_length() > MAX_BITS:
            raise ExpressionError(f"integer literal too large in {short(text)} (at most {MAX_BITS} bits)")
        return sp.Integer(value)
    if not math.isfinite(value):
        raise ExpressionError(f"number {value!r} is not finite in {short(text)}")
    return sp.Float(value)


def checked_exact(expr: sp.Expr, text: str) -> sp.Expr:
    """Refuse exact numbers that grew too large (products and powers of big integers)."""
    if isinstance(expr, sp.Rational) and max(int(expr.p).bit_length(), int(expr.q).bit_length()) > MAX_BITS:
        raise ExpressionError(f"an exact number in {short(text)} exceeds {MAX_BITS} bits")
    return expr


def power(base: sp.Expr, exponent: sp.Expr, text: str, written: str) -> sp.Expr:
    """``base**exponent``, refusing exponents that would make sympy compute huge exact numbers, and a
    number that is not positive raised to a power that varies: ``(-1)**u`` is not real where ``u`` is
    not an integer, ``0**u`` undefined where ``u <= 0``, yet ``abs((-1)**u)`` folds to 1."""
    if base.is_number and not exponent.is_number and _asked(base, "is_positive") is not True \
            and not _integer_power(base, exponent):
        where = ("is undefined where {} <= 0" if _asked(base, "is_zero") else "is not real where {} is not an integer"
                 if _asked(base, "is_negative") else "has a base not shown to be positive, where {} varies")
        raise ExpressionError(f"{_at(written, text)} {where.format(short(exponent, 30))}: "
                              f"a number raised to a varying power must be positive")
    _check_index_power(base, exponent, text, written)
    if exponent.is_Number:
        if not exponent.is_finite or abs(float(exponent)) > MAX_EXPONENT:
            raise ExpressionError(f"exponent {short(exponent)} in {short(text)} is too large "
                                  f"(at most {MAX_EXPONENT} in magnitude)")
        if isinstance(base, sp.Rational) and isinstance(exponent, sp.Rational):
            size = max(abs(int(base.p)), int(base.q))
            bits = abs(float(exponent)) * math.log2(size) if size > 1 else 0.0
            if bits > MAX_BITS:
                raise ExpressionError(f"power {short(base)}**{short(exponent)} in {short(text)} is too large "
                                      f"(exact results of at most {MAX_BITS} bits)")
    return sp.Pow(base, exponent)


def _check_index_power(base: sp.Expr, exponent: sp.Expr, text: str, written: str) -> None:
    """A power whose exponent holds a sum's index (the only integer symbols the parser makes): the exponent
    a polynomial of degree at most 2 in the indices and the base free of them, so that the term at an
    index (a sum written out, its first terms) is a number of bounded size: ``2**(2**n)`` or ``n**(n**3)``
    at n = 1000 would not be."""
    indices = [s for s in exponent.free_symbols if s.is_integer]
    if not indices:
        return
    polynomial = exponent.is_polynomial(*indices) and sp.Poly(exponent, *indices).total_degree() <= 2
    if not polynomial or base.free_symbols & set(indices):
        raise ExpressionError(f"{_at(written, text)}: a power whose exponent holds a sum's index needs a base "
                              f"free of the index and an exponent of degree at most 2 in it (x**n, (-1)**n, "
                              f"exp(-n**2*t))")


def _integer_power(base: sp.Expr, exponent: sp.Expr) -> bool:
    """A number raised to an integer that varies (a sum's index): ``(-1)**n`` is real for every integer
    ``n``; ``0**n`` needs ``n >= 0``."""
    if exponent.is_integer is not True:
        return False
    return exponent.is_nonnegative is True if _asked(base, "is_zero") else _asked(base, "is_real") is True


def checked_number(expr: sp.Expr, written: str, text: str) -> sp.Expr:
    """Refuse a node that is a number and is undefined, infinite or not real, before SymPy can fold it
    away (``0*log(-1)`` is 0, ``asin(2) - asin(2)`` is 0, ``acos(2)**0`` is 1): a value is real
    wherever it is written, not only in the finished expression."""
    if not expr.is_number or expr.has(sp.Sum):       # a series of numbers: its terms were checked
        return expr
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise ExpressionError(f"{_at(written, text)} is undefined or infinite (it is {short(expr, 40)}); "
                              f"check for division by zero or log(0)")
    imaginary = non_real(expr)
    if imaginary is not None:
        raise ExpressionError(f"{_at(written, text)} has the non-real number {short(imaginary, 40)}: "
                              f"values, fields and equations are real")
    if _asked(expr, "is_real") is not True and real_number(expr) is not True:
        raise ExpressionError(f"{_at(written, text)} is a number that cannot be shown to be real: "
                              f"values, fields and equations are real")
    return expr


def checked_condition(condition: Condition, text: str) -> Condition:
    """``condition``, unless it is on a number alone and provably fails (``log(-1)`` in ``0*log(-1)``)."""
    if condition.broken():
        raise ExpressionError(f"{_at(condition.written, text)} is undefined or not real: it needs "
                              f"{short(condition.quantity, 40)} {NEEDS[condition.need]}, which is false")
    return condition


def _asked(expr: sp.Expr, assumption: str) -> bool | None:
    """SymPy's answer on a number (it may evaluate it numerically); None where it cannot tell or fails."""
    try:
        value = getattr(expr, assumption)
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return None
    return None if value is None else bool(value)


def _at(written: str, text: str) -> str:
    """The node as written, and the whole text where the node is only part of it."""
    return f"expression {short(text)}" if written.strip() == text.strip() else f"{short(written, 40)} in {short(text)}"
