"""Closed forms of one ODE over profile symbols by lowering its order, before any ``dsolve`` call.

The separated ODEs of a nonlinear equation are often exact: ``exp(f)*(f'' + f'**2) = c`` is
``(exp(f))'' = c``, ``f''/(1 + f'**2) = c`` is ``atan(f')' = c``.  Three textbook steps, repeated:

- a **total derivative** ``dH/dx = Q(x)`` (``H`` over the profile, ``Q`` free of it) is integrated
  once: ``H = integral(Q) + C``;
- an equation **without the profile itself** (only ``f', f''...``) is one order lower in ``p = f'``;
  ``f`` is then the integral of ``p`` plus a constant;
- an equation of **order 0** (no derivative left) is solved for ``f`` algebraically, one of first
  order ``f' = h(f)`` by the quadrature ``integral(1/h) = x + C``.

An autonomous equation of second order left goes to the energy integral (:mod:`desyr_sympy.shared.energy`),
what is left then to ``dsolve``.  Every constant of integration is a fresh
``C<n>`` symbol, free for Stage B.
"""
from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from desyr_sympy.shared import energy, quadrature
from desyr_sympy.shared.ansatz import as_ode, order
from desyr_sympy.shared.odes import explicit

#: solutions of one ODE kept, at most (a quadratic in f gives two; more are rarely new)
MAX_SOLUTIONS = 4


class Constants:
    """Fresh integration constants ``C<n>``, numbered past those already taken."""

    def __init__(self, start: int = 1) -> None:
        self.k = start - 1

    def next(self) -> sp.Symbol:
        self.k += 1
        return sp.Symbol(f"C{self.k}")

    def past(self, expr: sp.Expr) -> None:
        """Number the next constants past every ``C<n>`` in ``expr``."""
        for s in expr.free_symbols:
            if s.name[:1] == "C" and s.name[1:].isdigit():
                self.k = max(self.k, int(s.name[1:]))


def solve(expr: sp.Expr, fs: Sequence[sp.Symbol], x: sp.Symbol, constants: Constants) -> list[sp.Expr]:
    """Profiles ``f(x)`` with ``expr = 0`` (``expr`` over ``F0, F1...`` and ``x``), each with its
    integration constants free; empty when no step nor ``dsolve`` gives an explicit one."""
    expr = sp.expand(expr)
    n = order(expr, fs)
    if n < 0:
        return []
    if n == 0:
        return _algebraic(expr, fs[0])
    once = _integrated(expr, fs, x, constants)
    if once is not None:
        return solve(once, fs, x, constants)
    if fs[0] not in expr.free_symbols:
        lowered = expr.xreplace({fs[k]: fs[k - 1] for k in range(1, n + 1)})
        out = []
        for p in solve(lowered, fs, x, constants):
            f = _integral(p, x)
            if f is not None:
                out.append(f + constants.next())
        return out
    if n == 1 and x not in expr.free_symbols:
        found = _autonomous(expr, fs, x, constants)
        if found:
            return found
    if n == 2 and x not in expr.free_symbols:
        # the energy integral first: dsolve on a nonlinear autonomous ODE can spend the whole time limit
        found = [_renumbered(e, expr, constants) for e in energy.profiles(expr, fs, x)][:MAX_SOLUTIONS]
        if found:
            return found
    return _dsolve(expr, fs, x, constants)


def _renumbered(found: sp.Expr, expr: sp.Expr, constants: Constants) -> sp.Expr:
    """``found`` with the constants a solver numbered from C1 (absent from ``expr``) given fresh names."""
    new = _dsolve_constants(found) - _dsolve_constants(expr)
    return found.xreplace({c: constants.next() for c in sorted(new, key=lambda s: s.name)})


def _autonomous(expr: sp.Expr, fs: Sequence[sp.Symbol], x: sp.Symbol, constants: Constants) -> list[sp.Expr]:
    """``f' = h(f)`` by its quadrature ``integral(1/h) = x + C``, solved for ``f`` (a Riccati equation
    with constant coefficients in a blink, where ``dsolve`` takes many seconds)."""
    try:
        slopes = sp.solve(expr, fs[1])
    except (NotImplementedError, ValueError):
        return []
    out: list[sp.Expr] = []
    for h in slopes[:MAX_SOLUTIONS]:
        primitive = None if h == 0 or h.has(fs[1]) else _integral(1 / h, fs[0])
        if primitive is None:
            continue
        out += _algebraic(primitive - x - constants.next(), fs[0])
    return out[:MAX_SOLUTIONS]


def _integrated(expr: sp.Expr, fs: Sequence[sp.Symbol], x: sp.Symbol, constants: Constants) -> sp.Expr | None:
    """``H - integral(Q) - C`` when ``expr = dH/dx - Q(x)``, else None."""
    free = sp.Add(*[t for t in sp.Add.make_args(expr) if not t.free_symbols & set(fs)])
    h = energy.integrate_once(expr - free, fs, x)
    if h is None or order(h, fs) >= order(expr, fs):
        return None
    primitive = _integral(free, x)
    return None if primitive is None else sp.expand(h + primitive - constants.next())


def _integral(expr: sp.Expr, x: sp.Symbol) -> sp.Expr | None:
    """The primitive in the form manual integration gives (``-log(cos(a*x + c))/a`` for ``tan``, where
    the full integrator writes ``log(tan(a*x + c)**2 + 1)/(2*a)``, real across fewer poles), else the
    full integrator's; a Piecewise's generic branch (a rate 0 is Stage B's to find)."""
    found = quadrature.primitive(expr, x) or quadrature.primitive(expr, x, manual=False)
    if found is None:
        return None
    return found.replace(lambda e: isinstance(e, sp.Piecewise), lambda e: e.args[0][0])


def _algebraic(expr: sp.Expr, f: sp.Symbol) -> list[sp.Expr]:
    try:
        roots = sp.solve(expr, f)
    except (NotImplementedError, ValueError):
        return []
    return [r for r in roots if not r.has(sp.I)][:MAX_SOLUTIONS]


def _dsolve(expr: sp.Expr, fs: Sequence[sp.Symbol], x: sp.Symbol, constants: Constants) -> list[sp.Expr]:
    f = sp.Function("profile")(x)
    try:
        general = explicit(sp.dsolve(as_ode(expr, fs, f, x), f), {"f": f})
    except (NotImplementedError, ValueError):
        return []
    out = []
    for solution in general[:MAX_SOLUTIONS]:
        out.append(_renumbered(solution["f"], expr, constants))     # dsolve numbers its constants from C1
    return out


def _dsolve_constants(expr: sp.Expr) -> set[sp.Symbol]:
    return {s for s in expr.free_symbols if s.name[:1] == "C" and s.name[1:].isdigit()}
