"""Canonical rewrites: merged constant factors, collected terms, normalised signs.

Each rewrite is an algebraic identity for exact input, yet it is still checked
by the residuals like an identified constant (a float product such as
``3.7*x*(0.27027 - 0.27027*x)`` is only approximately ``x - x**2``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import sympy as sp

from desyr.exact.records import Acceptance, Check, ResidualPair, RewriteDecision, safe_check
from desyr.symbolic.expressions import complexity, expression_text
from desyr.symbolic.simplify import bounded_simplify

SIMPLIFY_MAX_NODES = 60     # sympy.simplify is only tried on short trees (it can take seconds on long ones)

#: functions with f(-a) = -f(a), and with f(-a) = f(a)
ODD = (sp.sin, sp.tan, sp.cot, sp.sinh, sp.tanh, sp.coth, sp.asin, sp.atan, sp.asinh, sp.atanh, sp.erf)
EVEN = (sp.cos, sp.sec, sp.cosh, sp.sech)

Rewrite = Callable[[sp.Expr, Sequence[sp.Symbol]], sp.Expr]


def float_count(expr: sp.Expr) -> int:
    return sum(1 for node in sp.preorder_traversal(expr) if isinstance(node, sp.Float))


def merge_constant_factors(expr: sp.Expr, variables: Sequence[sp.Symbol] = ()) -> sp.Expr:
    """``c*x*(d - d*x)`` -> ``(c*d)*x - (c*d)*x**2``: distributing products merges float
    factors that only matter through their product; kept only if floats disappear."""
    expanded = sp.expand_mul(expr)
    return expanded if float_count(expanded) < float_count(expr) else expr


def collect_terms(expr: sp.Expr, variables: Sequence[sp.Symbol] = ()) -> sp.Expr:
    """The shortest of a few equivalent forms; ties go to the first in this order:
    distributed sum, as given, common factors pulled out, ``sympy.simplify``."""
    # floats cancelled against each other leave exact integers behind (``c*x/(c*x**2)`` -> ``1.0/x``):
    # 1.0 is 1, so it is written as 1, and the proof does not stop at a float that is an integer
    forms = [_integers(f) for f in (sp.expand_mul(expr), expr, sp.factor_terms(expr))]
    if not expr.has(sp.Float):
        simpler = bounded_simplify(expr, SIMPLIFY_MAX_NODES)
        if simpler is not None:
            forms.append(simpler)
    return min(enumerate(forms), key=lambda kf: (complexity(kf[1]), kf[0]))[1]


def _integers(expr: sp.Expr) -> sp.Expr:
    whole = {f: sp.Integer(int(f)) for f in expr.atoms(sp.Float) if float(f).is_integer() and abs(float(f)) < 2**53}
    return expr.xreplace(whole) if whole else expr


def normalize_signs(expr: sp.Expr, variables: Sequence[sp.Symbol] = ()) -> sp.Expr:
    """Use f(-a) = -f(a) (odd f) and f(-a) = f(a) (even f) to print fewer minus signs;
    on a tie the first problem variable in the argument gets a positive coefficient.

    ``-sin(2*t - x)`` becomes ``sin(x - 2*t)``. The flipped function is built
    unevaluated, since sympy would otherwise restore its own sign choice.
    """
    order = list(variables)
    for node in _function_nodes(expr):
        flipped = _flip(node)
        if flipped is None:
            continue
        trial = expr.xreplace({node: flipped})
        if _sign_key(trial, order, -node.args[0]) < _sign_key(expr, order, node.args[0]):
            expr = trial
    return expr


def _function_nodes(expr: sp.Expr) -> list[sp.Expr]:
    nodes = [n for n in sp.preorder_traversal(expr) if isinstance(n, ODD + EVEN) and len(n.args) == 1]
    return list(dict.fromkeys(nodes))


def _flip(node: sp.Expr) -> sp.Expr | None:
    arg = node.args[0]
    if isinstance(node, ODD):
        return sp.Mul(-1, node.func(-arg, evaluate=False))
    return node.func(-arg, evaluate=False)


def _sign_key(expr: sp.Expr, order: list[sp.Symbol], arg: sp.Expr) -> tuple[int, int]:
    minus = (expression_text(expr) or "").count("-")
    return minus, 0 if _leading_positive(arg, order) else 1


def _leading_positive(arg: sp.Expr, order: list[sp.Symbol]) -> bool:
    for var in order:
        for term in sp.Add.make_args(arg):
            if var in term.free_symbols:
                coeff, _ = term.as_coeff_Mul()
                return bool(coeff > 0)
    coeff, _ = sp.Add.make_args(arg)[0].as_coeff_Mul()
    return bool(coeff > 0)


#: the rewrites applied after constant identification, in order
REWRITES: tuple[tuple[str, Rewrite], ...] = (("collect_terms", collect_terms), ("normalize_signs", normalize_signs))


def apply_rewrites(exprs: Mapping[str, sp.Expr], check: Check, before: ResidualPair, variables: Sequence[sp.Symbol],
                   rewrites: Sequence[tuple[str, Rewrite]] = REWRITES, rule: Acceptance = Acceptance()
                   ) -> tuple[dict[str, sp.Expr], list[RewriteDecision]]:
    """Every rewrite that changes something, checked jointly (one residual check) and,
    if that fails, one at a time, each against the residuals of the numeric solution."""
    steps = []   # (name, field, old, new)
    current = dict(exprs)
    for name, rewrite in rewrites:
        for field, old in current.items():
            new = _safe(rewrite, old, variables)
            if new is not None and new != old:
                steps.append((name, field, old, new))
                current[field] = new
    if not steps:
        return dict(exprs), []
    after = safe_check(check, current)
    if rule.accepts(before, after):
        return current, [RewriteDecision(n, f, o, e, True, before, after, "accepted jointly") for n, f, o, e in steps]
    return _rewrites_one_at_a_time(exprs, check, before, variables, rewrites, rule)


def _rewrites_one_at_a_time(exprs: Mapping[str, sp.Expr], check: Check, before: ResidualPair,
                            variables: Sequence[sp.Symbol], rewrites: Sequence[tuple[str, Rewrite]],
                            rule: Acceptance) -> tuple[dict[str, sp.Expr], list[RewriteDecision]]:
    current = dict(exprs)
    decisions: list[RewriteDecision] = []
    for name, rewrite in rewrites:
        for field, old in list(current.items()):
            new = _safe(rewrite, old, variables)
            if new is None or new == old:
                continue
            after = safe_check(check, {**current, field: new})
            ok = rule.accepts(before, after)
            decisions.append(RewriteDecision(name, field, old, new, ok, before, after,
                                             "accepted alone" if ok else "residuals change beyond round-off"))
            if ok:
                current[field] = new
    return current, decisions


def _safe(rewrite: Rewrite, expr: sp.Expr, variables: Sequence[sp.Symbol]) -> sp.Expr | None:
    try:
        return rewrite(expr, variables)
    except Exception:  # a rewrite that fails on an unusual tree is skipped, never fatal
        return None
