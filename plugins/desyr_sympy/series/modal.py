"""Each mode's factor in the remaining variable: the time (an initial value problem, Duhamel's principle
for a source) or, for Laplace's and Poisson's equations, the variable across the faces with data (a
two-point problem).

In time, mode ``X`` with eigenvalue ``Lambda`` (of ``-sum d_i d2/dx_i2 - c``) gives
``p2*T'' + p1*T' + Lambda*T = q(t)``: with ``U`` the free response (``U(0) = 1``, ``U'(0) = 0``) and ``K``
the impulse response (``K(0) = 0``, ``p2*K'(0) = 1``; for the heat equation ``p1*K(0) = 1``),
``T = A*U(tau) + B*p2*K(tau) + integral(K(t - s)*q(s), s, t0, t)``, ``tau = t - t0``: the last term is
Duhamel's principle.  A damped wave's modes are under-, critically or over-damped by the sign of
``Lambda/p2 - (p1/(2*p2))**2``; the eigenvalues increase, so only finitely many modes can be other than
under-damped, and those are written out.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from desyr_sympy.series.layout import Declined, End
from desyr_sympy.series.project import MAX_EXCEPTION, poles, split


@dataclass(frozen=True)
class Motion:
    """The time part of an evolution equation: ``p2*u_tt + p1*u_t``, from ``start``."""

    mass: sp.Expr
    damping: sp.Expr
    time: sp.Symbol
    start: sp.Expr


@dataclass(frozen=True)
class Responses:
    free: sp.Expr       # U(tau)
    impulse: sp.Expr    # K(tau)


def responses(motion: Motion, rate: sp.Expr, tau: sp.Expr, regime: str = "under") -> Responses:
    """``U`` and ``K`` of the mode with eigenvalue ``rate`` (the Lambda above) in the lag ``tau``."""
    p2, p1 = motion.mass, motion.damping
    if p2 == 0:
        decay = sp.exp(-rate * tau / p1)
        return Responses(decay, decay / p1)
    gamma = p1 / (2 * p2)
    envelope = sp.exp(-gamma * tau) if gamma != 0 else sp.Integer(1)
    if regime == "critical":
        return Responses(envelope * (1 + gamma * tau), envelope * tau / p2)
    if regime == "over":
        nu = sp.sqrt(gamma**2 - rate / p2)
        return Responses(envelope * (sp.cosh(nu * tau) + gamma * sp.sinh(nu * tau) / nu),
                         envelope * sp.sinh(nu * tau) / (p2 * nu))
    omega = root(rate / p2 - gamma**2)
    if omega == 0:
        return responses(motion, rate, tau, "critical")
    return Responses(envelope * (sp.cos(omega * tau) + gamma * sp.sin(omega * tau) / omega),
                     envelope * sp.sin(omega * tau) / (p2 * omega))


def root(square: sp.Expr) -> sp.Expr:
    """``sqrt(square)`` without a root where the square is one (``2*pi*n``), else of the expanded form
    (``sqrt(4*pi**2*n**2 - 1)``, not a product of two roots)."""
    factored = sp.sqrt(sp.factor(square))
    roots = [p for p in factored.atoms(sp.Pow) if p.exp.is_Rational and not p.exp.is_integer]
    return factored if len(roots) <= 1 else sp.sqrt(sp.expand(square))


def regime(motion: Motion, rate: sp.Expr) -> str:
    """The regime of a mode whose eigenvalue is a number."""
    if motion.mass == 0:
        return "heat"
    gamma = motion.damping / (2 * motion.mass)
    gap = sp.N(rate / motion.mass - gamma**2, 30)
    if abs(gap) < sp.Float(1e-25):
        return "critical" if sp.simplify(rate / motion.mass - gamma**2) == 0 else ("under" if gap > 0 else "over")
    return "under" if gap > 0 else "over"


def first_underdamped(motion: Motion, rate: sp.Expr, index: sp.Symbol | None, lower: int) -> int:
    """The first index from which every mode is under-damped (``lower`` for the heat equation)."""
    if motion.mass == 0 or index is None:
        return lower
    for k in range(lower, lower + MAX_EXCEPTION):
        if regime(motion, rate.subs(index, k)) == "under":
            return k
    raise Declined(f"more than {MAX_EXCEPTION} over-damped modes")


def duhamel(motion: Motion, impulse: sp.Expr, tau: sp.Symbol, source: sp.Expr,
            index: sp.Symbol | None, lower: int) -> tuple[sp.Expr, set[int]]:
    """``integral(K(t - s)*q(s), s, t0, t)`` with ``K`` written in the lag ``tau``, and the indices where the
    generic closed form fails (a resonance of the source with the mode)."""
    if source == 0:
        return sp.Integer(0), set()
    s = sp.Dummy("s", real=True)
    t = motion.time
    integrand = sp.expand(impulse.subs(tau, t - s) * source.subs(t, s))
    value = sp.integrate(integrand, (s, motion.start, t))
    if value.has(sp.Integral):
        raise Declined("a Duhamel integral SymPy cannot do in closed form")
    special: set[int] = set()
    if index is not None:
        value, special = split(value, index)
        special |= {k for k in poles(value, index) if lower <= k <= MAX_EXCEPTION}
    elif value.has(sp.Piecewise):
        raise Declined("a Duhamel integral SymPy gives only case by case")
    return _tidy(value, t), special


def _tidy(expr: sp.Expr, variable: sp.Symbol | None = None) -> sp.Expr:
    """Terms grouped by their factor in ``variable`` (``exp(-pi**2*n**2*t)``, ``cos(t)``), each coefficient
    factored; without a variable, the shorter of the expression and its simplification."""
    if variable is None:
        try:
            simple = sp.simplify(expr)
        except (TypeError, ValueError, RecursionError):
            return expr
        return simple if sp.count_ops(simple) <= sp.count_ops(expr) else expr
    groups: dict[sp.Expr, sp.Expr] = {}
    for term in sp.Add.make_args(sp.expand_mul(expr)):
        numerator, denominator = sp.fraction(sp.together(term))
        constant, moving = sp.factor(denominator).as_independent(variable, as_Add=False)
        for piece in sp.Add.make_args(sp.expand(numerator)):
            coefficient, held = piece.as_independent(variable, as_Add=False)
            held = sp.powsimp(held / moving, combine="exp")
            groups[held] = groups.get(held, sp.Integer(0)) + coefficient / constant
    return sp.Add(*[sp.factor(c) * held for held, c in groups.items()])


def two_point(rate: sp.Expr, diffusivity: sp.Expr, y: sp.Symbol, a: sp.Expr, b: sp.Expr, low: End, high: End,
              ) -> tuple[sp.Expr, sp.Expr]:
    """For ``d*Y'' = Lambda*Y`` on ``[a, b]``: the solutions with ``Y`` 1 under the high end's operator and the
    low end's homogeneous, and the other way round (``sinh(k*(y - a))/sinh(k*(b - a))`` for Dirichlet
    ends); the mode's factor is ``G_high*first + G_low*second``."""
    def raise_(phi: sp.Expr, end: End, at: sp.Expr, sign: int) -> sp.Expr:
        return end.alpha * phi.subs(y, at) + sign * end.beta * sp.diff(phi, y).subs(y, at)

    if rate == 0:
        rising = low.beta + low.alpha * (y - a)
        falling = high.beta + high.alpha * (b - y)
    else:
        k = root(rate / diffusivity)
        rising = _end_function(low, k, y - a)
        falling = _end_function(high, k, b - y)
    up, down = raise_(rising, high, b, 1), raise_(falling, low, a, -1)
    if sp.simplify(up) == 0 or sp.simplify(down) == 0:
        raise Declined("a mode the face conditions leave undetermined (Neumann ends on every face?)")
    return rising / _tidy(up), falling / _tidy(down)


def _end_function(end: End, k: sp.Expr, distance: sp.Expr) -> sp.Expr:
    if end.beta == 0:
        return sp.sinh(k * distance)
    if end.alpha == 0:
        return sp.cosh(k * distance)
    return end.beta * k * sp.cosh(k * distance) + end.alpha * sp.sinh(k * distance)
