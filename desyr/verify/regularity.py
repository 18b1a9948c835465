"""Is a candidate smooth enough for the derivatives its problem takes?

A residual evaluated at points cannot see a kink: ``abs(x - 1/2)`` has a second
derivative that is zero everywhere but at one point, where it is a Dirac delta.  So
before any number is computed, the verifier differentiates each field as often as
the equations and constraints do and refuses what that brings in: ``DiracDelta``,
``Heaviside``, ``sign``, ``Piecewise``, ``Min``/``Max``, or an ``Abs`` of a quantity
that changes sign on the domain.  An ``Abs`` of a quantity of one sign on the domain
is that quantity (or its negative), and is smooth.  Poles and branch points are refused
too, for every field: ``log`` and non-integer powers need a positive argument, negative
powers and ``tan`` a quantity of one sign, ``asin``/``acos`` an argument inside (-1, 1)
(``atan(tan(pi*x))`` is a step function whose derivative SymPy calls 0).  Every sign is
*proved* on the whole closed box by interval arithmetic (:mod:`desyr.verify.intervals`),
never read off sample points.
"""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from desyr.model.problem import Problem
from desyr.verify.intervals import sign_on
from desyr.verify.regions import Region, shape_region

#: what a derivative may not contain: each is a jump, a kink or a distribution
ROUGH = (sp.DiracDelta, sp.Heaviside, sp.sign, sp.Piecewise, sp.Min, sp.Max)
REASON = "not smooth enough for this equation"
NOT_FINITE = "not finite on the domain"


def rough_reason(problem: Problem, exprs: Mapping[str, sp.Expr]) -> str | None:
    """None when every field is finite and smooth enough on the whole closed domain; otherwise the reason."""
    orders = _derivatives_taken(problem)
    bounds, region = _bounds(problem), _region(problem)
    for field, expr in exprs.items():
        pole = _pole(expr, bounds, region)
        if pole is not None:
            return f"{NOT_FINITE}: {field} {pole}"
        wanted = orders.get(field, set())
        if not wanted:
            continue        # a field the problem never differentiates may have kinks
        smooth_expr, kinked = _resolve_abs(expr, bounds, region)
        if kinked is not None:
            return f"{REASON}: {field} has abs({kinked}), which is not of one sign on the domain"
        for wrt in sorted(wanted, key=len):
            d = sp.diff(smooth_expr, *[problem.vocabulary.var_symbols[v] for v in wrt])
            bad = d.atoms(*ROUGH)
            if bad:
                found = sorted(str(b) for b in bad)[0]
                return f"{REASON}: {field}_{''.join(wrt)} brings in {found[:80]}"
    return None


def resolve_abs(problem: Problem, exprs: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """Each field with its abs() of one-signed quantities removed (the others stay)."""
    bounds, region = _bounds(problem), _region(problem)
    return {f: _resolve_abs(e, bounds, region)[0] for f, e in exprs.items()}


def _bounds(problem: Problem) -> dict[sp.Symbol, tuple[float, float]]:
    return {s: (v.lo, v.hi) for s, v in zip(problem.symbols, problem.variables)}


def _region(problem: Problem) -> Region | None:
    """The shape as inequalities (None on a box: the bounds are the domain)."""
    if problem.geometry is None:
        return None
    return shape_region(problem.geometry.shape, [problem.vocabulary.var_symbols[v] for v in problem.geometry.space],
                        problem.numbers)


def _pole(expr: sp.Expr, bounds: dict[sp.Symbol, tuple[float, float]], region: Region | None = None) -> str | None:
    """Why ``expr`` is not finite and smooth on the whole closed box (a pole or a branch point), or None.
    Each condition must be *proved* by interval arithmetic; "unknown" fails like "changes"."""
    for node in sp.preorder_traversal(expr):
        need = _condition(node)
        if need is None:
            continue
        quantity, strict, what = need
        sign = sign_on(quantity, bounds, strict=strict, region=region)
        if sign not in ("positive", "negative") or (what == "positive" and sign != "positive"):
            verdict = "changes sign or reaches 0" if sign == "changes" else "could not be shown to keep its sign"
            return f"has {str(node)[:60]}, and {str(quantity)[:60]} {verdict} on the domain"
    return None


def _condition(node: sp.Basic) -> tuple[sp.Expr, bool, str] | None:
    """(quantity, strict, "positive" or "one sign") that must hold on the whole box for ``node``."""
    if isinstance(node, sp.log):
        return node.args[0], True, "positive"
    if isinstance(node, sp.tan):
        return sp.cos(node.args[0]), True, "one sign"
    if isinstance(node, (sp.asin, sp.acos)):
        return 1 - node.args[0] ** 2, True, "positive"
    if isinstance(node, sp.Pow):
        base, exponent = node.args
        if exponent.is_Integer:
            return (base, True, "one sign") if exponent < 0 else None
        return base, True, "positive"
    return None


def _derivatives_taken(problem: Problem) -> dict[str, set[tuple[str, ...]]]:
    """Per field, every partial derivative (with all its lower orders) the problem evaluates."""
    out: dict[str, set[tuple[str, ...]]] = {}
    for jet in problem.jets():
        for k in range(1, len(jet.wrt) + 1):
            out.setdefault(jet.field, set()).add(tuple(jet.wrt[:k]))
    return out


def _resolve_abs(expr: sp.Expr, bounds: dict[sp.Symbol, tuple[float, float]], region: Region | None = None
                 ) -> tuple[sp.Expr, str | None]:
    """``expr`` with each abs() of a quantity of one sign on the box replaced by it; the first other one."""
    mapping: dict[sp.Expr, sp.Expr] = {}
    for node in sorted(expr.atoms(sp.Abs), key=sp.count_ops):
        inner = node.args[0]
        sign = sign_on(inner, bounds, strict=False, region=region)
        if sign == "positive":
            mapping[node] = inner
        elif sign == "negative":
            mapping[node] = -inner
        else:
            return expr, str(inner)[:80]
    return (expr.xreplace(mapping) if mapping else expr), None
