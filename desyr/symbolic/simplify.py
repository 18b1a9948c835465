"""Post-refit algebraic simplification and the Stage-C cleaning proposal."""
from __future__ import annotations

import sympy as sp

from desyr.symbolic.expressions import complexity
from desyr.symbolic.time_limit import OutOfTime, time_limit

SIMPLIFY_MAX_NODES = 80     # sympy.simplify gets slow on long trees; they keep their evaluated form
SIMPLIFY_MAX_CALL_DEPTH = 8  # and exponential in nested calls: sin(sin(...)) 15 deep takes ~17 s
#: wall-clock cap on one sympy.simplify call.  Size and depth bounds are not enough: a 30-node
#: tanh candidate of a Burgers run kept trigsimp busy for over 20 minutes.
SIMPLIFY_SECONDS = 5.0
#: a float at least this large is no round-off integer: every float above 2**53 is an integer, and a
#: constant this size beside moderate ones is running off to a degenerate limit, which Stage B takes
#: (desyr.symbolic.limits, its GAP); snapped, ``atan(K*y/(K*x - 1))`` would keep K = 162018683699
SNAP_MAGNITUDE = 1e5


def call_depth(expr: sp.Expr) -> int:
    """How deeply function applications nest (sin(cos(x)) is 2), without recursion."""
    deepest, stack = 0, [(expr, 0)]
    while stack:
        node, depth = stack.pop()
        depth += isinstance(node, sp.Function)
        deepest = max(deepest, depth)
        stack.extend((arg, depth) for arg in node.args)
    return deepest


def simplifiable(expr: sp.Expr, max_nodes: int = SIMPLIFY_MAX_NODES) -> bool:
    """Whether ``sympy.simplify`` is affordable on ``expr`` (short, and not deeply nested)."""
    return complexity(expr) <= max_nodes and call_depth(expr) <= SIMPLIFY_MAX_CALL_DEPTH


def bounded_simplify(expr: sp.Expr, max_nodes: int = SIMPLIFY_MAX_NODES,
                     seconds: float | None = None) -> sp.Expr | None:
    """``sympy.simplify(expr)``, or None when the tree is too large or deep, sympy fails, or it
    takes longer than ``seconds`` (default SIMPLIFY_SECONDS).  Callers keep the form they had."""
    if not simplifiable(expr, max_nodes):
        return None
    try:
        # off the main thread (a Dask worker's task thread) nothing can interrupt sympy, and a
        # different rule there would make results depend on the executor: only the size bounds hold
        with time_limit(SIMPLIFY_SECONDS if seconds is None else seconds):
            return sp.simplify(expr)
    except OutOfTime:
        return None
    except Exception:  # sympy can fail on unusual trees
        return None


def simplify_expression(expr: sp.Expr) -> sp.Expr:
    """The simpler (by node count) of the evaluated tree and ``sympy.simplify`` of it; a series as it is
    (no rewrite is applied to one, docs/series.md, and ``simplify`` would spend seconds trying to sum it
    in closed form: ``Sum.doit``'s telescoping and hypergeometric searches)."""
    if isinstance(expr, sp.Basic) and expr.has(sp.Sum):
        return expr
    simpler = bounded_simplify(expr)
    return simpler if simpler is not None and complexity(simpler) < complexity(expr) else expr


def drop_small_terms(expr: sp.Expr, tol: float) -> sp.Expr:
    """Remove additive terms, at any depth, whose numerical leading coefficient is below ``tol``; never
    inside a sum's term (a small coefficient there may multiply a term that grows with the index)."""
    if not expr.args or isinstance(expr, sp.Sum):
        return expr
    args = [drop_small_terms(a, tol) for a in expr.args]
    if isinstance(expr, sp.Add):
        args = [a for a in args if not _negligible(a, tol)]
        return sp.Add(*args) if args else sp.Integer(0)
    return expr.func(*args) if args != list(expr.args) else expr


def _negligible(term: sp.Expr, tol: float) -> bool:
    coeff, _ = term.as_coeff_Mul()
    return isinstance(coeff, sp.Float) and abs(float(coeff)) < tol


def snap_integers(expr: sp.Expr, tol: float) -> sp.Expr:
    """Replace Floats that are integers up to round-off (e.g. 1.0, -0.9999999999999998) by Integers.

    Search output carries scale factors such as ``1.0*sin(...)``; a factor that the
    refit drove to an integer is structure, not a coefficient.  Floats of :data:`SNAP_MAGNITUDE` and
    above are left as they are.
    """
    mapping = {}
    # inside a sum a float near 0 may multiply a term that grows with the index: it is not snapped to 0
    summed = {f for s in expr.atoms(sp.Sum) for f in s.atoms(sp.Float)}
    for f in expr.atoms(sp.Float):
        if abs(float(f)) >= SNAP_MAGNITUDE:
            continue
        nearest = round(float(f))
        if abs(float(f) - nearest) <= tol * max(1.0, abs(nearest)) and not (nearest == 0 and f in summed):
            mapping[f] = sp.Integer(nearest)
    return expr.xreplace(mapping) if mapping else expr


def cleaning_proposal(expr: sp.Expr, term_tol: float, snap_tol: float) -> sp.Expr:
    """The Stage-C proposal: integers up to round-off snapped, then negligible terms dropped (the
    tolerances are the method's, ``MethodConstants.clean_term_tolerance`` and ``snap_integer_tolerance``,
    passed by Stage C)."""
    return drop_small_terms(snap_integers(expr, snap_tol), term_tol)
