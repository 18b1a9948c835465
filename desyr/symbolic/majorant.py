"""A proved majorant of a series' term, uniform over a box: ``|term(n, x)| <= C * n**(-p) * exp(alpha*n**2
+ beta*n + gamma)`` for every index ``n >= start`` and every point ``x`` of the box, and the tail it bounds.

How a term is read (``docs/series.md``):
- a factor free of the index is enclosed over the box (interval arithmetic, :mod:`desyr.symbolic.enclosure`);
- a sum of exponential factors (``sinh(n*y) + sinh(n*(1 - y))``) is read addend by addend, each with the
  rest of its product (the triangle inequality);
- the exponential factors (``exp``, ``sinh``, ``cosh``, their reciprocals, ``r**n``, ``1/factorial(k)``) are
  gathered into one exponent, using ``1/k! <= exp(e**3 - 3*k)`` (``sum (e**4/e)**k/k! = exp(e**3)``), ``|sinh(A)| <= exp(|A|)/2``, ``cosh(A) <= exp(|A|)``, ``1/|sinh(B)| <= 2*exp(-|B|)/(1 -
  exp(-2*b))`` where ``|B| >= b`` (``b`` nondecreasing in ``n``) and ``1/cosh(B) <= 2*exp(-|B|)``; the
  exponent, a polynomial of degree at most 2 in the index and the eigenvalues (each between two linear
  functions of the index, :mod:`desyr.symbolic.eigen_bounds`), is bounded above coefficient by coefficient;
- the rest is algebraic in the index: ``sin``, ``cos``, ``besselj`` of an index-dependent argument and
  ``(-1)**n`` lie in ``[-1, 1]``, each eigenvalue is ``n*theta`` with ``theta`` in an interval, a Bessel
  function at a zero is ``rho/sqrt(lambda)``; with ``n = 1/w**2`` the quotient of polynomials in ``w`` is
  ``w**(qN - qD)`` times a quotient enclosed over ``w`` in ``[0, 1/sqrt(start)]``, whose denominator must
  stay away from 0.
- The tail ``sum_{n >= N} C*n**(-p)*exp(q(n))`` is bounded by a geometric series where the ratio of
  consecutive majorants is below 1 (``alpha < 0`` or ``beta < 0``), else, with ``q = 0`` and ``p > 1``, by
  ``C*exp(gamma)*(N**(-p) + N**(1 - p)/(p - 1))`` (the integral test).  Nothing else is bounded.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import sympy as sp

from desyr.symbolic.eigen_bounds import Linear, Unbounded, at_zero, linear
from desyr.symbolic.eigenvalues import EigenvalueFunction
from desyr.symbolic.enclosure import Intervals, least_magnitude, magnitude, supremum
from desyr.symbolic.exponent import exponent_bound
from desyr.symbolic.interval_numbers import interval_precision
from desyr.symbolic.majorant_form import FAILURES, Bound, Lesser, Majorant, NoMajorant, product_up, remembered, summed

#: the first indices a majorant may start from (a denominator may vanish near the first index only)
STARTS = (1, 2, 4, 8, 16, 64)
#: the most powers of ``w`` an algebraic part's top is read apart in (more: its one form alone)
MOST_POWERS = 6


def majorant(term: sp.Expr, index: sp.Symbol, box: Mapping[sp.Symbol, tuple[float, float]]) -> Bound | None:
    """A majorant of ``|term|`` over ``box`` (every other free symbol must have its interval there), or None."""
    from mpmath import iv
    with interval_precision():
        intervals = {s: iv.mpf([lo, hi]) for s, (lo, hi) in box.items()}
    if not term.free_symbols <= {index, *intervals}:
        return None
    for start in STARTS:
        try:
            with interval_precision():
                return Reader(index, intervals, start).bound(term)
        except FAILURES:
            continue
    return None


class Reader:
    """Reads one term's majorant for one index over the box's intervals, from the index ``start`` on."""

    def __init__(self, index: sp.Symbol, intervals: Intervals, start: int) -> None:
        self.n, self.intervals, self.start = index, intervals, start
        self.w = sp.Dummy("w", positive=True)

    def bound(self, expr: sp.Expr) -> Bound:
        if self.n not in expr.free_symbols:
            return Majorant(magnitude(expr, self.intervals), 0.0, start=self.start)
        if isinstance(expr, sp.Add):
            parts = [self.bound(a) for a in expr.args]
            out = parts[0]
            for part in parts[1:]:
                out = out.plus(part)
            return out
        factors = sp.Mul.make_args(expr)
        for i, factor in enumerate(factors):
            if isinstance(factor, sp.Add) and self.n in factor.free_symbols and factor.has(sp.exp, sp.sinh, sp.cosh):
                # (sinh(n*y) + sinh(n*(1 - y)))/sinh(n): each addend with the rest of the product, added
                rest = sp.Mul(*factors[:i], *factors[i + 1:])
                return self.bound(sp.Add(*[sp.Mul(rest, a) for a in factor.args], evaluate=False))
        growing = [f for f in factors if self._exponential(f)]
        rest = [f for f in factors if not self._exponential(f)]
        out = exponent_bound(self, growing) if growing else Majorant(1.0, 0.0, start=self.start)
        if rest:
            out = out.times(self._algebraic(sp.Mul(*rest)))
        return out

    def _exponential(self, f: sp.Expr) -> bool:
        base, power = f.as_base_exp() if isinstance(f, sp.Pow) else (f, sp.Integer(1))
        if isinstance(base, (sp.exp, sp.sinh, sp.cosh)):
            return self.n in base.free_symbols and power.is_Integer
        if isinstance(base, sp.factorial):
            return self.n in base.free_symbols and power.is_Integer and power < 0
        return isinstance(f, sp.Pow) and self.n in f.exp.free_symbols and self.n not in f.base.free_symbols

    # ------------------------------------------------------------------ the algebraic part
    def _algebraic(self, expr: sp.Expr) -> Bound:
        """``|expr| <= C * n**(-p)``, from the quotient of polynomials in ``w = n**(-1/2)``; and, where its
        top has several powers of ``w``, the lesser of that and one form per power (``8/(pi**3*n**3) +
        1/(10**6*n**2)`` is not ``0.26/n**2``: 44j's s09 hid a wrong part in that allowance)."""
        plan = remembered("algebraic", (expr, self.n, self.start), lambda: self._quotient(expr))
        intervals = {**self.intervals, **plan.intervals}
        if plan.bottom is None:
            return Majorant(magnitude(plan.top, intervals), 0.0, start=self.start)
        intervals[plan.w] = _w_range(self.start)
        smallest = least_magnitude(plan.bottom, intervals)
        if smallest <= 0:
            raise NoMajorant(f"the denominator of {expr} may vanish")
        scale = 1 / smallest * (1 + 1e-12)
        one = Majorant(product_up(magnitude(plan.top, intervals), scale), plan.p, start=self.start)
        if len(plan.powers) < 2:
            return one
        apart = summed([Majorant(product_up(magnitude(c, intervals), scale), plan.p + k / 2, start=self.start)
                        for k, c in plan.powers])
        return Lesser(one, apart)

    def _quotient(self, expr: sp.Expr) -> _Quotient:
        """The box-free part of :meth:`_algebraic`: ``expr`` as ``w**(2*p)`` times a quotient of
        polynomials in ``w`` that do not vanish at 0 (or ``expr`` itself, free of the index once its
        bounded parts are interval symbols)."""
        intervals: dict[sp.Symbol, object] = {}
        replaced = self._replace_bounded(expr, intervals)
        if self.n not in replaced.free_symbols:
            return _Quotient(intervals, self.w, replaced, None, 0.0)
        together = sp.together(replaced.xreplace({self.n: 1 / self.w**2}))
        top, bottom = sp.fraction(together)
        q_top, top_rest = self._lowest(top)
        q_bottom, bottom_rest = self._lowest(bottom)
        return _Quotient(intervals, self.w, top_rest, bottom_rest, (q_top - q_bottom) / 2, self._powers(top_rest))

    def _powers(self, top: sp.Expr) -> tuple[tuple[int, sp.Expr], ...]:
        """``top`` as its powers of ``w`` and their coefficients (none past :data:`MOST_POWERS` of them)."""
        try:
            poly = sp.Poly(sp.expand(top), self.w)
        except sp.PolynomialError:
            return ()
        terms = poly.terms()
        return tuple((m[0], c) for m, c in terms if c != 0) if 1 < len(terms) <= MOST_POWERS else ()

    def _lowest(self, polynomial: sp.Expr) -> tuple[int, sp.Expr]:
        """The lowest power of ``w`` in ``polynomial`` and the polynomial divided by it, its factors kept as
        they are where they do not vanish at ``w = 0`` (``(2 - w**2)**2`` encloses far tighter than its
        expansion)."""
        q, kept = 0, []
        for factor in sp.Mul.make_args(polynomial):
            base, power = factor.as_base_exp() if isinstance(factor, sp.Pow) else (factor, sp.Integer(1))
            if self.w not in base.free_symbols:
                kept.append(factor)
                continue
            if not (power.is_Integer and power > 0):
                raise NoMajorant(f"{factor} is not a polynomial in the index's reciprocal")
            poly = sp.Poly(sp.expand(base), self.w)
            terms = [(m[0], c) for m, c in poly.terms() if c != 0]
            if not terms:
                raise NoMajorant("a zero polynomial")
            low = min(m for m, _ in terms)
            q += low * int(power)
            kept.append(factor if low == 0 else sp.Add(*[c * self.w ** (m - low) for m, c in terms]) ** power)
        return q, sp.Mul(*kept)

    def _replace_bounded(self, expr: sp.Expr, intervals: dict[sp.Symbol, object]) -> sp.Expr:
        """Every index-dependent part that is not a power of the index made an interval symbol: ``sin``,
        ``cos``, ``besselj`` and ``(-1)**n`` in ``[-1, 1]``, an eigenvalue ``n*theta``, a Bessel function
        at a zero ``rho/sqrt(lambda)`` (as a factor of the whole product only: its sign alternates)."""
        from mpmath import iv
        mapping: dict[sp.Basic, sp.Expr] = {}
        factors = sp.Mul.make_args(expr)
        for factor in factors:
            base = factor.base if isinstance(factor, sp.Pow) and factor.exp.is_Integer else factor
            if isinstance(base, sp.besselj) and isinstance(base.args[1], EigenvalueFunction) and base not in mapping:
                try:
                    lo, hi = at_zero(base, self.n)
                except Unbounded:
                    continue
                rho = sp.Dummy("rho", positive=True)
                intervals[rho] = iv.mpf([lo, hi])
                mapping[base] = rho / sp.sqrt(base.args[1])
        expr = expr.xreplace(mapping) if mapping else expr
        for node in sorted(expr.atoms(EigenvalueFunction), key=sp.default_sort_key):
            bounds = linear(node, self.n)
            if bounds.start > self.start:
                raise NoMajorant("the eigenvalue's bounds start later")
            theta = sp.Dummy("theta", positive=True)
            intervals[theta] = _ratio_interval(bounds, self.start)
            expr = expr.xreplace({node: self.n * theta})
        swap: dict[sp.Basic, sp.Expr] = {}
        for node in sp.preorder_traversal(expr):
            if self.n not in node.free_symbols or node in swap:
                continue
            if isinstance(node, (sp.sin, sp.cos)) or (isinstance(node, sp.besselj) and node.args[0].is_Integer
                                                      and node.args[0] >= 0) or (
                    isinstance(node, sp.Pow) and node.base == -1 and node.exp.is_integer):
                sigma = sp.Dummy("sigma", real=True)
                intervals[sigma] = iv.mpf([-1, 1])
                swap[node] = sigma
        expr = expr.xreplace(swap) if swap else expr
        return self._replace_roots(expr, intervals)

    def _replace_roots(self, expr: sp.Expr, intervals: dict[sp.Symbol, object]) -> sp.Expr:
        """``P(n)**(k/2)``, ``P`` a polynomial in the index alone of degree ``d`` (an eigenvalue written out,
        ``sqrt(pi**2*n**2 - 1/25)``), as ``n**(d*k/2)`` times an interval symbol: ``(P(n)/n**d)**(k/2)``
        enclosed over ``w = n**(-1/2)`` in ``[0, 1/sqrt(start)]``."""
        from desyr.symbolic.enclosure import enclose
        from desyr.symbolic.interval_numbers import excludes_zero
        swap: dict[sp.Basic, sp.Expr] = {}
        for node in expr.atoms(sp.Pow):
            if node.exp.is_Rational and node.exp.q == 2 and node.base.free_symbols == {self.n} \
                    and node.base.is_polynomial(self.n):
                d = sp.degree(node.base, self.n)
                scaled = sp.expand(node.base.xreplace({self.n: 1 / self.w**2}) * self.w ** (2 * d))
                enclosed = enclose(scaled**node.exp, {self.w: _w_range(self.start)})
                if not excludes_zero(enclosed):
                    raise NoMajorant(f"{node} may vanish")
                kappa = sp.Dummy("kappa", positive=True)
                intervals[kappa] = enclosed
                swap[node] = self.n ** (d * node.exp) * kappa
        return expr.xreplace(swap) if swap else expr

    # ------------------------------------------------------------------ the exponent
    def absolute(self, expr: sp.Expr) -> sp.Expr:
        """``|expr|`` written without ``Abs`` around the index-dependent factors, whose sign is shown."""
        return remembered("absolute", (expr, self.n, self.start), lambda: self._absolute(expr))

    def _absolute(self, expr: sp.Expr) -> sp.Expr:
        out = sp.Integer(1)
        for factor in sp.Mul.make_args(sp.factor_terms(expr)):
            if self.n not in factor.free_symbols:
                out *= sp.Abs(factor)
                continue
            sign = self.sign(factor)
            out *= factor if sign > 0 else -factor
        return out

    def sign(self, expr: sp.Expr) -> int:
        """+1 or -1: the sign of an index-only ``expr`` for every index from the start."""
        return remembered("sign", (expr, self.n, self.start), lambda: self._sign(expr))

    def _sign(self, expr: sp.Expr) -> int:
        if expr.free_symbols - {self.n}:
            raise NoMajorant(f"the sign of {expr} varies over the box")
        if isinstance(expr, sp.Mul):
            return int(np.prod([self.sign(f) for f in expr.args]))
        if isinstance(expr, sp.Pow) and expr.exp.is_Integer:
            return self.sign(expr.base) ** int(expr.exp) if int(expr.exp) % 2 else (self.sign(expr.base) and 1)
        if expr.is_number:
            if expr.is_zero or expr.is_extended_real is not True:
                raise NoMajorant(f"the sign of {expr} is not shown")
            return 1 if expr.is_positive else -1
        replaced = dict(self.intervals)
        inner = self._replace_bounded(expr, replaced)
        together = sp.together(inner.xreplace({self.n: 1 / self.w**2}))
        top, bottom = sp.fraction(together)
        replaced[self.w] = _w_range(self.start)
        signs = []
        for part in (top, bottom):
            rest = self._lowest(part)[1]
            if least_magnitude(rest, replaced) <= 0:
                raise NoMajorant(f"the sign of {expr} is not shown")
            signs.append(1 if supremum(rest, replaced) > 0 else -1)
        return signs[0] * signs[1]


@dataclass(frozen=True)
class _Quotient:
    """The algebraic part's reading (:meth:`Reader._quotient`): the interval symbols it introduced (with
    their intervals, free of the box), ``w``, the quotient's parts and the power ``p`` of ``n**(-p)``."""

    intervals: dict[sp.Symbol, object]
    w: sp.Symbol
    top: sp.Expr
    bottom: sp.Expr | None
    p: float
    powers: tuple[tuple[int, sp.Expr], ...] = ()


def _w_range(start: int) -> object:
    """``w = n**(-1/2)`` for ``n >= start``: ``[0, 1/sqrt(start)]``."""
    from mpmath import iv
    with interval_precision():
        return iv.mpf([0, 1]) / iv.sqrt(iv.mpf(start))


def _ratio_interval(bounds: Linear, start: int) -> object:
    """``[inf, sup]`` of ``lambda_n/n`` for ``n >= start`` from ``lo0 + lo1*n <= lambda_n <= hi0 + hi1*n``."""
    from mpmath import iv
    low = bounds.lo1 + (min(bounds.lo0, 0.0) / start)
    high = bounds.hi1 + (max(bounds.hi0, 0.0) / start)
    if low <= 0:
        raise NoMajorant("an eigenvalue's lower bound is not positive")
    return iv.mpf([low, high])
