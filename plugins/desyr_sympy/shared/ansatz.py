"""An ansatz put into the equations: fields written through unknown functions of one variable.

The reductions (travelling waves, a rotating phase, similarity variables) all write each field
as a known expression of the problem's variables and of an unknown profile ``f(xi)`` and its
derivatives.  Here the profile's derivatives are symbols ``F0, F1, F2...`` (``f, f', f''...``),
and a derivative of the ansatz along a variable is the total derivative, the chain rule through
``xi``: no SymPy ``Subs`` or ``Derivative`` objects, so substitution and simplification stay cheap.
The reduced equations are expressions in ``F0, F1...`` (one list per field), ``xi`` and the
ansatz's constants, which :func:`as_ode` turns into a ``dsolve`` equation.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.shared.forms import jet_symbols, residuals

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: the highest derivative of a profile the reductions write out (KdV needs 3; 6 leaves room)
ORDER = 6


def profile(name: str) -> list[sp.Symbol]:
    """``F0 .. F6``, the profile and its derivatives along ``xi`` (real: the fields are)."""
    return [sp.Symbol(f"{name}{k}", real=True) for k in range(ORDER + 1)]


def total(expr: sp.Expr, v: sp.Symbol, xi: sp.Expr, profiles: Sequence[Sequence[sp.Symbol]]) -> sp.Expr:
    """d expr / d v, where each profile symbol ``F_k`` stands for ``f^(k)(xi)``."""
    out = sp.diff(expr, v)
    step = sp.diff(xi, v)
    if step != 0:
        for fs in profiles:
            for k in range(len(fs) - 1):
                if fs[k] in expr.free_symbols:
                    out += sp.diff(expr, fs[k]) * fs[k + 1] * step
    return out


def substitute(problem: Problem, forms: Mapping[str, sp.Expr], xi: sp.Expr,
               profiles: Sequence[Sequence[sp.Symbol]]) -> list[sp.Expr]:
    """Every equation's residual with each field's jets replaced by those of its ansatz."""
    names = problem.vocabulary.var_symbols
    values = {}
    for symbol, jet in jet_symbols(problem).items():
        expr = forms[jet.field]
        for v in jet.wrt:
            expr = total(expr, names[v], xi, profiles)
        values[symbol] = expr
    return [r.xreplace(values) for r in residuals(problem)]


def order(expr: sp.Expr, fs: Sequence[sp.Symbol]) -> int:
    """The highest derivative of the profile in ``expr`` (-1 when it has none)."""
    present = [k for k, f in enumerate(fs) if f in expr.free_symbols]
    return max(present, default=-1)


def as_ode(expr: sp.Expr, fs: Sequence[sp.Symbol], f: sp.Expr, xi: sp.Symbol) -> sp.Expr:
    """``expr`` over ``F0, F1...`` as an equation in ``f(xi)`` and its derivatives, for dsolve."""
    return expr.xreplace({fs[k]: f.diff(xi, k) if k else f for k in range(len(fs))})


def nonlinear(problem: Problem) -> bool:
    """True when some equation is not linear in the jets (the reductions' ground: dsolve and the
    separable and characteristics solvers already answer linear problems)."""
    jets = set(jet_symbols(problem))
    for r in residuals(problem):
        present = [j for j in jets if j in r.free_symbols]
        if any(sp.diff(r, j).free_symbols & jets for j in present):
            return True
        if any(r.has(fn) and any(j in fn.free_symbols for j in present) for fn in r.atoms(sp.Function)):
            return True
    return False


def loosen(solution: Mapping[str, sp.Expr], constants: Sequence[sp.Symbol]) -> dict[str, sp.Expr]:
    """The ansatz's constants (a speed, a frequency, a shift) as plain ``C1, C2...`` symbols, after
    any integration constants of the solution's own, so that Stage B refits every one of them."""
    taken = {s.name for e in solution.values() for s in e.free_symbols}
    renames, k = {}, 1
    for c in constants:
        while f"C{k}" in taken:
            k += 1
        renames[c] = sp.Symbol(f"C{k}")
        k += 1
    return {f: e.xreplace(renames) for f, e in solution.items()}


def term_weights(expr: sp.Expr, weight: Mapping[sp.Basic, sp.Expr]) -> list[sp.Expr] | None:
    """The weight of each term of ``expr`` under a scaling that multiplies each symbol of ``weight`` by
    ``l**weight[symbol]`` (a power multiplies it), or None when a term does not scale."""
    out = []
    for term in sp.Add.make_args(sp.expand(expr)):
        total = sp.Integer(0)
        for factor in sp.Mul.make_args(term):
            base, power = factor.as_base_exp()
            if base in weight and power.is_number:
                total += weight[base] * power
            elif factor.free_symbols & set(weight):
                return None                 # sin(u), exp(x): no power law
        out.append(total)
    return out
