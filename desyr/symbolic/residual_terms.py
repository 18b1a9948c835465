"""A residual split into its **data** (the part that holds no field and no unknown: a forcing, a boundary
value) and its **terms** ``coefficient * factor``, one per distinct factor in the fields' jets and the
unknowns, with the data the terms may cancel identically (``docs/verify.md``, "The tolerance's scale").

The split is symbolic, on the residual as written; :mod:`desyr.symbolic.scales` measures its parts at
points. Apart from the measuring, since the split is the one place where a residual's algebra (products
of sums distributed, terms with the same factor added, identities found) decides what counts as data."""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

#: the most summands one product or power of sums is distributed into before it is kept whole
DISTRIBUTE = 64
#: the constants every dependent symbol is set to where a term may be an identity (:attr:`Terms.shifted`):
#: a term with the same value at each where it is finite (two at least) does not depend on the fields
FIELD_VALUES = (sp.Integer(0), sp.Integer(2), sp.Rational(-1, 2), sp.Rational(5, 7), sp.Integer(3), sp.Rational(-7, 3))


@dataclass(frozen=True)
class Terms:
    """A residual split into its data (free of the dependent symbols) and its terms ``coefficient * factor``,
    one per distinct ``factor`` in the dependent symbols (the fields' jets, the unknowns)."""

    data: sp.Expr
    coefficients: tuple[sp.Expr, ...]
    factors: tuple[sp.Expr, ...]
    #: the data plus the terms' values where every dependent symbol is 0 (where finite), and the data plus
    #: the terms that are identities (the same at every constant of :data:`FIELD_VALUES` where finite):
    #: data that cancel terms identically (``10**6*cos(u)**2 + 10**6*sin(u)**2 - 10**6``, or
    #: ``10**12*log(u**2)/(2*log(u))``, 0/0 at 0) are not the residual's size, and the smallest of them and
    #: the data as written is taken (:func:`desyr.symbolic.scales.measure_block`)
    shifted: tuple[sp.Expr, ...] = ()


def split_terms(expr: sp.Expr, dependent: set[sp.Symbol]) -> Terms:
    """``expr`` as data plus terms, its products of sums distributed (within :data:`DISTRIBUTE`) so that
    ``(x + 1)*(u_xx + sin(x))`` is ``(x + 1)*u_xx`` and the data ``(x + 1)*sin(x)``; terms with the same
    factor are one term, their coefficients added (``1e10*u*cos(x)**2 + 1e10*u*sin(x)**2 - 1e10*u`` is one
    term whose coefficient is 0 up to round-off, not three large ones)."""
    groups: dict[sp.Expr, sp.Expr] = {}
    order: list[sp.Expr] = []
    for term in _summands(expr):
        coefficient, factor = term.as_independent(*dependent, as_Add=False) if dependent else (term, sp.Integer(1))
        if factor not in groups:
            order.append(factor)
            groups[factor] = sp.Integer(0)
        groups[factor] += coefficient
    data = groups.pop(sp.Integer(1), sp.Integer(0))
    kept = [f for f in order if f != 1 and groups[f] != 0]
    coefficients = tuple(groups[f] for f in kept)
    return Terms(data, coefficients, tuple(kept), _shifted(data, coefficients, tuple(kept), dependent))


def _shifted(data: sp.Expr, coefficients: Sequence[sp.Expr], factors: Sequence[sp.Expr],
             dependent: set[sp.Symbol]) -> tuple[sp.Expr, ...]:
    """``data`` plus each term at every dependent symbol 0 (where all are finite), and ``data`` plus each
    term that is an identity (:func:`_identity_value`): the first as before, the second for an identity
    written to be 0/0 at 0 (``log(u**2)/(2*log(u))``), each where it differs from ``data``."""
    if not factors:
        return ()
    out: list[sp.Expr] = []
    at_zero = _terms_at(coefficients, factors, {s: sp.Integer(0) for s in dependent}, dependent)
    if at_zero is not None and at_zero != 0:
        out.append(data + at_zero)
    values = [_identity_value(f, dependent) for f in factors]
    moved = sp.Add(*(c * v for c, v in zip(coefficients, values) if v is not None and v != 0))
    if moved != 0 and data + moved not in out:
        out.append(data + moved)
    return tuple(out)


def _terms_at(coefficients: Sequence[sp.Expr], factors: Sequence[sp.Expr], at: dict[sp.Symbol, sp.Expr],
              dependent: set[sp.Symbol]) -> sp.Expr | None:
    """The terms' sum with the dependent symbols at ``at`` (None where a term is not finite there)."""
    values = [_value_at(f, at, dependent) for f in factors]
    if any(v is None for v in values):
        return None
    return sp.Add(*(c * v for c, v in zip(coefficients, values) if v is not None and v != 0))


def _value_at(factor: sp.Expr, at: dict[sp.Symbol, sp.Expr], dependent: set[sp.Symbol]) -> sp.Expr | None:
    try:
        value = factor.xreplace(at)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I) or value.free_symbols & dependent or value.is_real is False:
        return None
    return value


def _identity_value(factor: sp.Expr, dependent: set[sp.Symbol]) -> sp.Expr | None:
    """The value of a factor that does not depend on the fields (the same at every constant of
    :data:`FIELD_VALUES` where it is finite, and finite at two of them at least), or None."""
    finite = [v for c in FIELD_VALUES if (v := _value_at(factor, {s: c for s in dependent}, dependent)) is not None]
    if len(finite) < 2:
        return None
    if all(v.is_number for v in finite):
        try:
            numbers = [complex(sp.N(v, 30)) for v in finite]
        except (TypeError, ValueError):
            return None
        first = numbers[0]
        same = all(abs(z - first) <= 1e-14 * max(abs(first), 1e-300) for z in numbers)
        return finite[0] if same and math.isfinite(abs(first)) and first.imag == 0 else None
    return finite[0] if all(v == finite[0] for v in finite) else None


def _summands(expr: sp.Expr) -> list[sp.Expr]:
    if expr.is_Add:
        return [t for a in expr.args for t in _summands(a)]
    if expr.is_Mul:
        parts = [_summands(f) for f in expr.args]
        if math.prod(len(p) for p in parts) > DISTRIBUTE:
            return [expr]
        return [sp.Mul(*combo) for combo in itertools.product(*parts)]
    if expr.is_Pow and expr.base.is_Add and expr.exp.is_Integer and 2 <= int(expr.exp) <= 4:
        base = _summands(expr.base)
        if len(base) ** int(expr.exp) > DISTRIBUTE:
            return [expr]
        return [sp.Mul(*combo) for combo in itertools.product(base, repeat=int(expr.exp))]
    return [expr]
