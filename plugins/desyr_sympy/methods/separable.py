"""The exact method ``separable``: separable linear PDEs with constant coefficients: products of the data and of exponentials.

The shapes come from the problem itself: the data on a line, and each additive term of it
``v = v0`` (``u(x, 0) = sin(x) + sin(2x)`` gives ``sin(x)`` and ``sin(2x)``, with
``v = t``) and each term of the forcing.  For a shape ``h`` and ``u = exp(s v) h``
the operator gives ``P(s) exp(s v) h`` exactly when ``h`` is an eigenfunction of the
rest of the operator; then the roots of ``P`` are the rates along ``v``: one decaying
exponential for the heat equation, cos and sin for the wave equation, exp(+-k y)
(so sinh and cosh) for Laplace and Helmholtz.  A shape for which ``P`` still depends
on a variable cannot be separated and is left out.  The coefficients may vary: when
``P`` is free of every variable, ``L[T(v) h] = h P(d/dv) T`` for every ``T`` (the
coefficient of each power of ``s`` is that of a derivative of ``T``), which is what a
Fokker-Planck operator gives on a linear shape.

Two candidates come back: the sum over the shapes with the exact rates, and the same
with every rate a float, which the refit determines (``exp(-9.8696*t)*sin(pi*x)``).
Every amplitude is a free constant.  Forcing terms that separate with a shape add a
particular solution of that shape's ODE (dsolve).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.candidates import Seeds, free_rate, solver_constants
from desyr_sympy.shared.forms import (
    Linear,
    constants_of,
    jet_symbols,
    linear_equation,
    residuals,
    shape,
    slice_data,
    split_linear,
    terms,
)

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


@dataclass(frozen=True)
class Shape:
    variable: sp.Symbol      # the variable of the factor to find
    shape: sp.Expr           # a function of the other variables


class Separable(ExactMethod):
    name = "separable"
    summary = ("linear PDEs with constant coefficients: the data's shapes times exponentials, sines and cosines "
               "of free rates")
    problems = "linear PDEs with constant coefficients"
    proposes = ("products of the data's shapes (e.g. `sin(pi*x)` of an initial value) with exponentials, sines and "
                "cosines whose rates the refit determines: `exp(c*t)*sin(pi*x)` for the heat equation")

    def applies(self, problem: Problem) -> str:
        if problem.dim < 2 or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field in two or more variables"
        linear = split_linear(residuals(problem)[0], jet_symbols(problem))
        if linear is None:
            return "not linear"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        linear = linear_equation(problem)
        field = problem.fields[0]
        s = sp.Dummy("s")
        pieces, unassigned = [], list(terms(linear.forcing))
        found = shapes(problem, linear)    # here, not in applies(): expanding the data can take long
        if not found:
            raise NotImplementedError("no data or forcing to take shapes from")
        for item in found:
            polynomial = _characteristic(problem, linear, item, s)
            if polynomial is None:
                continue
            mine = [t for t in unassigned if _separates(t / item.shape, item.variable, problem)]
            unassigned = [t for t in unassigned if t not in mine]
            pieces.append((item, polynomial, sp.Add(*mine)))
        if not pieces:
            raise NotImplementedError("no data shape separates")
        if any(t != 0 for t in unassigned):
            raise NotImplementedError(f"forcing terms {sp.Add(*unassigned)} separate with no shape")
        exact: list[sp.Expr] = []
        floating: list[sp.Expr] = []
        counter = iter(range(1, 10_000))
        seeds = Seeds()
        for item, polynomial, forcing in pieces:
            particular = _particular(polynomial, forcing / item.shape, item.variable, s)
            for rates in (False, True):
                basis = _basis(polynomial, s, item.variable, seeds if rates else None)
                amplitudes = [sp.Symbol(f"C{next(counter)}") for _ in basis]
                term = item.shape * (sp.Add(*[a * b for a, b in zip(amplitudes, basis)]) + particular)
                (floating if rates else exact).append(term)
        return [{field: sp.Add(*exact)}, {field: sp.Add(*floating)}]


    #: fractions of the box where ratios are sampled before any simplify (irrational, so off
    #: the zeros of sin(k pi x) and of polynomials with small rational roots)


def shapes(problem: Problem, linear: Linear) -> list[Shape]:
    variables = [*problem.symbols, *constants_of(problem)]
    found: list[Shape] = []
    for data in slice_data(problem):
        parts = terms(data.value)
        # the whole value first: x + 1 can separate where neither x nor 1 does (u_t = (x + 1) u_x + u)
        for term in ([sp.factor_terms(data.value)] if len(parts) > 1 else []) + parts:
            h = shape(term, variables)
            if term != 0 and data.variable not in h.free_symbols:
                found.append(Shape(data.variable, h))
    for term in terms(linear.forcing):
        split = _forcing_shape(term, problem) if term != 0 else None
        if split is not None:
            found.append(split)
    return list(dict.fromkeys(found))


def _forcing_shape(term: sp.Expr, problem: Problem) -> Shape | None:
    """The first variable (time first) of which ``term`` is a factor times a shape of the others."""
    time = [problem.vocabulary.var_symbols[problem.time]] if problem.time else []
    for v in time + [s for s in problem.symbols if s not in time]:
        factors = sp.Mul.make_args(sp.powsimp(term))
        rest = [f for f in factors if v not in f.free_symbols]
        if all(f.free_symbols <= {v} for f in factors if v in f.free_symbols):
            return Shape(v, shape(sp.Mul(*rest), problem.symbols))
    return None


_SAMPLES = (0.2360679774997897, 0.6180339887498949, 0.8541019662496845)


def _varies(expr: sp.Expr, variables: Iterable[sp.Symbol], problem: Problem,
            fixed: dict[sp.Symbol, sp.Expr] | None = None) -> bool:
    """True when ``expr`` surely depends on ``variables`` on the box: a numerical look at three
    points, so that sp.simplify (seconds on a sum of modes) runs only on likely separations."""
    chosen = [(v, lo, hi) for v, (lo, hi) in zip(problem.symbols, problem.bounds) if v in set(variables)]
    values = []
    for k in range(len(_SAMPLES)):
        # a different fraction per variable, so that the points are not on the box's diagonal
        point = {v: lo + (hi - lo) * _SAMPLES[(k + j) % len(_SAMPLES)] for j, (v, lo, hi) in enumerate(chosen)}
        try:
            value = complex(expr.xreplace({**(fixed or {}), **point}).evalf())
        except (TypeError, ValueError, ZeroDivisionError):
            return False        # not a number there: let simplify decide
        if value != value:      # nan: a sample on a zero of the shape
            return False
        values.append(value)
    scale = max(1.0, *(abs(v) for v in values))
    return max(abs(v - values[0]) for v in values) > 1e-9 * scale


def _separates(expr: sp.Expr, variable: sp.Symbol, problem: Problem) -> bool:
    others = set(problem.symbols) - {variable}
    if _varies(expr, others, problem, {variable: sp.Float(0.3819660112501051)}):
        return False
    return not (sp.simplify(expr).free_symbols & others)


def _characteristic(problem: Problem, linear: Linear, item: Shape, s: sp.Dummy) -> sp.Poly | None:
    """``P(s)`` with ``L[exp(s v) h] = P(s) exp(s v) h``, or None when ``h`` does not separate."""
    trial = sp.exp(s * item.variable) * item.shape
    ratio = problem.apply(linear.operator(), {problem.fields[0]: trial}) / trial
    if _varies(ratio, problem.symbols, problem, {s: sp.Float(0.7310585786300049)}):
        return None
    ratio = sp.simplify(ratio)
    if ratio.free_symbols - {s} - constants_of(problem) or not ratio.is_polynomial(s) or ratio == 0:
        return None
    return sp.Poly(ratio, s)


def _roots(polynomial: sp.Poly) -> dict[sp.Expr, int]:
    found: dict[sp.Expr, int] = sp.roots(polynomial)
    if sum(found.values()) < polynomial.degree():
        found = {}
        for r in polynomial.nroots():
            found[r] = found.get(r, 0) + 1
    return found


def _basis(polynomial: sp.Poly, s: sp.Dummy, v: sp.Symbol, seeds: Seeds | None) -> list[sp.Expr]:
    """Solutions of ``P(d/dv) T = 0``; with ``seeds``, every nonzero rate a float."""
    def rate(r: sp.Expr) -> sp.Expr:
        # a rate in a family's parameters stays exact: no float could stand for it over the range
        return free_rate(r, seeds) if seeds is not None and not r.free_symbols else r

    out = []
    for root, multiplicity in _roots(polynomial).items():
        re, im = sp.re(root), sp.im(root)
        if im.is_negative or (im.free_symbols and im.could_extract_minus_sign()):
            continue          # its conjugate gives the same cos and sin
        growth = sp.exp(rate(re) * v) if re != 0 else sp.Integer(1)
        for k in range(multiplicity):
            if im == 0:
                out.append(v**k * growth)
            else:
                out += [v**k * growth * sp.cos(rate(im) * v), v**k * growth * sp.sin(rate(im) * v)]
    return out


def _particular(polynomial: sp.Poly, source: sp.Expr, v: sp.Symbol, s: sp.Dummy) -> sp.Expr:
    """A solution of ``P(d/dv) T = source(v)`` (0 for no source)."""
    source = sp.simplify(source)
    if source == 0:
        return sp.Integer(0)
    T = sp.Function("T")(v)
    ode = sum(c * T.diff(v, k) for (k,), c in polynomial.terms()) - source
    general = sp.dsolve(ode, T).rhs
    return general.xreplace({c: 0 for c in solver_constants(general)})
