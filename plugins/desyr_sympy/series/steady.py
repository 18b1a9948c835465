"""The finite part that takes the non-homogeneous data: a steady state, a lifting, a particular solution.

On an interval, the steady state solves ``d*w'' + c*w + f = 0`` with the ends' data: a particular solution
by undetermined coefficients (:func:`desyr_sympy.undetermined.solutions`) plus the two homogeneous
solutions, their constants from the ends.  Where the data vary in time, or no steady state exists (Neumann
ends with a net flux), a *lifting* in the lowest polynomials that meets the ends (``(1, x)``, else
``(x, x**2)``) takes them, and the remainder gets a source (Duhamel's principle).  On a box the liftings of
the axes add up where each one is free of the other axes' variables and meets their conditions.
"""
from __future__ import annotations

import sympy as sp

from desyr_sympy.series.layout import Axis, Declined, End, Layout
from desyr_sympy.shared.coefficients import solutions


def end_operator(end: End, w: sp.Expr, x: sp.Symbol, at: sp.Expr, sign: int) -> sp.Expr:
    """``alpha*w + beta*w_n`` at one end (``sign``: the outward normal along ``x``)."""
    return end.alpha * w.subs(x, at) + sign * end.beta * sp.diff(w, x).subs(x, at)


def meets(axis: Axis, w: sp.Expr, homogeneous: bool = False) -> bool:
    """Whether ``w`` meets the axis's two end conditions (their homogeneous parts, with ``homogeneous``)."""
    assert axis.low is not None and axis.high is not None
    checks = ((axis.low, axis.lo, -1), (axis.high, axis.hi, 1))
    for end, at, sign in checks:
        target = 0 if homogeneous else end.value
        if sp.simplify(end_operator(end, w, axis.symbol, at, sign) - target) != 0:
            return False
    return True


def interval_steady(axis: Axis, reaction: sp.Expr, source: sp.Expr, low: sp.Expr, high: sp.Expr
                    ) -> sp.Expr | None:
    """``w`` with ``d*w'' + c*w + f = 0`` and the ends' operators ``low``, ``high``; None where the two-point
    problem is singular (a zero mode of the ends)."""
    x, d = axis.symbol, axis.diffusivity
    assert axis.low is not None and axis.high is not None
    if source != 0:
        try:
            particular, _ = solutions(lambda b: d * sp.diff(b, x, 2) + reaction * b, -source, [x], 2)
        except NotImplementedError:
            particular = _dsolve(d, reaction, source, x)
    else:
        particular = sp.Integer(0)
    basis = _homogeneous(d, reaction, x - axis.lo)
    constants = sp.symbols("A1:3")
    w = particular + constants[0] * basis[0] + constants[1] * basis[1]
    equations = [end_operator(axis.low, w, x, axis.lo, -1) - low, end_operator(axis.high, w, x, axis.hi, 1) - high]
    solved = sp.solve(equations, constants, dict=True)
    if not solved or any(c not in solved[0] for c in constants):
        return None
    return tidy(w.subs(solved[0]))


def tidy(expr: sp.Expr) -> sp.Expr:
    """A short form: a polynomial simplified, anything else only cancelled (simplify can take seconds on
    exponentials)."""
    if expr.is_polynomial(*expr.free_symbols):
        return sp.simplify(expr)
    options = [sp.factor_terms(sp.expand(expr))]
    if expr.has(sp.sinh, sp.cosh):      # constants like sinh(1), cosh(1) cancel once written as exponentials
        options.append(sp.factor_terms(sp.simplify(sp.expand(expr.rewrite(sp.exp)))))
    return min(options, key=sp.count_ops)


def _homogeneous(d: sp.Expr, reaction: sp.Expr, xi: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    if reaction == 0:
        return sp.Integer(1), xi
    k = sp.sqrt(abs(reaction / d))
    if reaction / d > 0:
        return sp.cos(k * xi), sp.sin(k * xi)
    return sp.cosh(k * xi), sp.sinh(k * xi)


def _dsolve(d: sp.Expr, reaction: sp.Expr, source: sp.Expr, x: sp.Symbol) -> sp.Expr:
    w = sp.Function("w")
    general = sp.dsolve(d * w(x).diff(x, 2) + reaction * w(x) + source, w(x)).rhs
    return general.subs({c: 0 for c in general.free_symbols if c.name.startswith("C")})


def lifting(axis: Axis, time: sp.Symbol | None) -> sp.Expr:
    """The lowest polynomial in ``x`` (coefficients in time) that meets the ends' data."""
    assert axis.low is not None and axis.high is not None
    x, xi = axis.symbol, axis.symbol - axis.lo
    constants = sp.symbols("B1:3")
    for basis in ((sp.Integer(1), xi), (xi, xi**2), (sp.Integer(1), xi**2)):
        w = constants[0] * basis[0] + constants[1] * basis[1]
        equations = [end_operator(axis.low, w, x, axis.lo, -1) - axis.low.value,
                     end_operator(axis.high, w, x, axis.hi, 1) - axis.high.value]
        solved = sp.solve(equations, constants, dict=True)
        if solved and all(c in solved[0] for c in constants):
            return sp.expand(w.subs(solved[0]))
    raise Declined(f"no polynomial lifting meets the data at the ends of {axis.symbol}")


def _held(axis: Axis) -> set[sp.Basic]:
    """The symbols of the data at the axis's two ends."""
    return set().union(*(e.value.free_symbols for e in (axis.low, axis.high) if e is not None))


def box_lifting(layout: Layout) -> tuple[sp.Expr, bool]:
    """The finite part ``w`` of an evolution problem on a box, and whether it is the steady state (then the
    remainder has no source)."""
    moving = [a for a in layout.axes if a.low is not None and a.high is not None
              and not (a.low.homogeneous and a.high.homogeneous)]
    t = layout.time
    steady_data = all(t not in _held(a) for a in moving)
    if len(layout.axes) == 1 and (t is None or t not in layout.source.free_symbols) and steady_data:
        axis = layout.axes[0]
        assert axis.low is not None and axis.high is not None
        if not axis.periodic:
            w = interval_steady(axis, layout.reaction, layout.source, axis.low.value, axis.high.value)
            if w is not None:
                return w, True
    if not moving:
        return sp.Integer(0), False
    total = sp.Integer(0)
    spatial = set(layout.spatial)
    for axis in moving:
        assert axis.low is not None and axis.high is not None
        if (axis.low.value.free_symbols | axis.high.value.free_symbols) & (spatial - {axis.symbol}):
            raise Declined(f"data that vary along the faces of {axis.symbol} in an evolution problem on a box "
                           "(the steady part would itself be a series)")
        for other in layout.axes:
            if other is not axis and not other.periodic and not all(
                    e is not None and e.alpha == 0 for e in (other.low, other.high)):
                raise Declined("non-homogeneous data on a face of a box whose neighbours are not insulated "
                               "(the steady part would itself be a series)")
        if steady_data:
            w = interval_steady(axis, sp.Integer(0), sp.Integer(0), axis.low.value, axis.high.value)
            total += w if w is not None else lifting(axis, t)
        else:
            total += lifting(axis, t)
    return total, False
