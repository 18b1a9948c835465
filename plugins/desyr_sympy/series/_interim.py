"""TEMPORARY stand-ins for the series contract's names until h-series-answer is merged (removed then)."""
from __future__ import annotations

from typing import Any

import mpmath
from mpmath.libmp import prec_to_dps
import sympy as sp


def series_index(name: str, lower: int) -> sp.Symbol:
    return sp.Symbol(name, integer=True, nonnegative=True) if lower >= 0 else sp.Symbol(name, integer=True)


class besseljzero(sp.Function):  # noqa: N801
    nargs = 2
    is_real = True
    is_positive = True

    def _eval_evalf(self, prec: int) -> Any:
        nu, k = self.args
        if not (nu.is_Integer and k.is_Integer):
            return None
        with mpmath.workprec(prec):
            return sp.Float(mpmath.besseljzero(int(nu), int(k)), prec_to_dps(prec))

    def defining_equation(self, s: sp.Expr) -> sp.Expr:
        return sp.besselj(self.args[0], s)


class besseljpzero(sp.Function):  # noqa: N801
    nargs = 2
    is_real = True
    is_positive = True

    def _eval_evalf(self, prec: int) -> Any:
        nu, k = self.args
        if not (nu.is_Integer and k.is_Integer):
            return None
        with mpmath.workprec(prec):
            # mpmath counts the zero at 0 of J0' as the first one; the contract does not
            index = int(k) + (1 if int(nu) == 0 else 0)
            return sp.Float(mpmath.besseljzero(int(nu), index, derivative=1), prec_to_dps(prec))

    def defining_equation(self, s: sp.Expr) -> sp.Expr:
        return sp.diff(sp.besselj(self.args[0], s), s) if isinstance(s, sp.Symbol) else \
            (sp.besselj(self.args[0] - 1, s) - sp.besselj(self.args[0] + 1, s)) / 2


class robinroot(sp.Function):  # noqa: N801
    nargs = 4
    is_real = True
    is_positive = True

    def _eval_evalf(self, prec: int) -> Any:
        k, a, b, c = self.args
        if not all(v.is_number for v in self.args):
            return None
        fa, fb, fc = (float(v) for v in (a, b, c))

        def f(s: Any) -> Any:
            return (fa - fb * s**2) * mpmath.sin(s) + fc * s * mpmath.cos(s)
        import math
        roots, grid, step = [], 1e-9, 1e-2
        left = (fa - fb * grid**2) * math.sin(grid) + fc * grid * math.cos(grid)
        while len(roots) < int(k):
            z = grid + step
            right = (fa - fb * z**2) * math.sin(z) + fc * z * math.cos(z)
            if left == 0 or left * right < 0:
                roots.append((grid, z))
            grid, left = z, right
        with mpmath.workprec(prec + 20):
            return sp.Float(mpmath.findroot(f, roots[-1], solver="anderson"), prec_to_dps(prec))

    def defining_equation(self, s: sp.Expr) -> sp.Expr:
        _, a, b, c = self.args
        return (a - b * s**2) * sp.sin(s) + c * s * sp.cos(s)
