"""Identities in an integer index and the variables: SymPy's reduction to 0, witnessed numerically.

An identity of the series proof holds for every integer index in its range and every point of a
set.  SymPy decides it (``expand``/``simplify`` within the proof's time bounds, with the index an
integer symbol, so ``sin(n*pi)`` is 0 and ``cos(n*pi)`` is ``(-1)**n``), and it must also vanish at
30 and 60 digits (:mod:`desyr.verify.witness`) at integer values of the index (its first two and
three drawn from a hash of the config and the series, :mod:`desyr.verify.unforeseen`, so no term can
be aimed at them) and at drawn points of the variables' ranges.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import sympy as sp

from desyr.symbolic.special import MPMATH
from desyr.symbolic.time_limit import OutOfTime, time_limit
from desyr.verify import witness
from desyr.verify.series_roots import bessel_at_a_zero, named, never_zero_at_roots, numeric, parts_to_vanish
from desyr.verify.unforeseen import fractions

#: the largest index above the first one at which an identity is witnessed (quadratures stay cheap there)
SPREAD = 40
#: drawn index values per identity (besides the first two)
DRAWS = 3

Range = tuple[sp.Expr, sp.Expr]


def index_values(key: bytes, label: str, lower: int, spread: int = SPREAD) -> list[int]:
    """The first two values of an index from ``lower``, then :data:`DRAWS` drawn in ``[lower, lower + spread]``."""
    drawn = [lower + int(f * (spread + 1)) for f in fractions(key, f"index {label}", DRAWS)]
    return [lower, lower + 1, *drawn]


def points(key: bytes, label: str, ranges: Mapping[sp.Symbol, Range],
           indices: Mapping[sp.Symbol, int], count: int = 2 + DRAWS, spread: int = SPREAD) -> list[witness.Point]:
    """``count`` points: each variable of ``ranges`` at a drawn fraction of its range, each index at its
    first two values and then at drawn ones (:func:`index_values`)."""
    out: list[witness.Point] = []
    draws = {s: fractions(key, f"{label} {s}", count) for s in ranges}
    values = {s: index_values(key, f"{label} {s}", lower, spread) for s, lower in indices.items()}
    for k in range(count):
        point: dict[sp.Symbol, float] = {}
        for s, (lo, hi) in ranges.items():
            point[s] = float(lo + (hi - lo) * draws[s][k])
        for s, v in values.items():
            point[s] = float(v[k % len(v)])
        out.append(point)
    return out


def zero_for_all(expr: sp.Expr, ranges: Mapping[sp.Symbol, Range], indices: Mapping[sp.Symbol, int],
                 key: bytes, label: str) -> bool:
    """Whether ``expr`` is 0 for every integer index from its lower limit and every point of ``ranges``:
    SymPy's reduction (bounded in time; at the roots of a named eigenvalue function's equation,
    :mod:`desyr.verify.series_roots`) and the witnesses at drawn points, the indices put in exactly."""
    from desyr.verify.proof import SECONDS_PER_RESIDUAL, reduces_to_zero
    if expr == 0:
        return True
    if expr.free_symbols - set(ranges) - set(indices):
        return False
    parts = parts_to_vanish(expr)
    if parts is None:
        return False
    try:
        with time_limit(2 * SECONDS_PER_RESIDUAL):
            if not all(reduces_to_zero(p) for p in parts):
                return False
    except OutOfTime:
        return False
    return witnessed(expr, points(key, label, ranges, indices), indices)


def witnessed(expr: sp.Expr, at: Sequence[witness.Point], indices: Mapping[sp.Symbol, int]) -> bool:
    """The witnesses of ``expr`` at ``at``, each index put in as the exact integer it is there."""
    if not named(expr):
        return witness.vanishes(expr, at)
    judged = False
    for point in at:
        whole = {s: sp.Integer(int(point[s])) for s in indices if s in point}
        value = numeric(expr.xreplace(whole))
        free = sorted(value.free_symbols, key=sp.default_sort_key)
        if any(s not in point for s in free):
            return False
        g = sp.lambdify(free, value, modules=[MPMATH, "mpmath"])
        args = [point[s] for s in free]
        low, high = witness.magnitude(g, args, witness.LOW), witness.magnitude(g, args, witness.HIGH)
        if low is None or high is None:
            continue                      # a removable singularity of the formula at this point
        if not high <= max(witness.SHRINK * low, witness.FLOOR):
            return False
        judged = True
    return judged


class Undecided(Exception):
    """Where an expression vanishes in an index is not decided (one line)."""


def _root_zeros(inner: sp.Expr, index: sp.Symbol) -> set[int] | None:
    """Where ``sinh(sqrt(P(n)))`` vanishes, ``P`` a polynomial in the index alone of even degree and positive
    leading coefficient (a Helmholtz series' ``sqrt(pi**2*n**2 - 1/25)``): at the integer roots of ``P``, and
    where ``P < 0`` (finitely many integers) at those where ``sin(sqrt(-P))`` does; None where ``inner`` is
    not such a root (raises :class:`Undecided` where a value cannot be decided)."""
    if not (isinstance(inner, sp.Pow) and inner.exp == sp.Rational(1, 2)):
        return None
    P = inner.base
    if P.free_symbols != {index} or not P.is_polynomial(index):
        return None
    poly = sp.Poly(P, index)
    if poly.degree() % 2 or not poly.LC().is_positive:
        return None
    reals = [float(r) for r in poly.nroots(n=30) if abs(sp.im(r)) < 1e-12]
    if not reals:
        return set()
    low, high = math.floor(min(reals)) - 1, math.ceil(max(reals)) + 1
    if high - low > 10_000:
        raise Undecided(f"where sinh({sp.sstr(inner)[:60]}) vanishes in {index} is not decided")
    out: set[int] = set()
    for k in range(low, high + 1):
        value = P.xreplace({index: sp.Integer(k)})
        zero = value.is_zero if not value.is_negative else sp.sin(sp.sqrt(-value)).is_zero
        if zero is None:
            raise Undecided(f"where sinh({sp.sstr(inner)[:60]}) vanishes in {index} is not decided")
        if zero:
            out.add(k)
    return out


def integer_zeros(expr: sp.Expr, index: sp.Symbol) -> set[int]:
    """The integers where the product ``expr`` vanishes as a function of ``index`` (the other symbols free):
    a factor that is a polynomial in the index alone vanishes at its integer roots, ``sinh(w)`` where
    ``w`` does, an exponential never; anything else raises :class:`Undecided`."""
    out: set[int] = set()
    for factor in sp.Mul.make_args(expr):
        base = factor.base if isinstance(factor, sp.Pow) and factor.exp.is_number else factor
        if not base.has(index) or base.is_positive or base.is_negative:
            continue
        if isinstance(base, sp.exp) or (isinstance(base, sp.Pow) and base.base.is_number and base.base.is_positive):
            continue
        if isinstance(base, sp.cosh) and base.args[0].is_real:
            continue
        if never_zero_at_roots(base, index) or bessel_at_a_zero(base):
            continue
        inner = base.args[0] if isinstance(base, sp.sinh) else base
        root = _root_zeros(inner, index) if isinstance(base, sp.sinh) else None
        if root is not None:
            out |= root
            continue
        if not inner.is_polynomial(index) or inner.free_symbols - {index}:
            raise Undecided(f"where {sp.sstr(base)[:60]} vanishes in {index} is not decided")
        out |= {int(r) for r in sp.solve(inner, index) if r.is_Integer}
    return out
