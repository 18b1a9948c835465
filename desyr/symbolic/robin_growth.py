"""The positive roots of ``g(z) = (a + b*z**2)*sinh(z) + c*z*cosh(z)``: the negative eigenvalues
``-(z/L)**2`` of ``X'' + mu*X = 0`` on ``[0, L]`` with Robin ends (the same ``a, b, c`` as ``robinroot``:
``X = beta0*(z/L)*cosh(z*x/L) + alpha0*sinh(z*x/L)`` meets the left end for every ``z``, and ``L**2`` times the
right end's residual is ``g(z)``).  What ``robinsinhroot(k, a, b, c)`` evaluates.

A regular Sturm-Liouville problem with separated ends has at most two eigenvalues below 0 here (each end
whose condition has the "wrong" sign adds at most one), and they are simple (Zettl, *Sturm-Liouville
Theory*, Theorem 4.3.1), so ``g`` has at most two positive roots, each simple.  They are found, all of them,
with brackets proved to hold exactly one each:

1. **None near 0.**  ``g(z)/z = sum_j q_j*z**(2j)``, ``q_j = a/(2j+1)! + b/(2j-1)! + c/(2j)!`` (``b``'s term from
   ``j = 1``), and ``|q_j| <= (|a| + |b| + |c|)/(2j - 1)!``; with ``q_l`` the lowest nonzero coefficient (``l <= 2``
   unless ``a = b = c = 0``), the rest is at most ``sinh(1)*(|a| + |b| + |c|)*z**(2l + 2)`` for ``z <= 1``, below
   ``|q_l|*z**(2l)`` once ``z**2 < |q_l|/(sinh(1)*(|a| + |b| + |c|))``: no root in ``(0, delta]``.
2. **None far out.**  The roots are those of ``(a + b*z**2)*tanh(z) + c*z``.  With ``b != 0`` and ``z >= 1``
   (``tanh(z) >= 3/4``), ``|b|*z**2*tanh(z) > |a| + |c|*z`` once ``(3/4)*|b|*z**2 > |a| + |c|*z``; with ``b = 0``,
   ``|a*tanh(z)| < |a| <= |c|*z`` once ``z >= |a/c|``; with ``b = c = 0`` the roots of ``a*sinh(z)`` are none.
3. **Between, isolated by interval arithmetic** (``mpmath.iv``, outward rounding), as for ``robinroot``: each
   piece of ``[delta, start]`` either encloses ``g`` away from 0, or encloses ``g'`` away from 0 with ``g`` of
   opposite signs at its ends (exactly one, simple, root).
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np
import sympy as sp
from mpmath import iv

from desyr.symbolic.interval_numbers import interval_precision, number
from desyr.symbolic.robin import PREC, exact_constants, isolate

#: the most roots there can be (two ends)
MOST = 2


def _sinh(z: iv.mpf) -> iv.mpf:
    return (iv.exp(z) - iv.exp(-z)) / 2


def _cosh(z: iv.mpf) -> iv.mpf:
    return (iv.exp(z) + iv.exp(-z)) / 2


def _g(A: iv.mpf, B: iv.mpf, C: iv.mpf, z: iv.mpf) -> iv.mpf:
    return (A + B * z * z) * _sinh(z) + C * z * _cosh(z)


def _dg(A: iv.mpf, B: iv.mpf, C: iv.mpf, z: iv.mpf) -> iv.mpf:
    return (A + C + B * z * z) * _cosh(z) + (2 * B + C) * z * _sinh(z)


def _clear_of_zero(a: sp.Expr, b: sp.Expr, c: sp.Expr) -> mpmath.mpf:
    q = [a + c, a / 6 + b + c / 2, a / 120 + b / 6 + c / 24]
    lowest = next((j for j, value in enumerate(q) if sp.simplify(value).is_zero is not True), None)
    if lowest is None:
        raise ValueError(f"robinsinhroot{(a, b, c)}: the roots near 0 cannot be told apart")
    total = abs(number(a)) + abs(number(b)) + abs(number(c))
    square = abs(number(q[lowest])) / (total * number(sp.sinh(1)))
    return min(mpmath.mpf(1), mpmath.sqrt(mpmath.mpf(square.a)) / 2)


def _start(a: sp.Expr, b: sp.Expr, c: sp.Expr) -> mpmath.mpf | None:
    """A point beyond which ``g`` has no root (None: ``g = a*sinh(z)``, no positive root at all)."""
    A, C = (mpmath.mpf(abs(number(x)).b) for x in (a, c))
    if not b.is_zero:
        Bl = mpmath.mpf(abs(number(b)).a)
        return max(mpmath.mpf(1), (C + mpmath.sqrt(C * C + 3 * A * Bl)) / (mpmath.mpf(3) / 2 * Bl)) * (1 + 1e-6) + 1e-6
    if not c.is_zero:
        return max(mpmath.mpf(1), A / mpmath.mpf(abs(number(c)).a)) * (1 + 1e-6) + 1e-6
    return None


@functools.lru_cache(maxsize=64)
def layout(constants: tuple[sp.Expr, sp.Expr, sp.Expr]) -> tuple[tuple[mpmath.mpf, mpmath.mpf], ...]:
    """The brackets of every positive root, in order (:class:`ValueError` where they cannot be laid out)."""
    a, b, c = exact_constants(constants, "robinsinhroot")
    with interval_precision(PREC), mpmath.workprec(PREC):
        start = _start(a, b, c)
        if start is None:
            return ()
        if start > 2000:
            raise ValueError(f"robinsinhroot{(a, b, c)}: the roots lie too far out ({float(start):.3g}); scale "
                             "the problem")
        A, B, C = (number(x) for x in (a, b, c))
        found = isolate(A, B, C, _clear_of_zero(a, b, c), mpmath.mpf(start), _g, _dg)
    if len(found) > MOST:
        raise ArithmeticError(f"robinsinhroot{(a, b, c)}: more than {MOST} roots isolated")
    return tuple(found)


def count(constants: tuple[sp.Expr, ...]) -> int:
    """How many positive roots ``g`` has (0, 1 or 2): the negative eigenvalues of the Robin ends."""
    return len(layout(tuple(sp.sympify(x) for x in constants)))


def root(constants: tuple[sp.Expr, ...], k: int, prec: int) -> mpmath.mpf:
    """The k-th positive root (in increasing order) at ``prec`` bits."""
    return _root(tuple(sp.sympify(x) for x in constants), int(k), int(prec))


@functools.lru_cache(maxsize=1024)
def _root(constants: tuple[sp.Expr, ...], k: int, prec: int) -> mpmath.mpf:
    brackets = layout(constants)
    if not 1 <= k <= len(brackets):
        raise ValueError(f"robinsinhroot{constants}: there is no root {k} (the positive roots number "
                         f"{len(brackets)})")
    with mpmath.workprec(prec):
        a, b, c = (mpmath.mpf(str(sp.N(x, mpmath.mp.dps + 10))) for x in constants)
        lo, hi = (mpmath.mpf(v) for v in brackets[k - 1])

        def g(z: mpmath.mpf) -> mpmath.mpf:
            return (a + b * z * z) * mpmath.sinh(z) + c * z * mpmath.cosh(z)
        value = mpmath.findroot(g, (lo, hi), solver="illinois", tol=mpmath.mpf(2) ** (-2 * prec), maxsteps=400,
                                verify=False)
        if not lo <= value <= hi:
            raise ArithmeticError(f"robinsinhroot: the solver left the bracket of root {k}")
        return value


def roots_float(constants: tuple[sp.Expr, ...], count_: int) -> np.ndarray:
    """The first ``count_`` roots as doubles (there are at most two)."""
    return np.array([float(root(constants, k, 64)) for k in range(1, count_ + 1)], dtype=float)

