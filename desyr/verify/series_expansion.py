"""The coefficients are the data's expansion coefficients: identities in the index, from exact integrals.

On a target (the equation, or a constraint's set) where the eigen-directions of a group of pieces
are free, each piece's image ``B[term]`` is ``r(k, rest) * X_1 ... X_d`` (the eigenfunctions' own
equation eliminates their second derivatives: :func:`image_coefficient`).  The series meets the
target exactly when, for every canonical index ``J`` of every branch, the summed ``r`` times the
eigenfunctions' squared norm equals the integral of the data left by the finite part,
``rho = g - B[P]``, against the eigenfunction and the weight (and, where no piece covers ``J``, that
integral is 0).  SymPy integrates with ``J`` a symbolic integer, so ``sin(J*pi)`` is 0; its answer
is a ``Piecewise`` where an index is special (``J = 0`` for a cosine, ``J = 3`` against
``sin(3*pi*x)``), and the denominators of its generic branch vanish at others: every such index is
checked on its own, integrated again with that value put in first.  Each integral SymPy gives is
compared with an independent quadrature (:mod:`desyr.verify.quadrature`) at a few indices, the first
ones and some drawn from a hash of the config and the series (:mod:`desyr.verify.unforeseen`).
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from desyr.model.problem import Problem
from desyr.model.shapes import Box
from desyr.symbolic.time_limit import OutOfTime, time_limit
from desyr.verify.quadrature import matches
from desyr.verify.series_coverage import cells, everything, uncovered
from desyr.verify.series_identity import Range, Undecided, index_values, integer_zeros, zero_for_all
from desyr.verify.series_modes import Piece, Progression
from desyr.verify.series_roots import numeric
from desyr.verify.series_sturm import Branch, Family, J
from desyr.verify.series_targets import Target
from desyr.verify.unforeseen import fractions

#: the bound on one SymPy integral (a longer one leaves the series unproved)
SECONDS_PER_INTEGRAL = 10.0
#: indices at which the quadrature checks an integral (fewer in two or more directions: it is costlier)
QUADRATURE_SPREAD = {1: 30, 2: 6, 3: 3}


class Unproved(Exception):
    """A part of the series proof that did not go through (one line)."""


@dataclass(frozen=True)
class Expansion:
    """The pieces over one set of eigen-directions (a single, double or triple series)."""

    families: tuple[Family, ...]
    pieces: tuple[Piece, ...]

    @property
    def variables(self) -> tuple[sp.Symbol, ...]:
        return tuple(f.variable for f in self.families)


def image_coefficient(problem: Problem, field: str, target: Target, piece: Piece, key: bytes,
                      ranges: Mapping[sp.Symbol, Range]) -> sp.Expr:
    """``r`` with ``B[term] = r * prod(X_i)`` on the target's set, free of the eigen-directions."""
    functions = [sp.Function(f"Phi{i}")(m.variable) for i, m in enumerate(piece.modes)]
    values = [sp.Dummy(f"phi{i}") for i in range(len(functions))]
    slopes = [sp.Dummy(f"dphi{i}") for i in range(len(functions))]
    generic = piece.coefficient * sp.Mul(*functions)
    image = target.image(problem, field, generic)
    swap: dict[sp.Expr, sp.Expr] = {}
    for f, m, value, slope in zip(functions, piece.modes, values, slopes):
        for d in image.atoms(sp.Derivative):
            if d.expr == f:
                a, b = _reduced(d.derivative_count, m.eigenvalue, m.family.beta)
                swap[d] = a * value + b * slope
        swap[f] = value
    reduced = sp.expand(image.xreplace(swap))
    if reduced.has(*functions):
        raise Unproved(f"{target.name}: the terms' image is not a multiple of their eigenfunctions")
    poly = sp.Poly(reduced, *values, *slopes)
    whole = tuple([1] * len(values) + [0] * len(slopes))
    r = sp.Integer(0)
    lowers = {i.symbol: i.lower for i in piece.indices}
    for monomial, c in poly.terms():
        if monomial == whole:
            r = c
        elif not zero_for_all(c, ranges, lowers, key, f"image {target.name}"):
            raise Unproved(f"{target.name}: the terms' image is not a multiple of their eigenfunctions")
    if r.has(*piece.variables):
        raise Unproved(f"{target.name}: the terms' image divided by their eigenfunctions depends on "
                       f"{', '.join(map(str, piece.variables))}")
    return r


def _reduced(order: int, mu: sp.Expr, beta: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """``(a, b)`` with ``X^(order) = a*X + b*X'`` for ``X'' = -mu*X - beta*X'``."""
    a, b = sp.Integer(1), sp.Integer(0)
    for _ in range(order):
        a, b = -b * mu, a - b * beta
    return sp.expand(a), sp.expand(b)


@dataclass(frozen=True)
class Check:
    """What one target asks of one expansion: the data left, ``rho``, and each piece's ``r``."""

    target: Target
    expansion: Expansion
    rho: sp.Expr
    rs: tuple[sp.Expr, ...]                    # per piece
    rest: Mapping[sp.Symbol, Range]            # the set's free variables besides the eigen-directions


def check_coefficients(check: Check, key: bytes, numbers: Mapping[float, sp.Expr]) -> int:
    """Every canonical index of every branch combination: the identity, or raise :class:`Unproved`.
    Returns how many index classes were checked.  (Data with a denominator in the variable go through it
    first, :mod:`desyr.verify.series_multiplier`: SymPy does not integrate them against the eigenfunctions.)"""
    count = 0
    families = check.expansion.families
    for combo in itertools.product(*[f.branches for f in families]):
        mine = [(p, r) for p, r in zip(check.expansion.pieces, check.rs)
                if tuple(m.branch for m in p.modes) == combo]
        for classes, claim in index_classes(combo, mine):
            _identity(check, combo, classes, claim, key, numbers)
            count += 1
    return count


Claim = tuple[sp.Expr, tuple[sp.Symbol, ...], tuple[int, ...]]   # r*scales in the class's k's, the k's, lowers


def index_classes(combo: Sequence[object], mine: Sequence[tuple[Piece, sp.Expr]]) -> list[tuple[list[Progression], Claim | None]]:
    """The index classes of a branch combination: covered ones with what the pieces claim, the rest with
    nothing (the data's coefficient must be 0 there)."""
    branches = list(combo)
    if not mine:
        return [([everything(b) for b in branches], None)]   # type: ignore[arg-type]
    groups: dict[tuple[Progression, ...], list[tuple[Piece, sp.Expr]]] = {}
    for piece, r in mine:
        from desyr.verify.series_modes import progression
        progs = tuple(progression(m.index, piece.indices)[0] for m in piece.modes)
        groups.setdefault(progs, []).append((piece, r))
    if len(branches) > 1 and len(groups) > 1:
        boxes = list(groups)
        claims = [_claim(groups[box]) for box in boxes]
        return [(cell, None if owner is None else _narrowed(claims[owner], boxes[owner], cell))
                for cell, owner in cells(branches, boxes)]    # type: ignore[arg-type]
    out: list[tuple[list[Progression], Claim | None]] = []
    for progs, members in groups.items():
        out.append((list(progs), _claim(members)))
    if len(branches) == 1:
        for gap in uncovered(branches[0], [p[0] for p in groups]):   # type: ignore[arg-type]
            out.append(([gap], None))
        return out
    progs = next(iter(groups))
    for i, b in enumerate(branches):
        for gap in uncovered(b, [progs[i]]):                          # type: ignore[arg-type]
            out.append(([gap if j == i else everything(other) for j, other in enumerate(branches)], None))  # type: ignore[arg-type]
    return out


def _claim(members: Sequence[tuple[Piece, sp.Expr]]) -> Claim:
    """The pieces' summed coefficient relative to the canonical eigenfunctions, in the first piece's indices
    (the others' renamed onto them, index by direction)."""
    first = members[0][0]
    ks = tuple(_index_of(m.index, first) for m in first.modes)
    total = sp.Integer(0)
    for piece, r in members:
        rename = {}
        for m, k in zip(piece.modes, ks):
            own = _index_of(m.index, piece)
            if own is not None and k is not None:
                rename[own] = k
        scale = sp.Mul(*[m.scale for m in piece.modes])
        total += (r * scale).xreplace(rename)
    lowers = tuple(next(i.lower for i in first.indices if i.symbol == k) if k is not None else 0 for k in ks)
    return total, tuple(k if k is not None else sp.Dummy("unused") for k in ks), lowers


def _narrowed(claim: Claim, box: Sequence[Progression], cell: Sequence[Progression]) -> Claim:
    """``claim`` (over the box's progressions) on one cell inside it: a single index put in, a residue class
    ``M*k + r`` of the progression ``p*k' + q`` written in its own ``k`` (``k' = (M*k + r - q)/p``)."""
    expr, ks, lowers = claim
    swap: dict[sp.Symbol, sp.Expr] = {}
    for k, p, c in zip(ks, box, cell):
        if p.step == 0:
            continue
        swap[k] = sp.Integer((c.offset - p.offset) // p.step) if c.step == 0 else (c.step * k + c.offset - p.offset) / p.step
    return expr.xreplace(swap), ks, lowers


def _index_of(index: sp.Expr, piece: Piece) -> sp.Symbol | None:
    found = [i.symbol for i in piece.indices if index.has(i.symbol)]
    return found[0] if found else None


def _identity(check: Check, combo: Sequence[object], classes: list[Progression], claim: Claim | None,
              key: bytes, numbers: Mapping[float, sp.Expr]) -> None:
    """``claim * norms = <rho, eigenfunctions>`` on one index class (0 where ``claim`` is None), for every
    index in it: generically, at every special index on its own, and by quadrature at a few."""
    ks: list[sp.Expr] = []
    js: list[sp.Expr] = []
    symbols: list[sp.Symbol | None] = []
    for i, p in enumerate(classes):
        if p.step == 0:
            ks.append(sp.Integer(0))
            js.append(sp.Integer(p.offset))
            symbols.append(None)
            continue
        k = claim[1][i] if claim is not None else sp.Dummy(f"k{i}", integer=True, nonnegative=p.start >= 0)
        ks.append(k)
        js.append(sp.Dummy(f"J{i}", integer=True, nonnegative=True))
        symbols.append(k)
    inner, norms = _integrals(check, combo, js)
    where = f"{check.target.name}, {_describe(combo, classes)}"
    for i, p in enumerate(classes):
        if p.step == 0:
            continue
        for value in sorted(special_indices([inner, *norms], js[i])):
            if p.contains(value):
                fixed = list(classes)
                fixed[i] = Progression(0, value, 0)
                at = None if claim is None else (claim[0].xreplace({ks[i]: (value - p.offset) // p.step}),
                                                 claim[1], claim[2])
                _identity(check, combo, fixed, at, key, numbers)
    generic = {j: p.at(k) for j, p, k in zip(js, classes, ks) if isinstance(j, sp.Dummy)}
    claimed = sp.Integer(0) if claim is None else claim[0] * sp.Mul(*[generic_value(n) for n in norms])
    difference = claimed - generic_value(inner)
    difference = difference.xreplace(generic)
    lowers = {k: p.start for k, p in zip(ks, classes) if isinstance(k, sp.Symbol)}
    if not zero_for_all(difference, check.rest, lowers, key, f"coefficients {where}"):
        raise Unproved(f"the coefficients are not the data's expansion coefficients ({where})")
    quadrature_check(check, combo, classes, ks, claim, key, numbers, where)


def _integrals(check: Check, combo: Sequence[object], js: Sequence[sp.Expr]) -> tuple[sp.Expr, list[sp.Expr]]:
    families = check.expansion.families
    integrand = check.rho
    norms = []
    try:
        with time_limit(SECONDS_PER_INTEGRAL * (1 + len(families))):
            for f, b, j in zip(families, combo, js):
                shape = b.at(j)                                   # type: ignore[attr-defined]
                integrand = integrand * shape * f.weight
                norms.append(sp.integrate(shape**2 * f.weight, (f.variable, f.lo, f.hi)))
            inner = sp.integrate(integrand, *[(f.variable, f.lo, f.hi) for f in families])
    except OutOfTime:
        raise Unproved(f"{check.target.name}: an expansion integral was not computed in time") from None
    if inner.has(sp.Integral) or any(n.has(sp.Integral) for n in norms):
        raise Unproved(f"{check.target.name}: SymPy did not compute an expansion integral")
    return inner, norms


def bounded_integral(integrand: sp.Expr, f: Family, what: str = "an eigenfunction's norm") -> sp.Expr:
    """SymPy's integral over the family's interval within :data:`SECONDS_PER_INTEGRAL`, else
    :class:`Unproved` naming ``what``."""
    try:
        with time_limit(SECONDS_PER_INTEGRAL):
            value = sp.integrate(integrand, (f.variable, f.lo, f.hi))
    except OutOfTime:
        raise Unproved(f"{what} was not computed in time") from None
    if value.has(sp.Integral):
        raise Unproved(f"SymPy did not compute {what}")
    return value


def _relations(expr: sp.Expr) -> list[sp.Basic]:
    return [r for pw in expr.atoms(sp.Piecewise) for _, c in pw.args for r in c.atoms(sp.Rel)]


def special_indices(exprs: Sequence[sp.Expr], j: sp.Expr) -> set[int]:
    """The integers where a Piecewise of ``exprs`` changes branch in ``j``, or a denominator of its
    generic branch vanishes."""
    out: set[int] = set()
    for e in exprs:
        for rel in _relations(e):
            if not rel.has(j):
                continue
            if not isinstance(rel, (sp.Eq, sp.Ne)):
                raise Unproved(f"an expansion integral holds the condition {rel}, not an index equation")
            out |= _integer_roots(rel.lhs - rel.rhs, j)
        try:
            out |= integer_zeros(sp.denom(sp.together(generic_value(e))), j)
        except Undecided as exc:
            raise Unproved(f"an expansion integral's special indices are not decided: {exc}") from None
    return out


def _integer_roots(expr: sp.Expr, j: sp.Expr) -> set[int]:
    if not expr.is_polynomial(j) or expr.free_symbols - {j}:
        raise Unproved(f"an expansion integral is special where {expr} = 0, which is not an index equation")
    return {int(r) for r in sp.Poly(expr, j).all_roots() if r.is_Integer}


def generic_value(expr: sp.Expr) -> sp.Expr:
    """``expr`` for an index that meets no ``Eq`` of its Piecewise conditions."""
    expr = sp.piecewise_fold(expr)
    def pick(pw: sp.Piecewise) -> sp.Expr:
        for value, condition in pw.args:
            truth = condition.xreplace({r: isinstance(r, sp.Ne) for r in condition.atoms(sp.Eq, sp.Ne)})
            if truth == sp.true:
                return value
        raise Unproved("an expansion integral has no branch for a generic index")
    return expr.replace(lambda e: isinstance(e, sp.Piecewise), pick)


#: the most oscillation, frequency times length, of an eigenfunction the quadrature is asked to resolve
OSCILLATION = 30 * sp.pi


def _spread(spread: int, f: Family, branch: Branch, p: Progression) -> int:
    """How far above its first index a class is checked by quadrature: at most ``spread``, and no further than
    the eigenfunctions' oscillation over the interval stays within :data:`OSCILLATION` (a ring of length
    ``2*pi`` oscillates twice as fast per index as a rod of length 1)."""
    first = sp.N(abs(branch.frequency.xreplace({J: max(branch.first, 1)})) * (f.hi - f.lo), 15)
    if not first.is_number or first <= 0:
        return spread
    return int(max(2, min(spread, sp.floor(sp.N(OSCILLATION, 15) / first / max(p.step, 1)))))


def _pick(key: bytes, label: str, start: int, spread: int, n: int) -> int:
    values = index_values(key, label, start, spread)
    return values[n % len(values)]


def _describe(combo: Sequence[object], classes: Sequence[Progression]) -> str:
    parts = []
    for b, p in zip(combo, classes):
        label = getattr(b, "label", "?")
        parts.append(f"{label} j = {p.offset}" if p.step == 0
                     else f"{label} j = {p.step}*k + {p.offset}, k >= {p.start}")
    return "; ".join(parts)


def quadrature_check(check: Check, combo: Sequence[object], classes: Sequence[Progression], ks: Sequence[sp.Expr],
                claim: Claim | None, key: bytes, numbers: Mapping[float, sp.Expr], where: str) -> None:
    """An independent quadrature of the integrals at a few indices of the class (each at a drawn point of
    the set's other variables): the data's integral against the eigenfunction must be what is claimed."""
    families = check.expansion.families
    d = len(families)
    spread = QUADRATURE_SPREAD.get(d, 2)
    count = {1: 4, 2: 2}.get(d, 1)
    box = Box([float(f.lo) for f in families], [float(f.hi) for f in families])
    xs = [f.variable for f in families]
    for n in range(count):
        values = [sp.Integer(p.offset) if p.step == 0
                  else sp.Integer(p.at(_pick(key, f"{where} {i}", p.start, _spread(spread, f, b, p), n)))   # type: ignore[arg-type]
                  for i, (p, f, b) in enumerate(zip(classes, families, combo))]
        rest = {s: lo + (hi - lo) * fractions(key, f"{where} rest {s}", count)[n]
                for s, (lo, hi) in check.rest.items()}
        exact = [b.at(v) for b, v in zip(combo, values)]                         # type: ignore[attr-defined]
        shapes = [numeric(s) for s in exact]
        claimed = sp.Integer(0)
        if claim is not None:
            at = {k: (v - p.offset) // p.step for k, v, p in zip(ks, values, classes) if p.step}
            claimed = numeric(claim[0].xreplace(at).xreplace(rest))
            for f, s, e in zip(families, shapes, exact):
                norm = numeric(bounded_integral(e**2 * f.weight, f))
                if not matches(Box([float(f.lo)], [float(f.hi)]), s**2 * f.weight, [f.variable], numbers, norm):
                    raise Unproved(f"an eigenfunction's norm is not confirmed by a quadrature ({where})")
                claimed *= norm
        integrand = (numeric(check.rho) * sp.Mul(*shapes) * sp.Mul(*[f.weight for f in families])).xreplace(rest)
        if not matches(box, integrand, xs, numbers, claimed):
            raise Unproved(f"the data's expansion coefficient is not confirmed by a quadrature ({where})")
