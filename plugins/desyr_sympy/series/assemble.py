"""Terms keyed by index tuples -> the answer ``P + Sum(...) + ...`` in the contract's form.

A key holds ``None`` for a family whose index runs to infinity (a ``Sum``, nested in the order of the
families) and an integer where the index is fixed (a term of the finite part ``P``).  The integrals are
done in positive-integer symbols; the sums are written in :func:`series_index`'s symbols, named ``n``,
``m``, ``k``... (skipping the problem's own names).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import sympy as sp

from desyr_sympy.series.eigen import Family
from desyr_sympy.series.names import series_index
from desyr_sympy.series.project import Expansion, Key, raise_start

#: names the indices take, in order, where the problem does not use them
INDEX_NAMES = ("n", "m", "k", "j", "l", "p", "q")


def index_names(taken: Iterable[str], count: int) -> list[str]:
    used = set(taken)
    free = [name for name in INDEX_NAMES if name not in used]
    if len(free) < count:
        raise NotImplementedError("no free names for the series' indices")
    return free[:count]


def align(expansions: Sequence[Expansion], starts: Sequence[int] | None = None) -> list[int]:
    """Raise every expansion's starts to the largest of them (and of ``starts``): one ``Sum`` per key."""
    if not expansions:
        return list(starts or [])
    common = [max(column) for column in zip(*[e.starts for e in expansions], *([starts] if starts else []))]
    for e in expansions:
        for i, start in enumerate(common):
            if e.families[i].index is not None and e.starts[i] < start:
                raise_start(e, i, start)
    return common


def keys(expansions: Sequence[Expansion]) -> list[Key]:
    found: dict[Key, None] = {}
    for e in expansions:
        found.update(dict.fromkeys(e.parts))
    return list(found)


def fixed(families: Sequence[Family], key: Key) -> dict[sp.Symbol, int]:
    """The substitution of a key's fixed indices."""
    return {f.index: k for f, k in zip(families, key) if f.index is not None and k is not None}


def write(families: Sequence[Family], starts: Sequence[int], terms: dict[Key, sp.Expr],
          names: Sequence[str]) -> sp.Expr:
    """``sum of the finite keys' terms + the nested sums of the others``; ``names[i]`` names family ``i``'s index."""
    total = sp.Integer(0)
    for key, term in terms.items():
        term = term.subs(fixed(families, key))
        if term == 0:
            continue
        free = [i for i, (f, k) in enumerate(zip(families, key)) if f.index is not None and k is None]
        for i in free:
            index = series_index(names[i], starts[i])
            term = term.xreplace({families[i].index: index})
        sign = -1 if free and term.could_extract_minus_sign() else 1     # - Sum(12*...), not Sum(-12*...)
        term = sign * term
        for i in reversed(free):
            term = sp.Sum(term, (series_index(names[i], starts[i]), starts[i], sp.oo))
        total += sign * term
    return total


def combine(families: Sequence[Family], key_term: Callable[[Key], sp.Expr], expansions: Sequence[Expansion]
            ) -> dict[Key, sp.Expr]:
    return {key: key_term(key) for key in keys(expansions)}


def product(families: Sequence[Family]) -> sp.Expr:
    return sp.Mul(*[f.function for f in families])


def rate(families: Sequence[Family], diffusivities: Sequence[sp.Expr], reaction: sp.Expr) -> sp.Expr:
    """``Lambda = sum d_i*lambda_i - c``, the mode's eigenvalue of ``-(sum d_i d2/dx_i2 + c)``."""
    return sp.Add(*[d * f.value for f, d in zip(families, diffusivities)]) - reaction
