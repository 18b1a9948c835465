"""The special functions of the expression language: ``erf``, ``erfc``, ``airyai``, ``airybi``,
``sech``, ``csch``, ``coth`` (one argument) and ``besselj``, ``bessely``, ``besseli``, ``besselk``
(a constant integer or half-integer order, then the argument).

The order of a Bessel function must be a number the parser can hold exactly: the verifier's proofs
differentiate through SymPy's recurrences (``J_nu' = (J_(nu-1) - J_(nu+1))/2``), which stay exact and
finite only for a fixed order, and every export target that has Bessel functions at all has them for
integer orders (half-integer ones are elementary).  SymPy cannot always tell that a value such as
``besselj(0, 3)`` is real (it leaves ``is_finite`` open), so :func:`real_number` decides a number that
holds one of these functions by evaluating it, where SymPy's assumptions leave it open.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import sympy as sp

#: one-argument special functions, by the name a config writes
UNARY: dict[str, Callable[..., sp.Expr]] = {
    "erf": sp.erf, "erfc": sp.erfc, "airyai": sp.airyai, "airybi": sp.airybi,
    "sech": sp.sech, "csch": sp.csch, "coth": sp.coth,
}
#: Bessel functions: ``name(order, argument)``
BESSEL: dict[str, Callable[..., sp.Expr]] = {
    "besselj": sp.besselj, "bessely": sp.bessely, "besseli": sp.besseli, "besselk": sp.besselk,
}
#: the largest order written: beyond it the recurrences of a proof and of the exports grow long
MAX_ORDER = 50
#: SymPy classes of every special function, for the checks that walk a built expression
SPECIAL_CLASSES = tuple(f for f in (*UNARY.values(), *BESSEL.values()) if isinstance(f, type))
#: SymPy classes of the Bessel functions (their first argument is a constant order)
BESSEL_CLASSES = (sp.besselj, sp.bessely, sp.besseli, sp.besselk)
DIGITS = 30
#: the derivative classes SymPy makes of these functions (``diff(airyai(x), x)`` is ``airyaiprime(x)``;
#: the others differentiate into the functions above or into elementary ones)
DERIVATIVE_CLASSES = (sp.airyaiprime, sp.airybiprime)
#: names mpmath lacks for SymPy's printer of ``modules="mpmath"`` (it prints ``airyaiprime(x)`` as is)
MPMATH: dict[str, Callable[..., Any]] = {
    "airyaiprime": lambda z: mpmath.airyai(z, derivative=1),
    "airybiprime": lambda z: mpmath.airybi(z, derivative=1),
}


def bessel_order(order: sp.Expr) -> sp.Rational:
    """``order`` as an exact integer or half-integer; ``ValueError`` saying what it must be (the parser
    makes it its one-line error)."""
    value: sp.Expr | None = order
    if isinstance(order, sp.Float):       # a searcher's 0.5 or 2.0: only when it is exactly such a number
        exact = sp.Rational(order)
        value = exact if (2 * exact).is_Integer else None
    if value is None or not isinstance(value, sp.Rational) or not (2 * value).is_Integer:
        raise ValueError("must be a constant integer or half-integer (such as 0, 1 or 1/2)")
    if abs(value) > MAX_ORDER:
        raise ValueError(f"must be at most {MAX_ORDER} in magnitude")
    return value


def needs_positive(node: sp.Basic) -> bool:
    """Whether a Bessel call is real and finite only for a positive argument: Y and K (a log-like branch
    point at 0) and any non-integer order (``besselj(1/2, x)`` is ``sqrt(2/(pi*x))*sin(x)``)."""
    if not isinstance(node, BESSEL_CLASSES):
        return False
    return isinstance(node, (sp.bessely, sp.besselk)) or not node.args[0].is_integer


def real_number(expr: sp.Expr) -> bool | None:
    """For a number holding a special function whose realness SymPy leaves open: True when it evaluates
    (at :data:`DIGITS` digits, by mpmath) to a finite real value, False when not real or not finite, None
    when it cannot be evaluated or holds no special function.  mpmath returns a complex value exactly
    where the function is not real there (``bessely(0, -3)``), so the imaginary part is exactly 0 or not."""
    if not expr.is_number or not expr.has(*SPECIAL_CLASSES):
        return None
    try:
        value = sp.N(expr, DIGITS)
        real, imaginary = value.as_real_imag()
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return None
    if not (real.is_Number and imaginary.is_Number):
        return None
    return bool(imaginary == 0 and real.is_finite)
