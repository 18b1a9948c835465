"""Series in the exports (``docs/series.md``, Exports): each sum written as a truncated sum, with a
comment stating the terms kept and the proved bound of what they leave out, and where it holds.

How many terms: the fewest whose proved tail bound over the domain's box is within
:data:`TOLERANCE` of the size of the sum (the bound of the sum of its terms' magnitudes), at most
:data:`CAP` per index.  Where no bound holds on the whole box (coefficients ~ 1/n at t = 0), the part
of the box where one holds (a variable's lower end raised, :func:`desyr.symbolic.series.bound_on_part`)
chooses the terms, and the comment says that no bound holds on the rest.  Named eigenvalues are
precomputed for the terms kept, as literals at full double precision; ``(-1)**e`` is computed as
``1 - 2*mod(e, 2)``, exact for every integer.  Hyperbolic functions and exponentials are written so that
no factor overflows where the term is moderate (:func:`desyr.symbolic.series.stable_term`:
``sinh(n*pi*y)/sinh(n*pi)`` as ``exp(pi*n*(y - 1))*(1 - exp(-2*pi*n*y))/(1 - exp(-2*pi*n))``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from desyr.symbolic.eigenvalues import EigenvalueFunction
from desyr.symbolic.series import Box, TailBound, bound_on_part, has_series, outer_sums, stable_term, sum_bound

#: the truncation's tolerance, relative to the bound of the sum of the terms' magnitudes
TOLERANCE = 1e-13
#: the most terms kept per index (one index; a double or triple sum keeps fewer per index)
CAP = {1: 2000, 2: 200, 3: 40}
#: terms computed at once by the vectorised Python exports
BLOCK = 64


@dataclass(frozen=True)
class Table:
    """A named eigenvalue's first ``len(values)`` values, precomputed."""

    name: str
    node: EigenvalueFunction
    values: tuple[float, ...]


@dataclass(frozen=True)
class SumCode:
    """One sum as the writers print it: its term with the eigenvalues and signs as plain symbols."""

    name: str                                  # desyr_s0: the value's name in the code
    term: sp.Expr
    indices: tuple[sp.Symbol, ...]             # innermost first, as SymPy orders the limits
    lowers: tuple[int, ...]
    counts: tuple[int, ...]
    tables: tuple[tuple[sp.Symbol, Table, int], ...]    # (symbol in the term, table, position of its index)
    signs: tuple[tuple[sp.Symbol, sp.Expr], ...]        # (symbol in the term, exponent e of (-1)**e)
    note: str


def domain_box(exprs: Mapping[str, sp.Expr], variables: Sequence[str],
               domain: Mapping[str, tuple[float, float]] | None) -> Box | None:
    if domain is None:
        return None
    symbols = {s.name: s for e in exprs.values() for s in e.free_symbols}
    return {symbols.get(v, sp.Symbol(v, real=True)): (float(domain[v][0]), float(domain[v][1]))
            for v in variables if v in domain}


def prepare(exprs: Mapping[str, sp.Expr], box: Box | None) -> tuple[dict[str, sp.Expr], list[SumCode]]:
    """Each expression with its sums as symbols ``desyr_s<i>``, and the code of each sum."""
    out: dict[str, sp.Expr] = {}
    codes: list[SumCode] = []
    tables: dict[EigenvalueFunction, Table] = {}
    for field, expr in exprs.items():
        mapping: dict[sp.Basic, sp.Expr] = {}
        for total in outer_sums(expr):
            if total in mapping:
                continue
            code = _code(f"desyr_s{len(codes)}", field, total, box, tables)
            codes.append(code)
            mapping[total] = sp.Symbol(code.name, real=True)
        out[field] = _valued(expr.xreplace(mapping))
    return out, codes


def _valued(expr: sp.Expr) -> sp.Expr:
    """A named eigenvalue of a given index outside the sums (a growing mode's ``robinsinhroot(1, ...)``) as its
    value, a literal to 17 digits."""
    calls = {c for c in expr.atoms(EigenvalueFunction) if c.index.is_Integer}
    return expr.xreplace({c: sp.Float(sp.N(c, 17), 17) for c in calls}) if calls else expr


def notes(codes: Sequence[SumCode]) -> list[str]:
    return [code.note for code in codes]


def _code(name: str, field: str, total: sp.Sum, box: Box | None, tables: dict[EigenvalueFunction, Table]) -> SumCode:
    if total.function.has(sp.Sum):
        raise ValueError(f"the series {str(total)[:60]} nests a sum inside a product; the exports write only "
                         "sums whose terms hold no other sum (write it as one double sum)")
    indices = tuple(limit[0] for limit in total.limits)
    lowers = tuple(int(limit[1]) for limit in total.limits)
    finite = all(limit[2] is not sp.oo for limit in total.limits)
    counts, note = _counts(field, total, box) if not finite else (
        tuple(int(lim[2]) - int(lim[1]) + 1 for lim in total.limits), f"{field}: a finite sum, written in full")
    # sinh(n*pi*y)/sinh(n*pi) as exp(n*pi*(y - 1))*...: each factor as written overflows past n ~ 226
    ranges = {**(box or {}), **{i: (float(lo), math.inf) for i, lo in zip(indices, lowers)}}
    term = stable_term(sp.sympify(total.function), ranges).replace(lambda e: isinstance(e, sp.factorial),
                                                                  lambda e: sp.gamma(e.args[0] + 1))
    found: list[tuple[sp.Symbol, Table, int]] = []
    for node in sorted(term.atoms(EigenvalueFunction), key=sp.default_sort_key):
        index = node.index
        if index not in indices:
            raise ValueError(f"{node}: the exports precompute a named eigenvalue only at a sum's index")
        position = indices.index(index)
        table = tables.get(node)
        if table is None or len(table.values) < counts[position] + lowers[position] - 1:
            values = type(node).numpy_values(node.constants, counts[position] + max(lowers[position], 1) - 1)
            table = Table(f"desyr_table{len(tables)}", node, tuple(float(v) for v in values))
            tables[node] = table
        found.append((sp.Symbol(f"desyr_lam{len(found)}", real=True), table, position))
    term = term.xreplace({t.node: symbol for symbol, t, _ in found})
    signs: list[tuple[sp.Symbol, sp.Expr]] = []
    for power in sorted(term.atoms(sp.Pow), key=sp.default_sort_key):
        if power.base == -1 and not power.exp.is_number:
            signs.append((sp.Symbol(f"desyr_sign{len(signs)}", real=True), power.exp))
    term = term.xreplace({sp.Pow(-1, e): symbol for symbol, e in signs})
    plain = {i: sp.Symbol(i.name, real=True) for i in indices}
    if found:
        note += "; " + ", ".join(f"{t.node} for the first {len(t.values)} indices precomputed to double precision "
                                 "(within one unit in the last place)" for _, t, _ in found)
    return SumCode(name, term.xreplace(plain), tuple(plain[i] for i in indices), lowers, counts,
                   tuple(found), tuple((s, e.xreplace(plain)) for s, e in signs), note)


def _counts(field: str, total: sp.Sum, box: Box | None) -> tuple[tuple[int, ...], str]:
    depth = len(total.limits)
    cap = CAP.get(depth, 20)
    text = f"{field}: {str(total)[:70]}{'...' if len(str(total)) > 70 else ''}"
    if box is None:
        return (cap,) * depth, (f"{text}: written truncated to {cap} terms per index; no domain was given, so no "
                                f"tail bound is stated")
    whole = sum_bound(total, box)
    part = None if whole is not None and _reaches(whole, cap) else bound_on_part(total, box, raised_only=True)
    terms = cap         # where the whole domain's bound is not reached, as many terms as the cap allows
    if whole is not None and _reaches(whole, cap):
        total_size = sum(whole.totals)
        terms = whole.terms_for(TOLERANCE * max(total_size if math.isfinite(total_size) else 1.0, 1e-300), cap) or cap
    where = ", ".join(f"{lo:.6g} <= {s} <= {hi:.6g}" for s, (lo, hi) in sorted(box.items(), key=lambda kv: str(kv[0])))
    out = f"{text}: written truncated to {terms} terms{' per index' if depth > 1 else ''}; "
    if whole is not None:
        out += f"|what they leave out| <= {_number(whole.after(terms))} on the whole domain ({where})"
    else:
        out += f"no tail bound holds on the whole domain ({where}): the truncation's error there is not bounded"
    if part is not None and part is not whole:
        out += f"; <= {_number(part.after(terms))} where {part.where()}"
    elif whole is None:
        out += "; nor on any part of it tried"
    return (terms,) * depth, out + " (proved tail bounds, docs/series.md)"


def _number(bound: float) -> str:
    return f"{bound:.3g}" if bound > 0 else "1e-300 (below the smallest double)"


def _reaches(bound: TailBound, cap: int) -> bool:
    total = sum(bound.totals)
    return bound.after(cap) <= TOLERANCE * max(total if math.isfinite(total) else 1.0, 1e-300)


def is_series(exprs: Mapping[str, sp.Expr]) -> bool:
    return any(has_series(e) for e in exprs.values())
