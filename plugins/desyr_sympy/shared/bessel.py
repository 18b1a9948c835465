"""dsolve's Bessel answers in a real basis.

SymPy solves the modified Bessel equation ``x**2*u'' + x*u' - (x**2 + n**2)*u = 0`` as
``C1*besseli(n, x) + C2*bessely(n, I*x)``: a true general solution, but complex on the real line, so
the candidate would be dropped for its imaginary unit.  With ``z`` real,
``J_n(i z) = i**n I_n(z)`` and ``Y_n(i z) = i**(n+1) I_n(z) - (2/pi) i**(-n) K_n(z)``; substituted, the
answer is a combination of ``I_n(z)`` and ``K_n(z)`` whose coefficients are complex multiples of the
integration constants.  Each basis function then gets a constant of its own: the span is the same,
and Stage B fits the new constants to the constraints as it would have fitted C1 and C2.
"""
from __future__ import annotations

from collections.abc import Iterable

import sympy as sp

from desyr_sympy.shared.candidates import solver_constants


def _imaginary_argument(call: sp.Basic) -> sp.Expr | None:
    """``z`` for ``f(n, I*z)`` with ``z`` free of ``I``, else None."""
    z = sp.expand(call.args[1] / sp.I)
    return None if z.has(sp.I) else z


def _real_call(call: sp.Basic) -> sp.Expr | None:
    """``besselj``/``bessely`` of an imaginary argument written with ``besseli``/``besselk`` of a real one."""
    z = _imaginary_argument(call)
    if z is None:
        return None
    n = call.args[0]
    if isinstance(call, sp.besselj):
        return sp.I**n * sp.besseli(n, z)
    return sp.I**(n + 1) * sp.besseli(n, z) - 2 / sp.pi * sp.I**(-n) * sp.besselk(n, z)


def real_basis(expr: sp.Expr) -> sp.Expr:
    """``expr`` (a general solution linear in its integration constants) with every Bessel J or Y of an
    imaginary argument turned into I and K of a real one, each basis function with a free constant.
    Unchanged when it has no such call or no integration constants to absorb the complex factors."""
    calls = {c: r for c in expr.atoms(sp.besselj, sp.bessely) if (r := _real_call(c)) is not None}
    constants = solver_constants(expr)
    if not calls or not constants:
        return expr
    spread = sp.expand(expr.xreplace(calls))
    return _fresh_constants(sp.Add.make_args(spread), constants, expr)


def _fresh_constants(terms: Iterable[sp.Expr], constants: list[sp.Symbol], original: sp.Expr) -> sp.Expr:
    """Sum of ``C * basis`` over the distinct bases of the terms, each term a number times one
    constant times its basis; a term without a constant (a particular solution) is kept.  ``original``
    when a constant enters otherwise (``exp(C1*x)``, ``C1*C2``): the answer is not linear in them."""
    bases: dict[sp.Expr, None] = {}
    rest = []
    for term in terms:
        held = [c for c in constants if term.has(c)]
        if not held:
            rest.append(term)
            continue
        coefficient, factor = term.as_independent(held[0], as_Add=False)
        if len(held) > 1 or factor != held[0]:
            return original
        bases[sp.Mul(*[f for f in sp.Mul.make_args(coefficient) if f.free_symbols])] = None
    fresh = [sp.Symbol(f"C{k + 1}") for k in range(len(bases))]
    return sp.Add(*rest, *[c * b for c, b in zip(fresh, bases)])
