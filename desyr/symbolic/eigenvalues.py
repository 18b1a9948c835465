"""Named eigenvalue functions: eigenvalues with no closed form, as SymPy functions evaluated to any
precision (Mathematica's ``BesselJZero``, Maple's ``RootOf``).

- ``besseljzero(nu, k)``: the k-th positive zero ``j_{nu,k}`` of ``besselj(nu, z)``;
- ``besseljpzero(nu, k)``: the k-th positive zero ``j'_{nu,k}`` of its derivative (for nu = 0 the zero
  at z = 0 is not counted: the constant mode of a Neumann disk is written on its own);
- ``robinroot(k, a, b, c)``: the k-th positive root ``s`` of ``(a - b*s**2)*sin(s) + c*s*cos(s)``, the
  characteristic equation of ``X'' + mu**2*X = 0`` on ``[0, L]`` with separated Dirichlet, Neumann or
  Robin ends (``s = mu*L``; the map from the ends to ``a, b, c`` is in ``docs/series.md``).

Why the values are simple and increasing in k: the zeros of ``J_nu`` (nu >= 0) are real, simple and
interlace with those of ``J_nu'`` (Watson, *A treatise on the theory of Bessel functions*, 15.21-15.22:
a common zero would make ``J_nu`` vanish identically by the uniqueness of the ODE's solution);
``robinroot``'s are the square roots of the eigenvalues ``(mu*L)**2`` of a regular Sturm-Liouville
problem with separated conditions, which are simple zeros of its characteristic function and
increase without bound (Zettl, *Sturm-Liouville Theory*, Theorem 4.3.1; Coddington-Levinson ch. 8).
For ``robinroot`` the computation proves it again for the roots it brackets
(:mod:`desyr.symbolic.robin`): each bracket holds exactly one root, where the derivative cannot vanish.

Each function has :meth:`defining_equation` (the expression in ``s`` that vanishes at the value), a
LaTeX form, ``evalf`` at any precision and :meth:`numpy_values` (the first values as doubles, for the
vectorised evaluation of a series and for the exports' literals).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import sympy as sp

#: the largest index whose value is computed (a series is truncated long before)
MAX_INDEX = 1_000_000
#: the largest Bessel order (as :data:`desyr.symbolic.special.MAX_ORDER`)
MAX_ORDER = 50


class EigenvalueFunction(sp.Function):  # type: ignore[misc]  # SymPy's classes are untyped (Any)
    """A positive real number that no closed form gives; subclasses say how to compute it."""

    #: the argument positions of the index k and of the constants
    index_position = 1

    def _eval_is_real(self) -> bool:
        return True

    def _eval_is_extended_real(self) -> bool:
        return True

    def _eval_is_positive(self) -> bool:
        return True

    def _eval_is_finite(self) -> bool:
        return True

    def _eval_is_zero(self) -> bool:
        return False

    def _latex(self, printer: Any, exp: str | None = None) -> str:
        # SymPy's printer passes a power's exponent to a function's own printer (k_n^2 in a heat series)
        text = self.latex_symbol(printer)
        return text if exp is None else f"\\left({text}\\right)^{{{exp}}}"

    def latex_symbol(self, printer: Any) -> str:
        """The value's symbol in LaTeX (its name and arguments, by default)."""
        args = ", ".join(printer._print(a) for a in self.args)
        return f"\\operatorname{{{type(self).__name__}}}\\left({args}\\right)"

    @property
    def index(self) -> sp.Expr:
        """The index k (1, 2, ...) of the value."""
        return self.args[self.index_position]

    @property
    def constants(self) -> tuple[sp.Expr, ...]:
        """Every argument but the index."""
        return tuple(a for i, a in enumerate(self.args) if i != self.index_position)

    def defining_equation(self, s: sp.Expr) -> sp.Expr:
        """The expression in ``s`` that vanishes at this value."""
        raise NotImplementedError

    def _eval_evalf(self, prec: int) -> sp.Float | None:
        k = self.index
        if not (k.is_Integer and 1 <= int(k) <= MAX_INDEX and all(c.is_number for c in self.constants)):
            return None
        with mpmath.workprec(prec + 20):
            value = mpmath.mpf(self.mpmath_value(int(k), prec + 20))
        return sp.Float._new(value._mpf_, prec)

    def mpmath_value(self, k: int, prec: int) -> mpmath.mpf:
        """The k-th value at ``prec`` bits."""
        raise NotImplementedError

    @classmethod
    def numpy_values(cls, constants: tuple[sp.Expr, ...], count: int) -> np.ndarray:
        """The values for k = 1 .. count, as doubles."""
        raise NotImplementedError


def _order(nu: sp.Expr) -> int:
    if not (nu.is_Integer and 0 <= int(nu) <= MAX_ORDER):
        raise ValueError(f"the order {nu} must be an integer from 0 to {MAX_ORDER}")
    return int(nu)


class besseljzero(EigenvalueFunction):  # noqa: N801 - the name the expression language writes
    """``besseljzero(nu, k)``: the k-th positive zero of ``besselj(nu, z)``, ``j_{nu,k}``."""

    nargs = 2

    def defining_equation(self, s: sp.Expr) -> sp.Expr:
        return sp.besselj(self.args[0], s)

    def mpmath_value(self, k: int, prec: int) -> mpmath.mpf:
        return mpmath.besseljzero(_order(self.args[0]), k)

    @classmethod
    def numpy_values(cls, constants: tuple[sp.Expr, ...], count: int) -> np.ndarray:
        from scipy.special import jn_zeros, jv, jvp
        nu = _order(constants[0])
        zeros = np.asarray(jn_zeros(nu, count), dtype=float)
        return np.asarray(zeros - jv(nu, zeros) / jvp(nu, zeros, 1))    # one Newton step: to the last bit

    def latex_symbol(self, printer: Any) -> str:
        return f"j_{{{printer._print(self.args[0])},{printer._print(self.args[1])}}}"


class besseljpzero(EigenvalueFunction):  # noqa: N801 - the name the expression language writes
    """``besseljpzero(nu, k)``: the k-th positive zero of the derivative of ``besselj(nu, z)``,
    ``j'_{nu,k}`` (z = 0 is not counted for nu = 0)."""

    nargs = 2

    def defining_equation(self, s: sp.Expr) -> sp.Expr:
        nu = self.args[0]
        return (sp.besselj(nu - 1, s) - sp.besselj(nu + 1, s)) / 2

    def mpmath_value(self, k: int, prec: int) -> mpmath.mpf:
        nu = _order(self.args[0])
        return mpmath.besseljzero(nu, k + 1 if nu == 0 else k, derivative=1)   # mpmath counts 0 for nu = 0

    @classmethod
    def numpy_values(cls, constants: tuple[sp.Expr, ...], count: int) -> np.ndarray:
        from scipy.special import jnp_zeros, jvp
        nu = _order(constants[0])
        zeros = np.asarray(jnp_zeros(nu, count), dtype=float)
        return np.asarray(zeros - jvp(nu, zeros, 1) / jvp(nu, zeros, 2))

    def latex_symbol(self, printer: Any) -> str:
        return f"j'_{{{printer._print(self.args[0])},{printer._print(self.args[1])}}}"


class robinroot(EigenvalueFunction):  # noqa: N801 - the name the expression language writes
    """``robinroot(k, a, b, c)``: the k-th positive root of ``(a - b*s**2)*sin(s) + c*s*cos(s)``."""

    nargs = 4
    index_position = 0

    @classmethod
    def eval(cls, k: sp.Expr, a: sp.Expr, b: sp.Expr, c: sp.Expr) -> sp.Expr | None:
        # the pure Dirichlet/Neumann pairs have closed-form roots: the function is never needed for them
        if a.is_zero and b.is_zero and c.is_zero is False:
            return (k - sp.Rational(1, 2)) * sp.pi
        if c.is_zero and ((a.is_zero and b.is_zero is False) or (b.is_zero and a.is_zero is False)):
            return k * sp.pi
        return None

    def defining_equation(self, s: sp.Expr) -> sp.Expr:
        a, b, c = self.args[1:]
        return (a - b * s**2) * sp.sin(s) + c * s * sp.cos(s)

    def mpmath_value(self, k: int, prec: int) -> mpmath.mpf:
        from desyr.symbolic.robin import root
        return root(self.args[1:], k, prec)

    @classmethod
    def numpy_values(cls, constants: tuple[sp.Expr, ...], count: int) -> np.ndarray:
        from desyr.symbolic.robin import roots_float
        return roots_float(tuple(constants), count)

    def latex_symbol(self, printer: Any) -> str:
        rest = ", ".join(printer._print(a) for a in self.args[1:])
        return f"\\operatorname{{robinroot}}_{{{printer._print(self.args[0])}}}\\left({rest}\\right)"


#: the functions by the name the expression language writes, and their argument counts
EIGENVALUES: dict[str, type[EigenvalueFunction]] = {
    "besseljzero": besseljzero, "besseljpzero": besseljpzero, "robinroot": robinroot,
}
ARITY = {"besseljzero": 2, "besseljpzero": 2, "robinroot": 4}


def numpy_function(node: EigenvalueFunction) -> Callable[[Any], np.ndarray]:
    """The values of ``node`` for an array of its index (a lambdified series' term), looked up in a table
    of the first ``max(k)`` values kept per function and constants; nan at an index that is not a
    positive integer."""
    cls, constants = type(node), node.constants

    def values(k: Any) -> np.ndarray:
        k = np.asarray(k, dtype=float)
        if k.size == 0:
            return np.zeros(k.shape)
        whole = np.rint(np.where(np.isfinite(k), k, 0)).astype(np.int64)
        bad = (whole < 1) | (whole != k)
        table = _table(cls, constants, int(whole.max(initial=1)))
        return np.where(bad, np.nan, table[np.clip(whole, 1, None) - 1])
    return values


_TABLES: dict[tuple[str, tuple[sp.Expr, ...]], np.ndarray] = {}


def _table(cls: type[EigenvalueFunction], constants: tuple[sp.Expr, ...], count: int) -> np.ndarray:
    if count > MAX_INDEX:
        raise ValueError(f"{cls.__name__}: index {count} beyond {MAX_INDEX}")
    key = (cls.__name__, constants)
    known = _TABLES.get(key)
    if known is None or len(known) < count:
        known = cls.numpy_values(constants, max(count, 2 * len(known) if known is not None else 64))
        _TABLES[key] = known
    return known
