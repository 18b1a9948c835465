"""Bounds of the named eigenvalues in their index, for the majorants of a series' terms.

**Linear bounds** ``lo(n) <= lambda_n <= hi(n)``:

- ``j_{nu,n}`` (``besseljzero``): ``y = sqrt(x)*J_nu(x)`` solves ``y'' + phi(x)*y = 0`` with
  ``phi(x) = 1 - (4*nu**2 - 1)/(4*x**2)`` and has the zeros of ``J_nu``.  By Sturm's comparison theorem
  two consecutive zeros in a range where ``m**2 <= phi <= M**2`` are between ``pi/M`` and ``pi/m`` apart.
  For nu = 0, ``1 < phi <= phi(j_1)`` beyond the first zero: the gaps lie in ``[pi/sqrt(phi(j_1)), pi]``;
  for nu >= 1, ``phi(j_1) <= phi < 1``: in ``[pi, pi/sqrt(phi(j_1))]``.
- ``j'_{nu,n}`` (``besseljpzero``): ``j'_{0,n} = j_{1,n}`` (``J_0' = -J_1``); for nu >= 1 the zeros
  interlace, ``j_{nu,n-1} < j'_{nu,n} < j_{nu,n}`` (Watson 15.22).
- ``robinroot``: its known interval (:mod:`desyr.symbolic.robin`).
- ``d_{nu,n}`` (``dinizero``): ``j_{nu,n-1} < d_{nu,n} < j_{nu,n}`` (:mod:`desyr.symbolic.dini`).

**The Bessel function at a zero** (normalisations of Fourier-Bessel coefficients): with ``F = y**2 +
y'**2/phi``, ``F' = -y'**2*phi'/phi**2``, so ``F`` increases for nu = 0 and decreases for nu > 1/2 where
``phi > 0``, and tends to ``2/pi`` (the asymptotic form of ``J_nu``, Watson 7.21; the Sonine-Polya
argument, Watson 15.31).  At ``x = j_{nu,k}``, ``y = 0`` and ``x*J_nu'(x)**2 = phi*F``; at ``x =
j'_{nu,k}``, ``x*J_nu(x)**2 = F/(1 + 1/(4*x**2*phi))``.  Both are thus enclosed between the values at
the first zero and ``2/pi``: ``|J_{nu+-1}(j_{nu,k})| = rho_k/sqrt(j_{nu,k})`` and ``|J_nu(j'_{nu,k})| =
rho_k/sqrt(j'_{nu,k})`` with ``rho_k`` in a computed interval away from 0.  At a root of Dini's equation
``x*J_nu' + h*J_nu = 0``, ``x*J_nu(x)**2 = F/(1 + (1/2 - h)**2/(x**2*phi))``, enclosed the same way.
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath
import sympy as sp

from desyr.symbolic.eigenvalues import EigenvalueFunction, besseljpzero, besseljzero, dinizero, robinroot

DIGITS = 30
_WIDEN = mpmath.mpf(10) ** -20          # relative: mpmath's values are far more accurate than this


class Unbounded(Exception):
    """No bound is known for this eigenvalue or this form."""


@dataclass(frozen=True)
class Linear:
    """``lo0 + lo1*n <= value(n) <= hi0 + hi1*n`` for every ``n >= start``, with ``lo(n) > 0`` there."""

    lo0: float
    lo1: float
    hi0: float
    hi1: float
    start: int


def _down(x: mpmath.mpf) -> float:
    return float(x - abs(x) * _WIDEN - mpmath.mpf(10) ** -25)


def _up(x: mpmath.mpf) -> float:
    return float(x + abs(x) * _WIDEN + mpmath.mpf(10) ** -25)


def _phi(nu: int, x: mpmath.mpf) -> mpmath.mpf:
    return 1 - (4 * nu**2 - 1) / (4 * x**2)


def _zeros(nu: int) -> Linear:
    """The bounds of ``j_{nu,n}`` for n >= 1 (Sturm comparison from the first zero)."""
    with mpmath.workdps(DIGITS):
        first, pi = mpmath.besseljzero(nu, 1), mpmath.pi
        stretched = pi / mpmath.sqrt(_phi(nu, first))
        near, far = (stretched, pi) if nu == 0 else (pi, stretched)
        return Linear(_down(first - near), _down(near), _up(first - far), _up(far), 1)


def linear(node: EigenvalueFunction, index: sp.Symbol) -> Linear:
    """The linear bounds of ``node`` (whose index must be ``index`` itself) in ``index``."""
    if node.index != index:
        raise Unbounded(f"{node}: its index is not the series' index")
    if isinstance(node, robinroot):
        from desyr.symbolic.robin import layout
        shape = layout(tuple(node.constants))
        shift = shape.first - len(shape.low) - 1 - (0.5 if shape.kind == "tan" else 0.0)
        pi_lo, pi_hi = _down(mpmath.pi), _up(mpmath.pi)
        return Linear(shift * (pi_lo if shift >= 0 else pi_hi), pi_lo, (shift + 1) * (pi_hi if shift + 1 >= 0 else pi_lo),
                      pi_hi, len(shape.low) + 1)
    nu = int(node.args[0])
    if isinstance(node, besseljzero):
        return _zeros(nu)
    if isinstance(node, besseljpzero):
        if nu == 0:
            return _zeros(1)
        zeros = _zeros(nu)           # j_{nu,n-1} < j'_{nu,n} < j_{nu,n}
        return Linear(zeros.lo0 - zeros.lo1, zeros.lo1, zeros.hi0, zeros.hi1, 2)
    if isinstance(node, dinizero):
        zeros = _zeros(nu)           # j_{nu,n-1} < d_{nu,n} < j_{nu,n} (desyr.symbolic.dini)
        return Linear(zeros.lo0 - zeros.lo1, zeros.lo1, zeros.hi0, zeros.hi1, 2)
    raise Unbounded(f"no bounds for {node}")


def at_zero(call: sp.Expr, index: sp.Symbol) -> tuple[float, float]:
    """``[rho_lo, rho_hi]`` with ``|call| = rho/sqrt(lambda_k)`` for ``call`` a Bessel function at a zero
    (``besselj(nu +- 1, besseljzero(nu, k))`` or ``besselj(nu, besseljpzero(nu, k))``), for every k."""
    if not isinstance(call, sp.besselj) or not call.args[0].is_Integer:
        raise Unbounded(f"{call} is not a Bessel function at a zero")
    order, zero = int(call.args[0]), call.args[1]
    if not isinstance(zero, (besseljzero, besseljpzero, dinizero)) or zero.index != index:
        raise Unbounded(f"{call} is not a Bessel function at a zero of the series' index")
    nu = int(zero.args[0])
    with mpmath.workdps(DIGITS):
        if isinstance(zero, besseljzero) and abs(order - nu) == 1:
            x = mpmath.besseljzero(nu, 1)
            slope, phi = mpmath.besselj(nu, x, derivative=1), _phi(nu, x)
            first = x * slope**2 / phi                               # F at the first zero
            low, high = (first, phi * 2 / mpmath.pi) if nu == 0 else (phi * 2 / mpmath.pi, first)
        elif isinstance(zero, besseljpzero) and order == nu:
            x = mpmath.besseljzero(nu, 2 if nu == 0 else 1, derivative=1)     # mpmath counts 0 for nu = 0
            phi = _phi(nu, x)
            first = mpmath.besselj(nu, x) ** 2 * (x + 1 / (4 * x * phi))
            squeeze = 1 + 1 / (4 * x**2 * phi)
            low, high = (first / squeeze, 2 / mpmath.pi) if nu == 0 else (2 / mpmath.pi / squeeze, first)
        elif isinstance(zero, dinizero) and order == nu:
            low, high = _at_dini(nu, zero.args[1])
        else:
            raise Unbounded(f"{call}: no bound at this zero")
        return _down(mpmath.sqrt(low)), _up(mpmath.sqrt(high))


def _at_dini(nu: int, h: sp.Expr) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``x*J_nu(x)**2 = F/S`` at the roots of Dini's equation, ``S = 1 + (1/2 - h)**2/(x**2 - nu**2 + 1/4)``
    decreasing to 1, ``F`` monotone from its value at the first root to ``2/pi`` where ``phi > 0``."""
    x = dinizero(nu, h, 1).evalf(DIGITS + 5)
    x = mpmath.mpf(str(x))
    if x**2 <= nu**2 - mpmath.mpf(1) / 4:
        raise Unbounded(f"dinizero({nu}, {h}, k): the first root lies where phi < 0")
    squeeze = 1 + (mpmath.mpf(1) / 2 - mpmath.mpf(str(sp.N(h, DIGITS + 5))))**2 / (x**2 - nu**2 + mpmath.mpf(1) / 4)
    first = x * mpmath.besselj(nu, x) ** 2 * squeeze                      # F at the first root
    least, most = (first, 2 / mpmath.pi) if nu == 0 else (2 / mpmath.pi, first)
    return least / squeeze, most
