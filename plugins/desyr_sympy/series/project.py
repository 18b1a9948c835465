"""The data's expansion coefficients: exact orthogonality integrals in a symbolic integer index.

``c(n) = integral(f*X_n*w) / integral(X_n**2*w)`` is done by SymPy with ``n`` a positive integer, so that
``sin(pi*n)`` is 0 and ``cos(pi*n)`` is ``(-1)**n``, and simplified to a closed form in ``n``
(``2*(1 - (-1)**n)/(pi**3*n**3)``).  Where the data hold an eigenfunction (``sin(3*pi*x)``), SymPy's answer
is piecewise in ``n``: the generic branch is the series' coefficient and the index where it differs gets a
term of its own (a *correction*), or, where the generic formula has a pole there, the sum starts after it
and the indices before are written out.  Data that are finitely many eigenfunctions give a generic
coefficient 0: a finite formula.  Data in several variables are expanded term by term as products of
one-variable factors where they are, else integrated one variable after the other.

Every coefficient is compared with a numerical quadrature at a few indices before it is used
(:mod:`desyr_sympy.series.check`).
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy as sp

from desyr.plugin import OutOfTime, time_limit
from desyr_sympy.series import radial
from desyr_sympy.series.eigen import Family
from desyr_sympy.series.law import EXACT_SECONDS, Unintegrable, denominator_in, law_of
from desyr_sympy.series.layout import Declined
from desyr_sympy.series.names import NAMED

#: the furthest index a resonance may sit at before the answer is not a textbook one
MAX_EXCEPTION = 50

Key = tuple[int | None, ...]


@dataclass
class Expansion:
    """``f = sum over keys of parts[key] * prod X``: a key holds ``None`` where the family's index runs
    from ``starts[i]`` to infinity and an integer where it is fixed (a correction or a written-out term)."""

    families: tuple[Family, ...]
    starts: list[int]
    parts: dict[Key, sp.Expr] = field(default_factory=dict)

    def add(self, key: Key, value: sp.Expr) -> None:
        if value != 0:
            self.parts[key] = self.parts.get(key, sp.Integer(0)) + value

    def at(self, indices: Sequence[int]) -> sp.Expr:
        """The coefficient at one index tuple (every key that covers it)."""
        total = sp.Integer(0)
        for key, value in self.parts.items():
            subs = {}
            for k, fam, start, i in zip(key, self.families, self.starts, indices):
                if fam.index is None:
                    continue
                if (k is None and i < start) or (k is not None and k != i):
                    break
                if k is None:
                    subs[fam.index] = i
            else:
                total += value.subs(subs)
        return total


def expand(data: sp.Expr, families: Sequence[Family], siblings: Sequence[Family] = ()) -> Expansion:
    """The expansion of ``data`` (in the families' variables, other symbols kept) over their product;
    ``siblings``: every family of the same variables, whose eigenfunctions in the data project to 0 here."""
    families = tuple(families)
    out = Expansion(families, [f.lower for f in families])
    data = sp.expand(data) if data.has(sp.Piecewise) else data
    if data == 0:
        return out
    data = _eigenfunctions(out, data, siblings)
    if data == 0:
        return out
    single = _factors(data, families) if len(families) > 1 and not isinstance(data, sp.Add) else None
    if single is not None:          # a product of one-variable factors: the product of their coefficients
        _add_product(out, [coefficient(g, fam) for g, fam in zip(single, families)])
        return out
    try:
        whole = _integrate(data, families)
    except Unintegrable:
        if len(families) > 1:
            return _by_terms(out, data, families)
        _add_product(out, [_from_law(data, families[0])])
        return out
    if not whole.has(sp.Piecewise):
        generic = _closed(whole / _norms(families))
        if not any(k >= f.lower for f in families if f.index is not None for k in poles(generic, f.index)):
            out.add((None,) * len(families), generic)
            return out
    return _by_terms(out, data, families)


def _by_terms(out: Expansion, data: sp.Expr, families: tuple[Family, ...]) -> Expansion:
    """Each term of ``data`` a product of one-variable factors, expanded as the product of their coefficients."""
    for term in sp.Add.make_args(sp.expand(data)):
        factors = _factors(term, families)
        if factors is None:
            raise Declined("data resonant with the eigenfunctions, or out of SymPy's reach, in a term that is no "
                           "product of one-variable factors")
        _add_product(out, [coefficient(g, fam) for g, fam in zip(factors, families)])
    out.parts = {key: simple for key, value in out.parts.items() if (simple := _closed(value)) != 0}
    return out


def _eigenfunctions(out: Expansion, data: sp.Expr, siblings: Sequence[Family]) -> sp.Expr:
    """The data's terms that are eigenfunctions (``sin(2*x)/3``) put into ``out`` by orthogonality alone (or
    dropped, where a factor is another family's eigenfunction); the rest of the data, to integrate."""
    if not data.has(sp.sin, sp.cos) or any(f.named for f in out.families):
        return data
    rest = []
    for term in sp.Add.make_args(sp.expand(data)):
        factors = _factors(term, out.families)
        key = None if factors is None else _match(factors, out.families, siblings)
        if key is None:
            rest.append(term)
        elif not isinstance(key, str):
            shapes = [g.as_independent(f.variable, as_Add=False) for g, f in zip(factors or (), out.families)]
            out.add(tuple(key), sp.Mul(*[c for c, _ in shapes]))
    return sp.Add(*rest)


def _match(factors: Sequence[sp.Expr], families: Sequence[Family], siblings: Sequence[Family]
           ) -> list[int | None] | str | None:
    """The key of the eigenfunction the factors make up, "other" where one is another family's, else None."""
    key: list[int | None] = []
    for g, fam in zip(factors, families):
        _, shape = g.as_independent(fam.variable, as_Add=False)
        index = _index_of(shape, fam)
        if index is False:
            if any(_index_of(shape, other) is not False for other in siblings
                   if other.variable == fam.variable and other is not fam):
                return "other"
            return None
        key.append(index)
    return key


def _index_of(shape: sp.Expr, family: Family) -> int | None | bool:
    """The index at which ``family``'s eigenfunction is ``shape`` (None for a single mode), else False."""
    if family.index is None:
        return None if sp.expand(shape - family.function) == 0 else False
    if type(shape) is not type(family.function) or not isinstance(shape, (sp.sin, sp.cos)):
        return False
    solved = sp.solve(family.function.args[0] - shape.args[0], family.index)
    if len(solved) != 1 or not solved[0].is_Integer or int(solved[0]) < family.lower:
        return False
    k = int(solved[0])
    return k if sp.expand(family.function.subs(family.index, k) - shape) == 0 else False


@dataclass
class Coefficient:
    """One variable's coefficient: ``generic`` from ``start`` on, plus ``fixed[k]`` at index ``k``."""

    generic: sp.Expr
    start: int
    fixed: dict[int, sp.Expr]


def coefficient(g: sp.Expr, family: Family) -> Coefficient:
    """The 1-D expansion coefficient of ``g(x)`` (other symbols kept) on ``family``: by SymPy's integral, else
    by the coefficient-law path."""
    try:
        integral = _integrate(g, (family,))
    except Unintegrable:
        return _from_law(g, family)
    if family.index is None:
        return Coefficient(_closed(integral / family.norm), 0, {})
    if not integral.has(sp.Piecewise):
        generic = _closed(integral / family.norm)
        return _with_poles(g, family, generic, set())
    generic, special = split(integral, family.index)
    return _with_poles(g, family, _closed(generic / family.norm), special)


def _from_law(g: sp.Expr, family: Family) -> Coefficient:
    """The coefficient from the data's projections (:mod:`desyr_sympy.series.law`)."""
    law = law_of(g, family)
    return Coefficient(law.generic, law.start, dict(law.fixed))


def split(expr: sp.Expr, index: sp.Symbol) -> tuple[sp.Expr, set[int]]:
    """The generic branch of every ``Piecewise`` in ``expr`` whose conditions are (in)equalities of
    ``index`` with integers, and those integers."""
    special: set[int] = set()

    def generic(piece: sp.Piecewise) -> sp.Expr:
        rest = None
        for value, condition in piece.args:
            equalities = condition.atoms(sp.Eq, sp.Ne)
            if condition == sp.true:
                rest = value if rest is None else rest
                continue
            if not equalities or any(index not in e.free_symbols for e in equalities):
                raise Declined(f"a coefficient SymPy gives only case by case ({condition})")
            for e in equalities:
                for root in sp.solve(e.lhs - e.rhs, index):
                    if root.is_integer:
                        special.add(int(root))
            if isinstance(condition, sp.Ne) or all(isinstance(e, sp.Ne) for e in equalities):
                rest = value
        if rest is None:
            raise Declined("a piecewise coefficient without a generic branch")
        return rest

    out = expr.replace(lambda e: isinstance(e, sp.Piecewise), generic)
    if any(k > MAX_EXCEPTION for k in special):
        raise Declined(f"a resonance at an index past {MAX_EXCEPTION}")
    return out, special


def _with_poles(g: sp.Expr, family: Family, generic: sp.Expr, special: set[int]) -> Coefficient:
    """``generic`` with its own poles at integers added to ``special``; every special index gets its true
    value (a correction where the generic formula holds a number there, else the sum starts after it)."""
    index = family.index
    assert index is not None
    special |= {k for k in poles(generic, index) if k >= family.lower}
    start = family.lower
    for k in sorted(special):
        value = generic.subs(index, k)
        if value.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            start = max(start, k + 1)
    fixed: dict[int, sp.Expr] = {}
    for k in sorted(special | set(range(family.lower, start))):
        if k < family.lower:
            continue
        _, function, norm = family.at(k)
        true = _closed(_integrate_at(g, family, function) / norm)
        correction = true if k < start else _closed(true - generic.subs(index, k))
        if correction != 0:
            fixed[k] = correction
    return Coefficient(generic, start, fixed)


def poles(expr: sp.Expr, index: sp.Symbol) -> set[int]:
    """The integers where a denominator of ``expr`` (a polynomial in ``index``) vanishes."""
    found: set[int] = set()
    for factor in sp.Mul.make_args(sp.factor(sp.denom(sp.together(expr)))):
        base = factor.base if isinstance(factor, sp.Pow) else factor
        if index in base.free_symbols and base.is_polynomial(index):
            found |= {int(r) for r in sp.roots(sp.Poly(base, index)) if r.is_integer}
    return found


def _add_product(out: Expansion, pieces: list[Coefficient]) -> None:
    """Add the product of one-variable coefficients, key by key, to ``out`` (starts raised to the largest)."""
    for i, piece in enumerate(pieces):
        fam = out.families[i]
        if fam.index is None:
            continue
        if piece.start > out.starts[i]:
            raise_start(out, i, piece.start)
        while piece.start < out.starts[i]:          # this term's generic values below the common start
            k = piece.start
            piece.fixed[k] = piece.fixed.get(k, sp.Integer(0)) + piece.generic.subs(fam.index, k)
            piece.start += 1
    options = [[(None, p.generic)] + list(p.fixed.items()) if out.families[i].index is not None
               else [(None, p.generic)] for i, p in enumerate(pieces)]
    for combination in itertools.product(*options):
        key = tuple(k for k, _ in combination)
        out.add(key, _closed(sp.Mul(*[v for _, v in combination])))


def raise_start(out: Expansion, i: int, start: int) -> None:
    """Move the generic parts' values at indices below ``start`` of family ``i`` into fixed keys."""
    fam = out.families[i]
    assert fam.index is not None
    for key, value in list(out.parts.items()):
        if key[i] is None:
            for k in range(out.starts[i], start):
                out.add(key[:i] + (k,) + key[i + 1:], value.subs(fam.index, k))
    out.starts[i] = start


def _factors(term: sp.Expr, families: Sequence[Family]) -> list[sp.Expr] | None:
    """``term`` as one factor per family's variable (constants on the first), or None."""
    groups: list[list[sp.Expr]] = [[] for _ in families]
    variables = [f.variable for f in families]
    for factor in sp.Mul.make_args(term):
        held = [i for i, v in enumerate(variables) if v in factor.free_symbols]
        if len(held) > 1:
            return None
        groups[held[0] if held else 0].append(factor)
    return [sp.Mul(*g) for g in groups]


def _integrate(g: sp.Expr, families: Sequence[Family]) -> sp.Expr:
    """``integral(g * prod X*w)`` over the families' intervals, one variable after the other."""
    out = g
    for fam in families:
        out = _integrate_at(out, fam, fam.function)
    return out


def _integrate_at(g: sp.Expr, family: Family, function: sp.Expr) -> sp.Expr:
    if family.bessel is not None:
        order, root, h = family.bessel
        if function != family.function:
            raise Declined("a Fourier-Bessel coefficient at a fixed index")
        value = radial.integral(g * family.weight, family.variable, order, root / family.hi, family.hi)
        return radial.at_root(value, root, order, h)
    if denominator_in(g, family.variable):
        raise Unintegrable(f"data that divide by an expression in {family.variable}")
    # a named root is a positive constant to the integral: a plain symbol integrates faster
    roots = {c: sp.Dummy("root", positive=True) for c in function.atoms(*NAMED)}
    integrand = sp.expand((g * function * family.weight).xreplace(roots))
    try:
        with time_limit(EXACT_SECONDS):
            out = sp.integrate(integrand, (family.variable, family.lo, family.hi))
    except OutOfTime:
        raise Unintegrable(f"a coefficient integral past {EXACT_SECONDS:g} s") from None
    if out.has(sp.Integral):
        raise Unintegrable(f"a coefficient integral SymPy cannot do in closed form (in {family.variable})")
    return out.xreplace({d: c for c, d in roots.items()})


def _norms(families: Sequence[Family]) -> sp.Expr:
    return sp.Mul(*[f.norm for f in families])


def _closed(expr: sp.Expr) -> sp.Expr:
    """A coefficient in a short closed form: the shortest of the expression, its cancelled form and its
    simplification (a product of one-variable coefficients stays a product)."""
    if sp.expand(expr) == 0:
        return sp.Integer(0)
    roots = {c: sp.Dummy("root", positive=True) for c in expr.atoms(*NAMED)}
    if roots:       # trigonometric functions of a named root: simplify would take seconds for little
        tidy = sp.factor_terms(sp.cancel(sp.together(expr.xreplace(roots))))
        return min([expr, tidy.xreplace({d: c for c, d in roots.items()})], key=sp.count_ops)
    tidy = sp.factor_terms(sp.cancel(sp.together(expr)))
    options = [expr, tidy]
    try:
        options.append(sp.simplify(tidy))
    except (TypeError, ValueError, RecursionError):
        pass
    return min(options, key=sp.count_ops)
