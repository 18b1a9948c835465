"""The positive roots of ``g(s) = s*J_nu'(s) + h*J_nu(s)`` (Dini's equation: a Robin condition on a disk's
rim), each in a bracket proved to hold exactly one: what ``dinizero(nu, h, k)`` evaluates.

**The brackets.**  Between consecutive zeros of ``J_nu`` the function ``y(s) = s*J_nu'(s)/J_nu(s)``
decreases strictly: by the Mittag-Leffler expansion ``y(s) = nu - 2*sum_j s**2/(j_{nu,j}**2 - s**2)``
(Watson, *A treatise on the theory of Bessel functions*, 15.41), each term of which increases with ``s``.
So ``y`` runs from ``+oo`` down to ``-oo`` on each ``(j_{nu,k-1}, j_{nu,k})``, ``k >= 2``, and from ``nu`` down
to ``-oo`` on ``(0, j_{nu,1})``.  Since ``g = J_nu*(y + h)`` and ``g = s*J_nu' != 0`` at a zero of ``J_nu`` (the
zeros are simple), for ``h + nu > 0`` the k-th positive root of ``g`` is the one root in
``(j_{nu,k-1}, j_{nu,k})`` (``j_{nu,0} = 0``), and it is simple (``g' = J_nu*y' != 0`` there).  The value is
found there by a bracketing solver at the precision asked and checked to lie in the bracket.

**The Bessel function at a root** (the norm ``R**2/2*J_nu(s)**2*(s**2 + h**2 - nu**2)/s**2``):
``J_nu(s) != 0`` at a root, and with ``x*J_nu(x)**2 = F/(1 + (1/2 - h)**2/(x**2*phi))`` there
(``F = y**2 + y'**2/phi`` of :mod:`desyr.symbolic.eigen_bounds`, ``y = sqrt(x)*J_nu``) it is enclosed
like the Bessel function at a zero of ``J_nu'``.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from desyr.symbolic.special import MAX_ORDER  # the largest Bessel order (eigenvalues' is the same)


def _exact(nu: sp.Expr, h: sp.Expr) -> tuple[int, sp.Expr]:
    if not (nu.is_Integer and 0 <= int(nu) <= MAX_ORDER):
        raise ValueError(f"dinizero's order {nu} must be an integer from 0 to {MAX_ORDER}")
    h = sp.sympify(h)
    if not h.is_number or h.is_real is not True or h.has(sp.Float):
        raise ValueError(f"dinizero's constant h must be an exact real number, got {h}")
    if not (h + nu).is_positive:
        raise ValueError(f"dinizero({nu}, {h}, k) needs h + nu > 0 (else a root is not real, or 0 is one)")
    return int(nu), h


def check(nu: sp.Expr, h: sp.Expr) -> None:
    """Raise :class:`ValueError` unless ``dinizero(nu, h, k)`` is defined (an integer order, ``h + nu > 0``)."""
    _exact(nu, h)


def bracket(nu: int, k: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``(j_{nu,k-1}, j_{nu,k})`` at the current precision (``j_{nu,0} = 0``)."""
    low = mpmath.mpf(0) if k == 1 else mpmath.besseljzero(nu, k - 1)
    return low, mpmath.besseljzero(nu, k)


#: the fewest bits a root is found to: a proof asks for the same roots at many precisions from 20 bits up, and
#: one search at this many serves every request up to it
FLOOR_BITS = 128
#: each root's most precise value found so far, by (order, h, index): (bits, value)
_FOUND: dict[tuple[int, sp.Expr, int], tuple[int, mpmath.mpf]] = {}


def root(nu: sp.Expr, h: sp.Expr, k: int, prec: int) -> mpmath.mpf:
    order, exact = _exact(nu, h)
    key = (order, exact, int(k))
    found = _FOUND.get(key)
    if found is None or found[0] < prec:
        bits = max(int(prec), FLOOR_BITS)
        if len(_FOUND) >= 4096:
            _FOUND.clear()
        found = _FOUND[key] = (bits, _root(order, exact, int(k), bits))
    return found[1]


def _root(nu: int, h: sp.Expr, k: int, prec: int) -> mpmath.mpf:
    if k < 1:
        raise ValueError(f"dinizero: the index must be a positive integer, got {k}")
    with mpmath.workprec(prec + 20):
        value_h = mpmath.mpf(str(sp.N(h, mpmath.mp.dps + 10)))
        lo, hi = bracket(nu, k)

        def g(s: mpmath.mpf) -> mpmath.mpf:
            return s * mpmath.besselj(nu, s, derivative=1) + value_h * mpmath.besselj(nu, s)
        left = lo
        if k == 1:                      # g(s) ~ (nu + h)*(s/2)**nu/nu! > 0 near 0: a point below the root
            left = hi / 2
            while g(left) * g(hi) > 0:
                left /= 2
                if left < mpmath.mpf(2) ** (-prec):
                    raise ArithmeticError("dinizero: no sign change below the first zero")
        value = mpmath.findroot(g, (left, hi), solver="anderson", tol=mpmath.mpf(2) ** (-prec - 12), maxsteps=400,
                                verify=False)
        if not lo <= value <= hi:
            raise ArithmeticError(f"dinizero: the solver left the bracket of root {k}")
        return +value


def roots_float(nu: sp.Expr, h: sp.Expr, count: int) -> np.ndarray:
    """The first ``count`` roots as doubles: bisection of ``y + h`` between consecutive zeros of ``J_nu``,
    vectorised, then one Newton step."""
    from scipy.special import jn_zeros, jv, jvp
    order, exact = _exact(nu, h)
    value_h = float(exact)
    zeros = np.asarray(jn_zeros(order, count), dtype=float)
    lo = np.concatenate([[0.0], zeros[:-1]])
    hi = zeros.copy()
    lo_first = float(root(nu, h, 1, 64))                   # the first bracket starts at 0, where g vanishes too
    lo[0], hi[0] = lo_first, lo_first

    def g(s: np.ndarray) -> np.ndarray:
        return np.asarray(s * jvp(order, s, 1) + value_h * jv(order, s))
    at_hi = np.sign(g(hi[1:]))
    a, b = lo[1:], hi[1:]
    for _ in range(60):
        middle = (a + b) / 2
        same = np.sign(g(middle)) == at_hi
        a, b = np.where(same, a, middle), np.where(same, middle, b)
    rest = (a + b) / 2
    slope = jvp(order, rest, 1) * (1 + value_h) + rest * jvp(order, rest, 2)
    rest = rest - g(rest) / np.where(slope != 0, slope, 1.0)
    return np.concatenate([[lo_first], rest])
