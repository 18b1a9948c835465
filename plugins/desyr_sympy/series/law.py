"""The coefficient-law path (issue 46, item 3): coefficients from the data's projections, not from SymPy.

Where SymPy cannot integrate the data against the eigenfunctions in closed form in the index (a
denominator in the variable, ``3/(5 - 4*cos(pi*x))``; an integral that does not finish in
:data:`EXACT_SECONDS`), the data are projected onto the first :data:`COUNT` eigenfunctions by composite
Gauss-Legendre quadrature at :data:`DIGITS` digits (its accuracy from a rule half as fine at three
indices), and :func:`desyr.plugin.find_law` looks for the law those numbers follow: a rational function of
the frequency, times a geometric ratio, per residue class of the index, its constants identified exactly
(``2**(1 - n)``).  A single mode's coefficient is one number, identified the same way.  The law goes out
like any coefficient: the quadrature check, then the verifier's proof, which does not trust it.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import mpmath
import sympy as sp

from desyr.plugin import Law, Samples, find_law, identify_number
from desyr_sympy.series.eigen import Family
from desyr_sympy.series.layout import Declined

#: seconds SymPy gets for one exact coefficient integral before the law path takes over
EXACT_SECONDS = 5.0
#: indices sampled (at period 4, twelve per residue class)
COUNT = 48
#: working digits of the projections
DIGITS = 60
#: panels of the composite rule between kinks (twice as many for the values, as many for their check), and
#: mpmath's Gauss-Legendre degree (3*2**(d-1) nodes per panel)
PANELS = 4
DEGREE = 6
#: transcendental constants a law's coefficients may be written in, at most
MAX_CONSTANTS = 6


class Unintegrable(Declined):
    """SymPy gives no closed form of a coefficient integral in the index (one line): the law path's turn."""


def denominator_in(g: sp.Expr, x: sp.Symbol) -> bool:
    """Whether ``g`` divides by an expression in ``x`` (its integrals against ``sin(pi*n*x)`` have no closed
    form SymPy finds, in practice: it is left to the law path at once)."""
    return x in sp.fraction(sp.cancel(sp.together(g)), exact=True)[1].free_symbols   # exp(-x) is no denominator


def law_of(g: sp.Expr, family: Family) -> Law:
    """The coefficients of ``g`` on ``family`` as a law in its index (one value for a single mode), or
    :class:`Declined` with the reason."""
    if family.named or family.bessel is not None:
        raise Declined("a coefficient integral SymPy cannot do, on eigenfunctions with named eigenvalues: not "
                       "taken by the coefficient-law path yet")
    if g.free_symbols - {family.variable}:
        raise Declined(f"a coefficient integral SymPy cannot do, of data in {', '.join(sorted(map(str, g.free_symbols - {family.variable})))} "
                       "besides the variable: the coefficient-law path needs numbers")
    constants = transcendental_constants(g, family)
    with mpmath.workdps(DIGITS):
        if family.index is None:
            (value,), accuracy = projections(g, family, [0])
            found = identify_number(value, 10**6 * accuracy + mpmath.mpf(10) ** (10 - DIGITS), constants)
            if found is None:
                raise Declined(f"a single mode's coefficient ({mpmath.nstr(value, 15)}) has no closed form found")
            return Law(found, 0)
        indices = list(range(family.lower, family.lower + COUNT))
        values, accuracy = projections(g, family, indices)
        law = find_law(Samples(family.lower, tuple(values), accuracy), family.index,
                       sp.sqrt(family.value), constants)
    if law is None:
        raise Declined(f"no coefficient law fits the data's projections on {family.function} (rational in the "
                       "frequency, times a geometric ratio, per residue class of the index)")
    return law


def projections(g: sp.Expr, family: Family, indices: Sequence[int]) -> tuple[list[Any], Any]:
    """``integral(g*X_n*w)/norm_n`` at each index by the composite rule, and its accuracy (absolute): how far
    the rule with half the panels is from it at the first, middle and last index, times 10."""
    values = _project(g, family, indices, _nodes(g, family, 2 * PANELS))
    probe = sorted({indices[0], indices[len(indices) // 2], indices[-1]})
    coarse = _project(g, family, probe, _nodes(g, family, PANELS))
    spread = max(abs(c - values[indices.index(k)]) for k, c in zip(probe, coarse))
    size = max([abs(v) for v in values] + [mpmath.mpf(1)])
    return values, 10 * spread + size * mpmath.mpf(10) ** (5 - DIGITS)


def kinks(data: sp.Expr, x: sp.Symbol, lo: sp.Expr | float, hi: sp.Expr | float) -> list[sp.Expr]:
    """``[lo, ..., hi]`` with the points where an ``Abs``, ``Piecewise`` or ``Heaviside`` may bend the data."""
    points = {sp.sympify(lo), sp.sympify(hi)}
    roots = [r for atom in data.atoms(sp.Abs, sp.Heaviside) for r in sp.solve(atom.args[0], x)]
    for piece in data.atoms(sp.Piecewise):
        for _, condition in piece.args:
            roots += [r for relation in condition.atoms(sp.Rel) for r in sp.solve(relation.lhs - relation.rhs, x)]
    points |= {r for r in roots if r.is_real and float(lo) < float(r) < float(hi)}
    return sorted(points, key=float)


def _nodes(g: sp.Expr, family: Family, panels: int) -> list[tuple[Any, Any]]:
    """Gauss-Legendre nodes and weights on ``panels`` equal panels between consecutive kinks (mpmath's rule
    of degree :data:`DEGREE`, its nodes computed once per process and precision)."""
    rule = mpmath.mp._gauss_legendre
    edges = [mpmath.mpmathify(sp.N(b, DIGITS)) for b in kinks(g, family.variable, family.lo, family.hi)]
    out: list[tuple[Any, Any]] = []
    for a, b in zip(edges, edges[1:]):
        for k in range(panels):
            out += rule.get_nodes(a + (b - a) * k / panels, a + (b - a) * (k + 1) / panels, DEGREE, mpmath.mp.prec)
    return out


def _project(g: sp.Expr, family: Family, indices: Sequence[int], nodes: Sequence[tuple[Any, Any]]) -> list[Any]:
    x = family.variable
    data = sp.lambdify(x, g * family.weight, modules="mpmath")
    weighted = [w * data(node) for node, w in nodes]
    out = []
    for k, row in zip(indices, _eigenfunctions(family, indices, [node for node, _ in nodes])):
        _, _, norm = family.at(k)
        out.append(mpmath.fsum(a * b for a, b in zip(weighted, row)) / mpmath.mpmathify(sp.N(norm, DIGITS)))
    return out


def _eigenfunctions(family: Family, indices: Sequence[int], points: Sequence[Any]) -> list[list[Any]]:
    """Each eigenfunction at the points: a trigonometric family by the recurrence
    ``X(n + 1) = 2*cos(a*xi)*X(n) - X(n - 1)`` (``X = trig(a*n*xi + b)``), others one by one."""
    x, function = family.variable, family.function
    if family.index is None:
        value = sp.lambdify(x, function, modules="mpmath")
        return [[mpmath.mpmathify(value(p)) for p in points]]
    n = family.index
    rows = [[mpmath.mpmathify(v) for v in map(sp.lambdify(x, function.subs(n, k), modules="mpmath"), points)]
            for k in indices[:2]]
    step = sp.expand(function.args[0].subs(n, n + 1) - function.args[0]) if isinstance(function, (sp.sin, sp.cos)) else None
    consecutive = all(b - a == 1 for a, b in zip(indices, indices[1:]))
    if step is None or step.has(n) or not consecutive:
        return [[mpmath.mpmathify(v) for v in map(sp.lambdify(x, function.subs(n, k), modules="mpmath"), points)]
                for k in indices]
    twice = [2 * mpmath.cos(v) for v in map(sp.lambdify(x, step, modules="mpmath"), points)]
    while len(rows) < len(indices):
        rows.append([c * a - b for c, a, b in zip(twice, rows[-1], rows[-2])])
    return rows[:len(indices)]


def transcendental_constants(g: sp.Expr, family: Family) -> list[sp.Expr]:
    """The numbers the data's closed-form coefficients are written in besides pi and rationals: each term's
    exponential and trigonometric factors (a sine also as its cosine, which its integral brings) at the
    interval's ends, multiplied within the term; distinct up to rational multiples, at most
    :data:`MAX_CONSTANTS`."""
    x = family.variable
    out: list[sp.Expr] = []
    terms = sp.Add.make_args(sp.expand(g.rewrite(sp.exp) if g.has(sp.sinh, sp.cosh, sp.tanh) else g))
    for term in terms:
        choices = []
        for factor in sp.Mul.make_args(term):
            base = factor.base if factor.is_Pow and factor.exp.is_Integer else factor   # not exp's own as_base_exp
            if isinstance(base, sp.exp) and base.has(x):
                choices.append([base])
            elif isinstance(base, (sp.sin, sp.cos)) and base.has(x):
                choices.append([sp.sin(base.args[0]), sp.cos(base.args[0])])
        for combination in itertools.product(*choices):
            for end in (family.lo, family.hi):
                value = sp.Mul(*combination).subs(x, end)
                if value.is_number and not value.is_rational and not _rational_multiple(value, out):
                    out.append(value)
    return out[:MAX_CONSTANTS]


def _rational_multiple(value: sp.Expr, known: Sequence[sp.Expr]) -> bool:
    for k in known:
        ratio = sp.simplify(value / k)
        if ratio.is_rational:
            return True
    return False
