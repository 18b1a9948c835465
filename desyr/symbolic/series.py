"""Series answers: ``P + Sum(term, (n, a, oo)) + ...``, their index symbols, truncation, tail bounds
and evaluation at points.

- :func:`series_index` makes the one index symbol every producer (the parser, the solver, the proof)
  uses, so that the symbols of two producers compare equal;
- :func:`truncate` cuts each infinite sum to finitely many terms (a finite ``Sum``, not expanded);
- :func:`tail_bound` is a proved majorant of the remainder after N terms, uniform over a box
  (:mod:`desyr.symbolic.majorant`), or None where none holds;
- :func:`evaluate_series` evaluates at points with the number of terms chosen from the bound.
"""
from __future__ import annotations

from collections.abc import Iterator

import sympy as sp

#: nested sums at most (a double series for a rectangle, a triple one for a box)
MAX_SUM_DEPTH = 3


def series_index(name: str, lower: int = 1) -> sp.Symbol:
    """The index symbol of a sum whose index starts at ``lower``: an integer, nonnegative when ``lower >= 0``."""
    if lower >= 0:
        return sp.Symbol(name, integer=True, nonnegative=True)
    return sp.Symbol(name, integer=True)


def has_series(expr: sp.Basic) -> bool:
    """Whether ``expr`` holds a sum (cheap where it holds none)."""
    return isinstance(expr, sp.Basic) and expr.has(sp.Sum)


def infinite_sums(expr: sp.Basic) -> list[sp.Sum]:
    """The outermost sums of ``expr`` with an infinite upper limit (inner sums are in their terms)."""
    out: list[sp.Sum] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, sp.Sum):
            out.append(node)
            continue
        stack.extend(node.args)
    return out


def indices(expr: sp.Basic) -> set[sp.Symbol]:
    """Every index symbol bound by a sum in ``expr``."""
    return {limit[0] for s in expr.atoms(sp.Sum) for limit in s.limits}


def without_limits(expr: sp.Basic) -> sp.Basic:
    """``expr`` with every sum's limits left out (its terms kept): what a check for ``oo`` or ``zoo``
    in the expression itself reads, since an infinite sum's upper limit is ``oo``."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    return expr.replace(lambda e: isinstance(e, sp.Sum), lambda e: _Term(e.function))


class _Term(sp.Function):  # type: ignore[misc]  # SymPy's classes are untyped (Any)
    """A sum's term standing alone, for checks that must not see its limits."""


def not_finite(expr: sp.Basic) -> bool:
    """Whether ``expr`` holds ``oo``, ``zoo`` or ``nan`` outside the sums' limits."""
    return bool(without_limits(expr).has(sp.zoo, sp.oo, -sp.oo, sp.nan))


def sum_depth(expr: sp.Basic) -> int:
    """How deep sums nest in ``expr`` (0: no sum)."""
    def depth(node: sp.Basic) -> int:
        inner = max((depth(a) for a in node.args), default=0)
        return inner + 1 if isinstance(node, sp.Sum) else inner
    return depth(expr) if isinstance(expr, sp.Basic) and expr.has(sp.Sum) else 0


def walk_sums(expr: sp.Basic) -> Iterator[sp.Sum]:
    """Every sum in ``expr``, outer ones first."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Sum):
            yield node
