"""The shape of a series answer: a finite part ``P`` plus infinite sums, each split into pieces.

A series answer is ``P + S_1 + ... + S_k`` (docs/series.md): ``P`` free of infinite sums, each
``S_i`` a ``Sum`` (or a nested ``Sum``) over integer indices from an integer literal to ``oo``.  A sum
with finite limits is a finite formula: it is expanded into ``P`` when it is small, and never counts
as a series.  Each infinite sum is flattened into one multi-index term, which is then split into
additive pieces (:func:`pieces_of`) so that every piece is a product of one eigenfunction per
expansion direction (``c_n*cos(2*n*pi*x) + d_n*sin(2*n*pi*x)`` is two pieces).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

#: a finite sum is expanded into the finite part up to this many terms; a larger one is not a proof
MAX_FINITE_TERMS = 200


class NotASeries(Exception):
    """The answer is not of the series form the proof reads (the message says why, in one line)."""


@dataclass(frozen=True)
class Index:
    symbol: sp.Symbol
    lower: int


@dataclass(frozen=True)
class Series:
    """One infinite (possibly multiple) sum: ``Sum(term, (index, lower, oo), ...)``."""

    term: sp.Expr
    indices: tuple[Index, ...]

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        return tuple(i.symbol for i in self.indices)


@dataclass(frozen=True)
class Answer:
    finite: sp.Expr                   # P: no infinite sum
    series: tuple[Series, ...]


def has_infinite_sum(expr: sp.Expr) -> bool:
    """Whether ``expr`` holds a sum with an infinite limit."""
    return any(any(not _finite(limit) for limit in s.limits) for s in expr.atoms(sp.Sum))


def expand_finite_sums(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every sum over finite limits written out (the sums are a finite formula)."""
    def written(s: sp.Sum) -> sp.Expr:
        count = 1
        for _, lo, hi in s.limits:
            count *= max(0, int(hi) - int(lo) + 1)
        if count > MAX_FINITE_TERMS:
            raise NotASeries(f"a finite sum of {count} terms is not expanded (at most {MAX_FINITE_TERMS})")
        return s.doit()
    return expr.replace(lambda e: isinstance(e, sp.Sum) and all(_finite(lim) for lim in e.limits), written)


def split_answer(expr: sp.Expr, names: set[str]) -> Answer:
    """``expr`` as ``P`` plus its infinite sums; ``names`` are the problem's own names, which an index
    may not take.  Raises :class:`NotASeries` for anything else: a sum inside a function, mixed finite
    and infinite limits, an index that is not an integer symbol, a limit that is not an integer literal."""
    expr = expand_finite_sums(expr)
    finite: list[sp.Expr] = []
    series: list[Series] = []
    for part in sp.Add.make_args(expr):
        if not has_infinite_sum(part):
            finite.append(part)
            continue
        series.append(_series_of(part, names))
    used = [i.symbol for s in series for i in s.indices]
    if len(set(used)) != len(used):
        # two sums over the same index are one sum over it only when their ranges agree; keep them apart
        series = _renamed(series)
    return Answer(sp.Add(*finite), tuple(series))


def _series_of(part: sp.Expr, names: set[str]) -> Series:
    factor, sums = sp.Integer(1), []
    for f in sp.Mul.make_args(part):
        if isinstance(f, sp.Sum):
            sums.append(f)
        else:
            factor *= f
    if len(sums) != 1 or has_infinite_sum(factor):
        raise NotASeries("an infinite sum must be a term of the answer (a constant times a Sum), "
                         "not inside a function or a product of sums")
    term, indices = _flatten(sums[0], names)
    if factor.free_symbols & {i.symbol for i in indices}:
        raise NotASeries("a sum's index is used outside its sum")
    return Series(factor * term, indices)


def _flatten(s: sp.Sum, names: set[str]) -> tuple[sp.Expr, tuple[Index, ...]]:
    indices: list[Index] = []
    term: sp.Expr = s
    while isinstance(term, sp.Sum):
        for symbol, lo, hi in reversed(term.limits):
            if hi != sp.oo:
                raise NotASeries(f"a sum over {symbol} from {lo} to {hi} mixes finite and infinite limits")
            if not (isinstance(lo, sp.Integer)):
                raise NotASeries(f"the lower limit of a sum must be an integer literal, got {lo}")
            if not symbol.is_integer or (int(lo) >= 0 and not symbol.is_nonnegative):
                raise NotASeries(f"the index {symbol} is not an integer symbol (series_index)")
            if str(symbol) in names:
                raise NotASeries(f"the index {symbol} is a name of the problem")
            indices.insert(0, Index(symbol, int(lo)))
        term = term.function
    if has_infinite_sum(term) or term.has(sp.Sum):
        raise NotASeries("a sum's term holds another sum that is not nested as Sum(Sum(...))")
    symbols = [i.symbol for i in indices]
    if len(set(symbols)) != len(symbols):
        raise NotASeries("a nested sum repeats its index")
    return term, tuple(indices)


def _renamed(series: list[Series]) -> list[Series]:
    out = []
    for k, s in enumerate(series):
        fresh = {i.symbol: sp.Dummy(f"{i.symbol}{k}", integer=True, nonnegative=i.lower >= 0) for i in s.indices}
        out.append(Series(s.term.xreplace(fresh), tuple(Index(fresh[i.symbol], i.lower) for i in s.indices)))
    return out


def _finite(limit: tuple[sp.Expr, ...]) -> bool:
    return all(v.is_finite for v in limit[1:])
