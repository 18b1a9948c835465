"""Series answers: ``P + Sum(term, (n, a, oo)) + ...``, their index symbols, truncation and tail bounds
(their evaluation at points: :func:`desyr.symbolic.numeric.evaluate_series`).

- :func:`series_index` makes the one index symbol every producer (the parser, the solver, the proof)
  uses, so that the symbols of two producers compare equal;
- :func:`truncate` cuts each infinite sum to finitely many terms (a finite ``Sum``, not expanded);
- :func:`tail_bound` is a proved majorant of the remainder after N terms, uniform over a box
  (:mod:`desyr.symbolic.majorant`), or None where none holds;
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

if TYPE_CHECKING:
    from desyr.symbolic.majorant_form import Bound

#: a box: each variable's range
Box = Mapping[sp.Symbol, tuple[float, float]]

#: nested sums at most (a double series for a rectangle, a triple one for a box)
MAX_SUM_DEPTH = 3


def series_index(name: str, lower: int = 1) -> sp.Symbol:
    """The index symbol of a sum whose index starts at ``lower``: an integer, nonnegative when ``lower >= 0``."""
    if lower >= 0:
        return sp.Symbol(name, integer=True, nonnegative=True)
    return sp.Symbol(name, integer=True)


def rebuilt(node: sp.Basic, args: Sequence[sp.Basic]) -> sp.Basic:
    """``node``'s class on ``args`` without evaluation; a sum and its limits (which take no ``evaluate``)
    plainly: their limits are integers and ``oo``, nothing to fold."""
    if isinstance(node, (sp.Sum, sp.Tuple)):
        return node.func(*args)
    return node.func(*args, evaluate=False)


def has_series(expr: sp.Basic) -> bool:
    """Whether ``expr`` holds a sum (cheap where it holds none)."""
    return isinstance(expr, sp.Basic) and expr.has(sp.Sum)


def outer_sums(expr: sp.Basic) -> list[sp.Sum]:
    """The outermost sums of ``expr`` (inner sums are in their terms), in the order met."""
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


# ---------------------------------------------------------------------------------------------- forms
def merge_sums(expr: sp.Expr) -> sp.Expr:
    """``a*Sum(f, L) + b*Sum(g, L)`` written ``Sum(a*f + b*g, L)`` for sums over the same ranges (``a``,
    ``b`` free of the indices): a residual ``Sum(u_t) - Sum(u_xx)`` is then one sum of the terms'
    residuals, which vanish term by term for a series that solves the equation."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr
    if not isinstance(expr, sp.Add):
        return expr.func(*[merge_sums(a) for a in expr.args]) if expr.args else expr
    groups: dict[tuple[object, ...], list[sp.Expr]] = {}
    rest = []
    for part in expr.args:
        coefficient, series = _scaled_sum(part)
        if series is None:
            rest.append(merge_sums(part))
            continue
        groups.setdefault(series.limits, []).append(coefficient * series.function)
    merged = [sp.Sum(sp.Add(*terms), *limits) for limits, terms in groups.items()]
    return sp.Add(*rest, *merged)


def _scaled_sum(part: sp.Expr) -> tuple[sp.Expr, sp.Sum | None]:
    factors = sp.Mul.make_args(part)
    sums = [f for f in factors if isinstance(f, sp.Sum)]
    if len(sums) != 1:
        return sp.Integer(1), None
    series = sums[0]
    coefficient = sp.Mul(*[f for f in factors if f is not series])
    bound = {limit[0] for limit in series.limits}
    return (coefficient, series) if not coefficient.free_symbols & bound else (sp.Integer(1), None)


def stable_term(term: sp.Expr, box: Box | None = None) -> sp.Expr:
    """``term`` written so that no factor overflows where the term itself is moderate: each
    ``sinh``/``cosh`` as ``exp(|A|)*(...)``, and the exponentials of each product combined, distributed
    over the sums that hold a growing one, so that ``sinh(n*pi*y)/sinh(n*pi)`` is
    ``exp(n*pi*(y - 1))*(1 - exp(-2*n*pi*y))/(1 - exp(-2*n*pi))`` and
    ``(sinh(a) + sinh(b))/sinh(c)`` is ``(exp(a - c) - exp(-a - c) + ...)/(...)``, finite for large ``n``
    where the quotient as written is ``inf/inf``.  With ``box`` (each variable's range, and an index's
    ``(lower, inf)``), ``|A|`` is written without ``Abs`` where the box decides the sign of ``A``."""
    if not term.has(sp.sinh, sp.cosh, sp.exp):
        return term
    signed = _signed_symbols(term, box or {})
    mapping: dict[sp.Basic, sp.Expr] = {}
    for node in term.atoms(sp.sinh, sp.cosh):
        argument = node.args[0].xreplace(signed)
        size = sp.Abs(argument)
        rest = (_sign(argument) * (1 - sp.exp(-2 * size)) if isinstance(node, sp.sinh)
                else 1 + sp.exp(-2 * size))
        mapping[node] = sp.exp(size) * rest / 2
    written = term.xreplace({k: v.xreplace({s: o for o, s in signed.items()}) for k, v in mapping.items()})
    return _combined(written.xreplace(signed)).xreplace({s: o for o, s in signed.items()})


def _sign(argument: sp.Expr) -> sp.Expr:
    """``sign(A)`` as a sinh's factor: where ``A`` is 0 the factor ``1 - exp(-2*|A|)`` beside it is 0, so
    a nonnegative ``A`` has sign 1 and a nonpositive one -1."""
    return sp.Integer(1) if argument.is_nonnegative else sp.Integer(-1) if argument.is_nonpositive else sp.sign(argument)


def _signed_symbols(term: sp.Expr, box: Box) -> dict[sp.Symbol, sp.Symbol]:
    """Each variable of ``term`` whose range in ``box`` has one sign, as a symbol that knows it."""
    out = {}
    for symbol in term.free_symbols:
        lo, hi = box.get(symbol, (-math.inf, math.inf))
        if lo > 0:
            out[symbol] = sp.Dummy(symbol.name, positive=True)
        elif lo >= 0 or hi <= 0:
            out[symbol] = sp.Dummy(symbol.name, nonnegative=True) if lo >= 0 else sp.Dummy(symbol.name, nonpositive=True)
    return out


def _combined(expr: sp.Expr) -> sp.Expr:
    """``expr`` with the exponentials of each product combined into one, distributed over the sums (in
    the product) that hold an exponential whose argument may be positive."""
    if not expr.args:
        return expr
    if not isinstance(expr, sp.Mul):
        return expr.func(*[_combined(a) for a in expr.args])
    factors = [_combined(f) for f in expr.args]
    growing = [f for f in factors if isinstance(f, sp.Add) and _grows(f)]
    if not growing:
        return sp.powsimp(sp.Mul(*factors), combine="exp")
    powers = [f for f in factors if _exponential(f)]
    rest = [f for f in factors if f not in growing and not _exponential(f)]
    body = sp.expand(sp.Mul(*growing, *powers), deep=False, power_exp=False, power_base=False, log=False)
    return sp.Mul(*rest) * sp.Add(*[sp.powsimp(p, combine="exp") for p in sp.Add.make_args(body)])


def _exponential(factor: sp.Expr) -> bool:
    return isinstance(factor, sp.exp) or (isinstance(factor, sp.Pow) and isinstance(factor.base, sp.exp))


def _grows(expr: sp.Expr) -> bool:
    return any(not e.args[0].is_nonpositive for e in expr.atoms(sp.exp))


def head(expr: sp.Expr, terms: int = 3) -> sp.Expr:   # the parser bounds the terms written out up to lower + 3
    """``expr`` with every sum written out as its first ``terms`` terms (per index): a finite formula
    whose singularities in the variables are those of the terms (what a check of the formula's
    regularity reads)."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr

    def written(node: sp.Sum) -> sp.Expr:
        out = head(node.function, terms)
        for index, lower, upper in node.limits:
            top = int(lower) + terms - 1 if upper is sp.oo else min(int(upper), int(lower) + terms - 1)
            out = sp.Add(*[out.xreplace({index: sp.Integer(i)}) for i in range(int(lower), top + 1)])
        return out
    return expr.replace(lambda e: isinstance(e, sp.Sum), written)


def truncate(expr: sp.Expr, terms: int) -> sp.Expr:
    """``expr`` with every infinite sum cut to its first ``terms`` terms (per index): a finite ``Sum``,
    not expanded."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum):
        return expr

    def cut(node: sp.Sum) -> sp.Sum:
        limits = [(i, lo, lo + terms - 1 if hi is sp.oo else hi) for i, lo, hi in node.limits]
        return sp.Sum(truncate(node.function, terms), *limits)
    return expr.replace(lambda e: isinstance(e, sp.Sum), cut)


# ---------------------------------------------------------------------------------------------- bounds
@dataclass(frozen=True)
class TailBound:
    """A proved bound of what a sum leaves out after ``N`` terms per index, uniform over :attr:`box`.

    One index: the majorant's tail from ``lower + N``.  Several (a sum whose term is a product of one
    factor per index): the union bound ``sum_i T_i(N) * prod_{j != i} S_j`` with ``S_j`` the bound of
    the whole sum of the ``j``-th factor."""

    majorants: tuple[Bound, ...]
    lowers: tuple[int, ...]
    totals: tuple[float, ...]
    box: tuple[tuple[str, float, float], ...]

    def after(self, terms: int) -> float:
        """The bound of the remainder after ``terms`` terms (per index); inf where none holds yet."""
        tails = [m.tail(lower + terms) for m, lower in zip(self.majorants, self.lowers)]
        if len(tails) == 1:
            return tails[0]
        out = 0.0
        for i, tail in enumerate(tails):
            out += tail * math.prod(t for j, t in enumerate(self.totals) if j != i)
        return out

    def terms_for(self, tolerance: float, cap: int) -> int | None:
        """The fewest terms (at most ``cap``) whose remainder bound is within ``tolerance``; None if none."""
        if not self.after(cap) <= tolerance:
            return None
        low, high = 0, cap
        while low < high:
            middle = (low + high) // 2
            if self.after(middle) <= tolerance:
                high = middle
            else:
                low = middle + 1
        return low if self.after(low) <= tolerance else cap

    def where(self) -> str:
        """The box the bound holds on, as text."""
        return ", ".join(f"{lo:.6g} <= {name} <= {hi:.6g}" for name, lo, hi in self.box)


def tail_bound(term: sp.Expr, index: sp.Symbol, lower: int, domain_box: Box) -> TailBound | None:
    """A proved majorant of the remainder of ``Sum(term, (index, lower, oo))`` after N terms, uniform over
    ``domain_box``, as a function of N (:meth:`TailBound.after`); None where none is shown."""
    from desyr.symbolic.majorant import majorant
    found = majorant(term, index, domain_box)
    if found is None or not math.isfinite(found.tail(max(found.start, int(lower)) + 10**6)):
        return None         # a majorant whose tail diverges (coefficients ~ 1/n at t = 0) bounds nothing
    return TailBound((found,), (int(lower),), (_total(term, index, int(lower), found, domain_box),), _named(domain_box))


def _named(box: Box) -> tuple[tuple[str, float, float], ...]:
    return tuple((str(s), float(lo), float(hi)) for s, (lo, hi) in sorted(box.items(), key=lambda kv: str(kv[0])))


def _total(term: sp.Expr, index: sp.Symbol, lower: int, found: Bound, box: Box) -> float:
    """A bound of the whole sum of ``|term|``: its first terms enclosed one by one, then the majorant's tail."""
    from mpmath import iv

    from desyr.symbolic.enclosure import magnitude
    from desyr.symbolic.interval_numbers import Unenclosed, interval_precision
    first = max(found.start, 1)
    with interval_precision():
        intervals = {s: iv.mpf([lo, hi]) for s, (lo, hi) in box.items()}
    head = 0.0
    for n in range(lower, first):
        try:
            head += magnitude(term.xreplace({index: sp.Integer(n)}), intervals)
        except Unenclosed:
            return math.inf
    return head + found.tail(first)


def sum_bound(total: sp.Sum, box: Box) -> TailBound | None:
    """The tail bound of a whole sum over ``box``: one index, or several whose term is a product of
    factors of one index each (``exp`` of a sum split first); None otherwise."""
    if len(total.limits) == 1:
        (index, lower, _), = total.limits
        return tail_bound(total.function, index, int(lower), box)
    term = total.function.replace(lambda e: isinstance(e, sp.exp),
                                  lambda e: sp.Mul(*[sp.exp(a) for a in sp.Add.make_args(sp.expand(e.args[0]))]))
    indices_ = [limit[0] for limit in total.limits]
    groups: dict[sp.Symbol | None, list[sp.Expr]] = {}
    for factor in sp.Mul.make_args(term):
        own = [i for i in indices_ if i in factor.free_symbols]
        if len(own) > 1 or (isinstance(factor, sp.Sum)):
            return None
        groups.setdefault(own[0] if own else None, []).append(factor)
    parts = []
    for position, (index, lower, _) in enumerate(total.limits):
        factors = groups.get(index, [])
        if position == 0:
            factors = factors + groups.get(None, [])
        bound = tail_bound(sp.Mul(*factors), index, int(lower), box)
        if bound is None:
            return None
        parts.append(bound)
    return TailBound(tuple(p.majorants[0] for p in parts), tuple(p.lowers[0] for p in parts),
                     tuple(p.totals[0] for p in parts), _named(box))


def bound_on_part(total: sp.Sum, box: Box, raised_only: bool = False) -> TailBound | None:
    """:func:`sum_bound` on ``box`` (unless ``raised_only``), else on the largest part of it that raises
    one variable's lower end by 0.1 %, 1 % or 10 % of its range (``t >= t0 > 0``: the part where a heat
    series' terms decay)."""
    found = None if raised_only else sum_bound(total, box)
    if found is not None:
        return found
    for share in (1e-3, 1e-2, 1e-1):       # the largest part first; of its kind, the one bounded best
        parts = [sum_bound(total, {**box, symbol: (lo + share * (hi - lo), hi)})
                 for symbol, (lo, hi) in sorted(box.items(), key=lambda kv: str(kv[0])) if hi > lo]
        bounded = [p for p in parts if p is not None]
        if bounded:
            return min(bounded, key=lambda p: p.after(PART_TERMS))
    return None


#: the terms at which the parts of a box are compared (:func:`bound_on_part`)
PART_TERMS = 100
