"""Is a candidate smooth enough for the derivatives its problem takes?

A residual evaluated at points cannot see a kink: ``abs(x - 1/2)`` has a second
derivative that is zero everywhere but at one point, where it is a Dirac delta.  So
before any number is computed, the verifier differentiates each field as often as
the equations and constraints do and refuses what that brings in: ``DiracDelta``,
``Heaviside``, ``sign``, ``Piecewise``, ``Min``/``Max``, or an ``Abs`` of a quantity
that changes sign on the domain.  An ``Abs`` of a quantity of one sign on the domain
is that quantity (or its negative), and is smooth.  Poles and branch points are refused
too, for every field: ``log`` and non-integer powers need a positive argument, negative
powers, ``tan``, ``csch`` and ``coth`` a quantity of one sign, ``asin``/``acos`` an argument inside
(-1, 1) (``atan(tan(pi*x))`` is a step function whose derivative SymPy calls 0), and ``bessely``,
``besselk`` and Bessel functions of half-integer order a positive argument, as ``log``.  Every sign is
*proved* on the whole closed box by interval arithmetic (:mod:`desyr.verify.intervals`),
never read off sample points.

One exception, and only on a box: a branch point *on the boundary* (``sqrt(x)`` on [0, 4]) is a
classical solution's, when the field stays finite and continuous there (a positive power of a
quantity proved positive inside and at least 0 on the faces, :mod:`desyr.verify.edges`; ``log(x)``
and ``1/x`` never are), every constraint imposed on that face still evaluates there (a value, or a
derivative that stays finite), and the problem's own data are singular on that face too (Nguyen-8's
source ``-1/(4*x**(3/2))``).  So a solution does not get a free pass at a boundary singularity of a
problem that is smooth there, and an interior branch point stays refused.
"""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from desyr.model.patches import exact_number
from desyr.model.problem import Constraint, Face, Problem, jets_in
from desyr.symbolic.special import needs_positive
from desyr.verify.conditions import condition_reason
from desyr.verify.edges import Edge, positive_inside
from desyr.verify.intervals import Bounds, sign_on
from desyr.verify.regions import Region, domain_bounds, domain_region
from desyr.verify.removable import even_analytic, quotients_hidden, where_needed

#: what a derivative may not contain: each is a jump, a kink or a distribution
ROUGH = (sp.DiracDelta, sp.Heaviside, sp.sign, sp.Piecewise, sp.Min, sp.Max)
REASON = "not smooth enough for this equation"
NOT_FINITE = "not finite on the domain"


def rough_reason(problem: Problem, exprs: Mapping[str, sp.Expr]) -> str | None:
    """None when every field is smooth enough inside the domain and finite and continuous up to its
    boundary (a branch point on a face only as the module's docstring allows); otherwise the reason."""
    orders = _derivatives_taken(problem)
    bounds, region = _bounds(problem), _region(problem)
    for field, expr in exprs.items():
        pole, edges = _pole(expr, bounds, region)
        if pole is not None:
            return f"{NOT_FINITE}: {field} {pole}"
        edge = _edge_reason(problem, exprs, edges)
        if edge is not None:
            return f"{REASON}: {field} {edge}"
        wanted = orders.get(field, set())
        if not wanted:
            continue        # a field the problem never differentiates may have kinks
        smooth_expr, kinked = _resolve_abs(expr, bounds, region)
        if kinked is not None:
            return f"{REASON}: {field} has abs({kinked}), which is not of one sign on the domain"
        if not smooth_expr.has(sp.Abs, *ROUGH):
            # the language's other functions are analytic where they are finite (the poles and branch points
            # are refused above), and so are their derivatives: differentiating (minutes for a 14th
            # derivative) cannot bring in a kink
            continue
        for wrt in sorted(wanted, key=len):
            d = sp.diff(smooth_expr, *[problem.vocabulary.var_symbols[v] for v in wrt])
            bad = d.atoms(*ROUGH)
            if bad:
                found = sorted(str(b) for b in bad)[0]
                return f"{REASON}: {field}_{''.join(wrt)} brings in {found[:80]}"
    # the equations as written, with these fields: real, and defined where they must hold
    return condition_reason(problem, exprs, bounds, region)


def resolve_abs(problem: Problem, exprs: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """Each field with its abs() of one-signed quantities removed (the others stay), and each power of a
    power of a quantity positive on the domain as one power (:func:`merge_powers`)."""
    bounds, region = _bounds(problem), _region(problem)
    return {f: merge_powers(_resolve_abs(e, bounds, region)[0], bounds, region) for f, e in exprs.items()}


def merge_powers(expr: sp.Expr, bounds: Bounds, region: Region | None = None) -> sp.Expr:
    """``(A**p)**q`` as ``A**(p*q)`` where ``A`` is shown positive on the domain (interval arithmetic):
    there the two are the same function (``1/sqrt(1/A)`` is ``sqrt(A)``), which SymPy will not assume,
    since for a negative ``A`` the branches differ; so a proof does not depend on how a run printed it."""
    def nested(node: sp.Basic) -> bool:
        return isinstance(node, sp.Pow) and isinstance(node.base, sp.Pow) and \
            all(e.is_number and e.is_real for e in (node.exp, node.base.exp))

    def merged(node: sp.Pow) -> sp.Expr:
        inner = node.base.base
        if sign_on(inner, bounds, strict=True, region=region) != "positive":
            return node
        return sp.Pow(inner, node.base.exp * node.exp)

    return expr.replace(nested, merged) if expr.has(sp.Pow) else expr


def numeric_fields(problem: Problem, exprs: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """The fields as the numbers evaluate them: abs() of one-signed quantities removed, and an even analytic
    function of a root whose argument reaches 0 as its series (:mod:`desyr.verify.removable`), so that a
    derivative there is its limit, not 0/0."""
    bounds, region = _bounds(problem), _region(problem)
    return where_needed(resolve_abs(problem, exprs), bounds, region)


def _bounds(problem: Problem) -> Bounds:
    """The ranges as the exact numbers the config wrote (never their floats: :func:`domain_bounds`)."""
    return domain_bounds(problem)


def _region(problem: Problem) -> Region | None:
    """The shape as inequalities (None on a box: the bounds are the domain)."""
    return domain_region(problem)


def _pole(expr: sp.Expr, bounds: Bounds, region: Region | None = None) -> tuple[str | None, frozenset[Edge]]:
    """Why ``expr`` is not finite and smooth on the whole closed box (a pole or a branch point), or None,
    with the faces where a branch point that keeps it finite and continuous sits (on a box only).
    Each condition must be *proved* by interval arithmetic; "unknown" fails like "changes"."""
    edges: frozenset[Edge] = frozenset()
    for node in sp.preorder_traversal(expr):
        need = _condition(node)
        if need is None:
            continue
        quantity, strict, what = need
        if _removable_pole(node, expr):
            continue
        strict = strict and not _even_root(node, expr)
        sign = sign_on(quantity, bounds, strict=strict, region=region)
        if sign in ("positive", "negative") and (what != "positive" or sign == "positive"):
            continue
        if region is None and _continuous_at_zero(node, bounds):
            inside, where = positive_inside(quantity, bounds, sign if strict else None)
            if inside == "positive":
                edges |= where
                continue
        verdict = "changes sign or reaches 0" if sign == "changes" else "could not be shown to keep its sign"
        return f"has {str(node)[:60]}, and {str(quantity)[:60]} {verdict} on the domain", frozenset()
    return None, edges


def _even_root(node: sp.Basic, expr: sp.Expr) -> bool:
    """Whether ``node`` is a square root ``sqrt(q)`` that ``expr`` holds only as ``F(c*sqrt(q))`` with ``F``
    even and analytic on the real line (cos, cosh, sech, J and I of even order): ``F(c*s)`` is a series in
    ``c**2*s**2 = c**2*q``, so the field is smooth where ``q`` reaches 0 (``besselj(0, sqrt(x**2 + y**2))``
    at the centre of a disk) and ``q >= 0`` is all it needs; ``c`` is checked as any other part.  So is
    ``1/sqrt(q)`` or ``sqrt(q)`` held only as ``G(c*sqrt(q))/sqrt(q)`` with ``G`` odd and analytic (sin, sinh,
    J and I of odd order): ``G(w)/w`` is even (:func:`desyr.verify.removable.odd_quotient`)."""
    if not (isinstance(node, sp.Pow) and node.exp in (sp.Rational(1, 2), sp.Rational(-1, 2))):
        return False
    root = sp.Pow(node.base, sp.Rational(1, 2))
    # F(c*sqrt(q))/sqrt(q), F odd: the pair hidden, the rest of its product kept
    rest = quotients_hidden(expr, root)
    found = rest is not None
    rest = expr if rest is None else rest
    calls: dict[sp.Basic, sp.Basic] = {call: sp.Dummy() for call in rest.atoms(sp.Function) if even_analytic(call)
                                       and call.args[-1].as_independent(root, as_Add=False)[1] == root}
    rest = rest.xreplace(calls)
    return (found or bool(calls)) and not rest.has(root) and not rest.has(sp.Pow(node.base, sp.Rational(-1, 2)))


def _removable_pole(node: sp.Basic, expr: sp.Expr) -> bool:
    """Whether ``node`` is ``1/p`` that ``expr`` holds only as ``G(c*p)/p`` with ``G`` odd and analytic (``c``
    free of ``p``): ``c*G(w)/w`` is even and analytic in ``w``, finite where ``p`` is 0 (``sin(k*x)/k``)."""
    if not (isinstance(node, sp.Pow) and node.exp == -1) or node.base.is_number:
        return False
    rest = quotients_hidden(expr, node.base)
    return rest is not None and not rest.has(node)


def _continuous_at_zero(node: sp.Basic, bounds: Bounds) -> bool:
    """Whether ``node`` stays finite and continuous where its condition's quantity reaches 0: a
    positive power (``sqrt(x)`` at 0), ``asin``/``acos`` at -1 and 1; never ``log``, ``tan`` or a pole."""
    if isinstance(node, (sp.asin, sp.acos)):
        return True
    if isinstance(node, sp.Pow) and not node.exp.is_Integer:
        return sign_on(node.exp, bounds, strict=True) == "positive"
    return False


def _edge_reason(problem: Problem, exprs: Mapping[str, sp.Expr], edges: frozenset[Edge]) -> str | None:
    """Why a branch point on these faces is not a classical solution's: the problem's data are smooth
    there, or a constraint does not evaluate on its face (its residual, or a derivative it takes, that
    is not finite and continuous there: SymPy may have combined ``sqrt(x)*u_x`` to a constant)."""
    if not edges:
        return None
    bounds = _bounds(problem)
    for symbol, end in sorted(edges, key=str):
        at = bounds[symbol][end]
        if not _data_singular(problem, exprs, symbol, at, end):
            return (f"has a branch point on {symbol} = {at}, where the problem's data are smooth "
                    "(allowed only where the equations' own data are singular too)")
    for con in problem.constraints:
        if con.kind == "integral":
            continue
        residual = problem.constraint_residual(con, exprs)
        for face in con.faces:
            if not isinstance(face, Face):
                continue
            why = _jets_reason(problem, exprs, con, face)
            if why is None and _on_edges(problem, face, edges):
                why = _face_reason(problem, residual, _fixed(problem, face))
            if why is not None:
                return f"cannot meet constraint {con.label} on {face.describe()}: {why}"
    return None


def _data_singular(problem: Problem, exprs: Mapping[str, sp.Expr], symbol: sp.Symbol, at: sp.Expr,
                   end: int) -> bool:
    """Whether some coefficient or forcing of the equations is not finite and smooth on the whole face
    ``symbol = at``: a node whose condition's quantity is identically 0 (or undefined) there.  The data
    are first written in the distance ``d > 0`` from the face, so that SymPy's own rules for positive
    bases take out what only looks singular (``(x**3)**(1/3)`` is ``d`` at x = d)."""
    d = sp.Dummy("d", positive=True)
    near = {symbol: at + d if end == 0 else at - d}
    for eq in problem.equations:
        for data in (eq.lhs, eq.forcing):
            for node in sp.preorder_traversal(problem.resolved(data, exprs).xreplace(near)):
                need = _condition(node)
                if need is None or any(problem.vocabulary.jet_of(s) is not None for s in node.free_symbols):
                    continue
                there = need[0].xreplace({d: sp.Integer(0)})
                if there.has(sp.zoo, sp.oo, -sp.oo, sp.nan) or sp.expand(there) == 0:
                    return True
    return False


def _fixed(problem: Problem, face: Face) -> dict[sp.Symbol, sp.Expr]:
    """The face's variables at the exact values the config wrote."""
    symbols = problem.vocabulary.var_symbols
    return {symbols[name]: exact_number(value, problem.numbers) for name, value in face.fixed}


def _on_edges(problem: Problem, face: Face, edges: frozenset[Edge]) -> bool:
    """Whether the face lies on one of ``edges``: decided on exact numbers, never on their floats."""
    bounds = _bounds(problem)
    return any((s, end) in edges and sp.expand(at - bounds[s][end]) == 0
               for s, at in _fixed(problem, face).items() for end in (0, 1))


def _jets_reason(problem: Problem, exprs: Mapping[str, sp.Expr], con: Constraint, face: Face) -> str | None:
    """Why a derivative the constraint takes is not finite and continuous on its face (and, for a periodic
    pair, on the face it is moved to), each derivative on its own, before SymPy combines them."""
    fixed = _fixed(problem, face)
    moves: list[dict[sp.Symbol, sp.Expr]] = [{}]
    if con.kind == "periodic":
        symbols = problem.vocabulary.var_symbols
        moves.append({symbols[v]: symbols[v] + d for v, d in zip(problem.variable_names, con.moved(problem.numbers))
                      if d != 0})
    for jet in sorted(jets_in(con.operator, problem.vocabulary), key=str):
        jet_expr = problem.apply(problem.jet_symbol(jet), exprs)
        for move in moves:
            why = _face_reason(problem, jet_expr.xreplace(move), fixed)
            if why is not None:
                return f"its {jet.field}{'_' if jet.wrt else ''}{''.join(jet.wrt)} {why}"
    return None


def _face_reason(problem: Problem, expr: sp.Expr, fixed: Mapping[sp.Symbol, sp.Expr]) -> str | None:
    """Why ``expr`` is not finite and continuous on the whole face ``fixed`` (an infinity there), or None."""
    there = expr.xreplace(dict(fixed))
    if there.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        return "is not finite there"
    rest = {s: b for s, b in _bounds(problem).items() if s not in fixed}
    pole, _ = _pole(there, rest)
    return None if pole is None else f"there {pole}"


def _condition(node: sp.Basic) -> tuple[sp.Expr, bool, str] | None:
    """(quantity, strict, "positive" or "one sign") that must hold on the whole box for ``node``."""
    if isinstance(node, sp.log):
        return node.args[0], True, "positive"
    if isinstance(node, sp.tan):
        return sp.cos(node.args[0]), True, "one sign"
    if isinstance(node, (sp.asin, sp.acos)):
        return 1 - node.args[0] ** 2, True, "positive"
    if isinstance(node, (sp.csch, sp.coth)):
        return node.args[0], True, "one sign"
    if needs_positive(node):          # Y, K and non-integer orders: a branch point at 0, as log's
        return node.args[1], True, "positive"
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


def _resolve_abs(expr: sp.Expr, bounds: Bounds, region: Region | None = None
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
