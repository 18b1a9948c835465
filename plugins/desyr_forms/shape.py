"""A form's structure (:class:`Shape`): ``(A*f(inner)**p + B) * factor``, its parameter vector,
values and SymPy expression.

The parameters are, in order: ``A`` (when free), ``B`` (when free), the inner's coefficients, the
factor's parameters.  A parameter whose value is exactly 0 or +-1 is structure: a zero term is left
out of the expression and a unit coefficient is written as an integer.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from desyr.plugin import UNARY_OPERATORS
from desyr_forms.inner import Inner, Mono, design
from desyr_forms.outer import Outer, real_power


@dataclass(frozen=True)
class Factor:
    """A separate factor in one variable ``v``: ``(v + c)**p``, ``exp(a*v)`` or ``cos(w*v + phi)``."""

    kind: str                       # "power", "exp", "cos"
    var: int
    power: Fraction = Fraction(1)
    sine: bool = False              # the task allows sin: a quarter-turn phase is written as sin

    @property
    def size(self) -> int:
        return 2 if self.kind == "cos" else 1

    def values(self, X: np.ndarray, q: np.ndarray) -> np.ndarray:
        t = X[:, self.var]
        with np.errstate(all="ignore"):
            if self.kind == "power":
                base = t + q[0]
                return np.where(base > 0, real_power(base, self.power), np.nan)
            if self.kind == "exp":
                return np.asarray(np.exp(q[0] * t))
            return np.asarray(np.cos(q[0] * t + q[1]))

    def sympy(self, symbols: Sequence[sp.Symbol], q: Sequence[float]) -> sp.Expr:
        t = symbols[self.var]
        if self.kind == "power":
            return (t + _const(q[0])) ** sp.Rational(self.power.numerator, self.power.denominator)
        if self.kind == "exp":
            return sp.exp(_const(q[0]) * t)
        w, phi = float(q[0]), float(q[1])
        half = phi / (np.pi / 2)
        if abs(half - round(half)) < 1e-12 and phi != 0 and (self.sine or round(half) % 2 == 0):
            quarter = int(round(half)) % 4
            sign = -1 if quarter in (1, 2) else 1
            fn = sp.sin if quarter % 2 else sp.cos
            return sign * fn(_const(w) * t)
        return sp.cos(_const(w) * t + _const(phi)) if phi else sp.cos(_const(w) * t)


@dataclass(frozen=True)
class Shape:
    """``(A*f(inner)**p + B) * factor``; the inner reads the columns ``cols`` of X."""

    outer: Outer
    inner: Inner
    cols: tuple[int, ...]
    a_free: bool
    b_free: bool
    a_fixed: float = 1.0
    factor: Factor | None = None

    @property
    def size(self) -> int:
        return int(self.a_free) + int(self.b_free) + self.inner.size + (self.factor.size if self.factor else 0)

    def split(self, theta: np.ndarray) -> tuple[float, float, np.ndarray, np.ndarray]:
        i = 0
        A = float(theta[i]) if self.a_free else self.a_fixed
        i += int(self.a_free)
        B = float(theta[i]) if self.b_free else 0.0
        i += int(self.b_free)
        c = theta[i:i + self.inner.size]
        return A, B, c, theta[i + self.inner.size:]

    def predict(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray:
        A, B, c, q = self.split(theta)
        with np.errstate(all="ignore"):
            out = A * self.outer.f(self.inner.values(X[:, list(self.cols)], c)) + B
            return out * self.factor.values(X, q) if self.factor else out

    def sympy(self, symbols: Sequence[sp.Symbol], theta: np.ndarray) -> sp.Expr:
        A, B, c, q = self.split(theta)
        inner = self.inner.sympy([symbols[i] for i in self.cols], [float(v) for v in c])
        core = UNARY_OPERATORS[self.outer.name].sympy(inner) if self.outer.name else inner
        if self.outer.power != 1:
            core = core ** sp.Rational(self.outer.power.numerator, self.outer.power.denominator)
        out = _const(A) * core + (_const(B) if B else sp.Integer(0))
        return out * self.factor.sympy(symbols, [float(v) for v in q]) if self.factor else out

    def with_factor(self, factor: Factor | None) -> Shape:
        return Shape(self.outer, self.inner, self.cols, self.a_free, self.b_free, self.a_fixed, factor)

    def coefficient_columns(self, X: np.ndarray) -> list[np.ndarray | None]:
        """For each parameter, the column its inner coefficient multiplies (None for A, B, factor)."""
        sub = X[:, list(self.cols)]
        free_num: tuple[Mono, ...] = self.inner.num[int(self.inner.fixed_one):]
        cols: list[np.ndarray | None] = [None] * (int(self.a_free) + int(self.b_free))
        cols += list(design(sub, free_num).T) + list(design(sub, self.inner.den).T)
        return cols + [None] * (self.factor.size if self.factor else 0)


def _const(v: float) -> sp.Expr:
    """``v`` as a SymPy number: +-1 and 0 are structure (integers), the rest provisional Floats."""
    if v in (0.0, 1.0, -1.0):
        return sp.Integer(int(v))
    return sp.Float(float(v))


class Compiled:
    """A shape's values and Jacobian at fixed rows X (the monomial columns computed once): what the
    refinement calls hundreds of times.  Derivatives are exact but for the outer's own (a central
    difference in one variable) and the factor's (differences of its one or two parameters)."""

    def __init__(self, shape: Shape, X: np.ndarray) -> None:
        self.shape, self.X = shape, X
        sub = X[:, list(shape.cols)]
        self.N = design(sub, shape.inner.num)
        self.D = design(sub, shape.inner.den) if shape.inner.den else None

    def _inner(self, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p, q = self.shape.inner.full(c)
        P = self.N @ p
        Q = 1.0 + self.D @ q if self.D is not None else np.ones_like(P)
        r = P / Q
        return r, Q, (np.exp(r) if self.shape.inner.exp else r)

    def predict(self, theta: np.ndarray) -> np.ndarray:
        A, B, c, q = self.shape.split(theta)
        with np.errstate(all="ignore"):
            out = A * self.shape.outer.f(self._inner(c)[2]) + B
            return out * self.shape.factor.values(self.X, q) if self.shape.factor else out

    def jacobian(self, theta: np.ndarray) -> np.ndarray:
        shape = self.shape
        A, B, c, q = shape.split(theta)
        with np.errstate(all="ignore"):
            r, Q, u = self._inner(c)
            h = shape.outer.f(u)
            g = shape.factor.values(self.X, q) if shape.factor else np.ones_like(u)
            step = 1e-6 * (1.0 + np.abs(u))
            dh = (shape.outer.f(u + step) - shape.outer.f(u - step)) / (2 * step)
            du = (u if shape.inner.exp else 1.0) * A * dh * g / Q     # d y / d P (Q held)
            cols: list[np.ndarray] = []
            if shape.a_free:
                cols.append(h * g)
            if shape.b_free:
                cols.append(g)
            cols += list((self.N[:, int(shape.inner.fixed_one):] * du[:, None]).T)
            if self.D is not None:
                cols += list((-self.D * (du * r)[:, None]).T)
            if shape.factor:
                base = A * h + B
                for k in range(len(q)):
                    dq = np.zeros_like(q)
                    dq[k] = 1e-7 * (1.0 + abs(q[k]))
                    diff = shape.factor.values(self.X, q + dq) - shape.factor.values(self.X, q - dq)
                    cols.append(base * diff / (2 * dq[k]))
            J = np.column_stack(cols) if cols else np.zeros((len(u), 0))
        return np.where(np.isfinite(J), J, 0.0)
