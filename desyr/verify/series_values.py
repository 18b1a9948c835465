"""A series' terms measured again in mpmath (``docs/verify.md``, "Points off the doubles, and a second sample").

The truncated sums a series is Verified on are computed in doubles, and doubles can round a term's coefficient
away: ``exp(46)*(exp(exp(-n)/10**17) - 1)`` is 0 to them at every index, and about ``950*exp(-n)`` (red team
44g).  :func:`~desyr.verify.precise.values_differ` reads only the part outside the sums, and writing the sums
out as one formula asks for the digits of its widest ratio of terms (``exp(-n**2*pi**2*t)`` on a long time
range: thousands).  So, each in doubles as the sums compute it and in mpmath at a precision sized by its own
values (:func:`terms_differ`):

- each sum's whole term at its first indices and at indices spread to its largest truncation, on a few points
  of every set, eigenvalues computed once per index (:func:`_sum_differs`);
- the factor of the term that depends on the indices alone, at every index the cross-check keeps, weighted by
  the largest value the rest of the term takes (:func:`_coefficients_differ`; red teams 44h, 44i);
- the factors of each part of the term that depend on the variables alone, at every point
  (:func:`_factors_differ`; a band inside a term, 44h).

Where the differences exceed the tolerance of the field's size, doubles cannot judge the series.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from desyr.model.problem import Problem
from desyr.symbolic.eigenvalues import EigenvalueFunction
from desyr.symbolic.generic_points import MOST_DIGITS, measured_digits, working_digits
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.scales import values_at
from desyr.symbolic.series import outer_sums, stable_term
from desyr.verify.precise import FIRST, spread, values_differ
from desyr.verify.series_verdict import CAP

#: the points of each set a series' terms are measured at
POINTS = 4
#: each sum's first indices measured, by how many indices it has (a double sum: this many per index), then
#: indices spread geometrically up to the most terms the cross-check keeps (``series_verdict.CAP``)
FIRST_INDICES = {1: 32, 2: 8, 3: 4}
#: the most digits a term's values need for what doubles can compute: twice their range of magnitudes
DOUBLES_RANGE = 2 * (308 + 16)
#: the magnitudes within which a coefficient and the rest of its term are compared as a product in doubles
NORMAL_RANGE = 1e290
#: the most operations of a term written out part by part for its factors in the variables alone
MOST_OPS = 400
#: the functions that grow or decay with their argument, which the sums evaluate in a stable form
GROWING = (sp.exp, sp.sinh, sp.cosh, sp.besseli, sp.besselk, sp.factorial, sp.gamma)
#: the indices of a coefficient measured at one precision (each chunk at the digits its own values need)
CHUNK = 200


def terms_differ(problem: Problem, exprs: Mapping[str, sp.Expr], sets: Sequence[np.ndarray],
                 tolerance: float, kept: int | None = None) -> str | None:
    """Why doubles cannot be trusted with the terms of a field's sums at a few points of ``sets``, else None
    (``kept``: the most terms per index the cross-check kept of a sum; past them no term was evaluated in
    doubles, and a proved tail bound or the allowance speaks for them)."""
    X = np.vstack([s[spread(len(s), POINTS)] for s in sets if len(s)]) if any(len(s) for s in sets) else None
    if X is None:
        return None
    for name, expr in exprs.items():
        # the field's part outside its sums counts in its size: a sum beside it is judged against the field
        outside = _rms(evaluate(expr.replace(lambda e: isinstance(e, sp.Sum), lambda e: sp.Integer(0)),
                                problem.symbols, X))
        for total in outer_sums(expr):
            why = _sum_differs(name, total, problem.symbols, X, tolerance, outside, kept, _corners(problem)) or \
                _factors_differ(problem, name, total, sets, tolerance)
            if why:
                return why
    return None


def _factors_differ(problem: Problem, name: str, total: sp.Sum, sets: Sequence[np.ndarray],
                    tolerance: float) -> str | None:
    """The factors of a sum's term that depend on the variables alone, each part of the term written out
    (``(2**-n + exp(-n)*B(y))*y**n``: ``B(y)``), compared at every point as a formula's values are
    (:func:`~desyr.verify.precise.values_differ`): a term rounded away in a band of a set, a band the few
    points of the terms miss, lives in such a factor (red team 44h)."""
    term, limits = _flattened(total)
    indices = [limit[0] for limit in limits]
    parts = sp.Add.make_args(sp.expand(term)) if sp.count_ops(term) <= MOST_OPS else (term,)
    factors = {sp.Mul(*[f for f in sp.Mul.make_args(part) if not f.free_symbols & set(indices)]) for part in parts}
    # and the parts in the variables alone as written: expanding splits exp(46)*(exp(B(y)/10**17) - 1), about
    # 950*B(y), into two terms of 1e20 that each hold it within their round-off (red team 44j)
    factors |= _free_of(term, set(indices), set(problem.symbols))
    varying = sorted((f for f in factors if f.free_symbols), key=sp.default_sort_key)
    said = f"a factor of a sum's term in {name}"
    return values_differ(problem, {f"{said} ({k + 1})" if len(varying) > 1 else said: f
                                   for k, f in enumerate(varying)}, sets, tolerance) if varying else None


def _free_of(expr: sp.Expr, indices: set[sp.Symbol], variables: set[sp.Symbol]) -> set[sp.Expr]:
    """The largest parts of ``expr`` free of the indices that depend on the variables and are not polynomials
    in them (a polynomial's values doubles hold; a band lives in a function)."""
    if not expr.free_symbols & indices:
        return set() if expr.is_polynomial(*variables) else {expr}
    return set().union(*(_free_of(a, indices, variables) for a in expr.args)) if expr.args else set()


def _corners(problem: Problem) -> np.ndarray:
    """The corners of a box domain (none for a shape): a rest that grows toward an end of a range (``y**n``) is
    largest there, where the few points of the terms may not be (red team 44j: a coefficient rounded away at
    n = 1000 beside ``y**n`` weighed nothing at them)."""
    if problem.geometry is not None:
        return np.zeros((0, len(problem.symbols)))
    return np.array(list(itertools.product(*[(float(lo), float(hi)) for lo, hi in problem.bounds])), dtype=float)


def _sum_differs(name: str, total: sp.Sum, symbols: Sequence[sp.Symbol], X: np.ndarray,
                 tolerance: float, outside: float, kept: int | None, corners: np.ndarray) -> str | None:
    term, limits = _flattened(total)
    indices = [limit[0] for limit in limits]
    # as the sums are evaluated: no factor overflows where the term is moderate (sinh(n*pi*y)/sinh(n*pi))
    written_as = term
    term = stable_term(term, {i: (float(limit[1]), math.inf) for i, limit in zip(indices, limits)})
    chosen = np.array(_tuples(limits), dtype=float)
    held, roots, written = _held_roots(term, indices, chosen)
    rows = np.hstack([np.repeat(roots, len(X), axis=0), np.tile(X, (len(chosen), 1))])
    variables = [*held, *symbols]
    doubles = evaluate(written, variables, rows)
    size = _rms(doubles)
    gaps, sums = np.zeros(len(X), dtype=object), np.zeros(len(X), dtype=object)
    for k in range(len(chosen)):       # each index at the digits its own term needs (n! at n = 2000: thousands)
        at = slice(k * len(X), (k + 1) * len(X))
        precise = _precise(written, variables, rows[at], tolerance, size)
        for row, (a, b) in enumerate(zip(doubles[at], precise)):
            if mpmath.isfinite(b):
                gaps[row] += _gap(a, b)
                sums[row] += b
    field = max(mpmath.sqrt(mpmath.fsum(s ** 2 for s in sums) / len(X)), mpmath.mpf(size), mpmath.mpf(outside),
                mpmath.mpf(10) ** -300)
    worst = int(np.argmax([float(g) for g in gaps]))
    if gaps[worst] > tolerance * field:
        return (f"the terms of a sum in {name} differ by {mpmath.nstr(gaps[worst], 3)} at a fresh point between "
                f"doubles and mpmath: doubles round a term of it away")
    # the coefficient as written: the stable form distributes exp(46)*(exp(c/10**17) - 1) into the exponentials
    most = min(CAP.get(len(limits), 20), max(kept or CAP.get(len(limits), 20), FIRST_INDICES.get(len(limits), 3)))
    return _coefficients_differ(name, written_as, limits, symbols, np.vstack([X, corners]), tolerance,
                                tolerance * float(field), most)


def _coefficients_differ(name: str, term: sp.Expr, limits: Sequence[tuple[sp.Symbol, sp.Expr, sp.Expr]],
                         symbols: Sequence[sp.Symbol], X: np.ndarray, tolerance: float, allowed: float,
                         most: int) -> str | None:
    """The factor of a term that depends on the indices alone, at every index the cross-check kept (``most`` per
    index; a coefficient can depart from doubles at one index: ``exp(-10*(n - 40)**2)``, red team 44h), in
    chunks of :data:`CHUNK` indices, each at the digits its own values need. Each index's difference counts times the
    largest value the rest of the term takes at the points (in doubles), and their sum must be within
    ``allowed``, the tolerance of the field's size. An index where the rest overflows in doubles is left to the
    sampled terms (the sums are evaluated there in their stable form, not as this product)."""
    indices = [limit[0] for limit in limits]
    ranges = [range(int(lo), int(lo) + most if hi is sp.oo else min(int(hi) + 1, int(lo) + most)) for _, lo, hi in limits]
    every = np.array(list(itertools.product(*ranges)), dtype=float)
    held, roots, written = _held_roots(term, indices, every)
    coefficient, rest = written.as_independent(*symbols, as_Add=False)
    if not coefficient.free_symbols or not coefficient.free_symbols <= set(held):
        return None
    # a factor that grows or decays with the index (1/sinh(n*pi)) goes with the rest, in the stable form the
    # sums are evaluated in: written as one product, the coefficient is 0 and the rest inf past n = 226, and a
    # coefficient rounded away there was never compared (red team 44j); the growth's own arguments are compared
    # in their own right
    growth, coefficient = _growth(coefficient, held)
    rest = stable_term(growth * rest, {i: (float(limit[1]), math.inf) for i, limit in zip(indices, limits)})
    doubles, reach = evaluate(coefficient, held, roots), _reach(rest, held, symbols, roots, X)
    size = _rms(doubles)
    gap = _arguments_gap(growth, held, roots, reach * np.abs(doubles), tolerance)
    # where the rest nearly overflows in doubles the sums are evaluated in their stable form, not as this
    # product: those indices are not measured (besseli(0, n*pi*x)/besseli(0, n*pi) past n = 226)
    normal = reach <= NORMAL_RANGE
    doubles, reach, roots = doubles[normal], reach[normal], roots[normal]
    for start in range(0, len(roots), CHUNK):
        at = slice(start, start + CHUNK)
        precise = _precise(coefficient, held, roots[at], tolerance, size)
        # a coefficient below the normal range counts too, times its rest (red team 44j: 1e-291 beside a rest
        # of 1e289 is 0.047); the rest, in the stable form, is moderate where the term is
        gap += mpmath.fsum(_gap(a, b) * r for a, b, r in zip(doubles[at], precise, reach[at]) if mpmath.isfinite(b))
    if gap > allowed:
        return (f"the coefficients of a sum in {name} differ between doubles and mpmath by {mpmath.nstr(gap, 3)} "
                f"of the field's values (summed over the indices): doubles round a coefficient of it away")
    return None


def _growth(coefficient: sp.Expr, held: Sequence[sp.Symbol]) -> tuple[sp.Expr, sp.Expr]:
    """The factors of ``coefficient`` that grow or decay with the index (exponentials, hyperbolic and modified
    Bessel functions, factorials, powers with the index in their exponent), and the rest of it."""
    growing: list[sp.Expr] = []
    plain: list[sp.Expr] = []
    for factor in sp.Mul.make_args(coefficient):
        base = factor.base if isinstance(factor, sp.Pow) and not factor.exp.free_symbols & set(held) else factor
        grows = isinstance(base, GROWING) or (isinstance(base, sp.Pow) and bool(base.exp.free_symbols & set(held)))
        (growing if grows else plain).append(factor)
    return sp.Mul(*growing), sp.Mul(*plain)


def _arguments_gap(growth: sp.Expr, held: Sequence[sp.Symbol], roots: np.ndarray, weight: np.ndarray,
                   tolerance: float) -> mpmath.mpf:
    """What the growing factors' arguments, in doubles and in mpmath, change of the terms (``weight``: each
    index's largest term in doubles): an argument off by ``d`` changes an exponential by a share ``d``."""
    gap = mpmath.mpf(0)
    for factor in sp.Mul.make_args(growth):
        power, base = (factor.exp, factor.base) if isinstance(factor, sp.Pow) else (sp.Integer(1), factor)
        argument = power * sp.log(sp.Abs(base)) if isinstance(base, sp.Pow) or not isinstance(base, GROWING) \
            else base.args[-1]
        if not argument.free_symbols:
            continue
        doubles = evaluate(argument, held, roots)
        precise = _precise(argument, held, roots, tolerance, _rms(doubles) or 1.0)
        scale = abs(float(power)) if power.is_number else 1.0
        gap += mpmath.fsum(_gap(a, b) * scale * w for a, b, w in zip(doubles, precise, weight)
                           if mpmath.isfinite(b) and math.isfinite(w))
    return gap


def _reach(rest: sp.Expr, held: Sequence[sp.Symbol], symbols: Sequence[sp.Symbol], roots: np.ndarray,
           X: np.ndarray) -> np.ndarray:
    """The largest value ``rest`` takes at the points ``X``, at each index (in doubles; inf where it overflows)."""
    out, step = np.zeros(len(roots)), max(1, 100_000 // max(len(X), 1))
    for start in range(0, len(roots), step):
        block = roots[start:start + step]
        rows = np.hstack([np.repeat(block, len(X), axis=0), np.tile(X, (len(block), 1))])
        values = np.abs(evaluate(rest, [*held, *symbols], rows)).reshape(len(block), len(X))
        out[start:start + len(block)] = np.where(np.isnan(values), 0.0, values).max(axis=1)
    return out


def _held_roots(term: sp.Expr, indices: Sequence[sp.Symbol], chosen: np.ndarray
                ) -> tuple[list[sp.Symbol], np.ndarray, sp.Expr]:
    """The indices and each eigenvalue of the term (``besseljzero(0, n)``) as columns, and the term written with
    them: the eigenvalues in doubles, once per index, for both evaluations (mpmath finds a Bessel zero in about
    10 ms, and the term is evaluated at every point; what is compared is the term's own arithmetic, not the
    zero's last bit)."""
    atoms = sorted((a for a in term.atoms(EigenvalueFunction) if a.free_symbols <= set(indices)),
                   key=sp.default_sort_key)
    if not atoms:
        return list(indices), chosen, term
    held = [sp.Dummy(f"root{k}", positive=True) for k in range(len(atoms))]
    columns = [evaluate(a, list(indices), chosen) for a in atoms]
    return [*indices, *held], np.column_stack([chosen, *columns]), term.xreplace(dict(zip(atoms, held)))


def _precise(expr: sp.Expr, variables: Sequence[sp.Symbol], rows: np.ndarray, tolerance: float,
             size: float) -> np.ndarray:
    """``expr``'s values at ``rows`` in mpmath at the digits its values there need (``size``: the values' size
    in doubles, what they are judged against), at most :data:`DOUBLES_RANGE` for them: the digits ask for the
    widest ratio of summands (``1 - exp(-2*pi*n*y)`` at n = 2000: thousands), and what doubles compute within
    their range is held at far fewer (a finite double is within 1e308 of 1 either way, and a part beyond that
    range is not finite in doubles, which the comparison leaves out)."""
    measured = min(measured_digits([expr], variables, rows, math.log10(size) if size > 0 else 0.0), DOUBLES_RANGE)
    digits = working_digits([expr], FIRST + math.ceil(math.log10(1 / tolerance)), measured) or MOST_DIGITS
    return values_at([expr], variables, rows, digits, np.zeros(rows.shape, dtype=bool))[0]


def _gap(double: float, precise: mpmath.mpf) -> mpmath.mpf:
    """How far a value in doubles is from mpmath's: all of it where doubles have none (``(n + 1)**200/(n**2 + 2*n
    + 1)**100`` is 1, and inf/inf to them: the sums leave such a term out, red team 44h)."""
    return abs(mpmath.mpf(double) - precise) if math.isfinite(double) else abs(precise)


def _largest(values: np.ndarray) -> float:
    finite = np.abs(values[np.isfinite(values)])
    return float(np.max(finite)) if len(finite) else 0.0


def _rms(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(np.sqrt(np.mean(finite ** 2))) if len(finite) else 0.0


def _flattened(total: sp.Sum) -> tuple[sp.Expr, list[tuple[sp.Symbol, sp.Expr, sp.Expr]]]:
    """The innermost term of a sum and all its limits, inner sums' too."""
    term, limits = total.function, list(total.limits)
    while isinstance(term, sp.Sum):
        limits += list(term.limits)
        term = term.function
    return term, limits


def _tuples(limits: Sequence[tuple[sp.Symbol, sp.Expr, sp.Expr]]) -> list[tuple[int, ...]]:
    """The index tuples a sum's term is measured at: every tuple of each index's first indices, then indices
    spread geometrically to the most terms a truncation keeps, each index alone (the others at their first)
    and all together (a double sum's terms multiply: not every pair)."""
    depth = len(limits)
    first = FIRST_INDICES.get(depth, 3)
    lowers = [int(limit[1]) for limit in limits]
    uppers = [math.inf if limit[2] is sp.oo else int(limit[2]) for limit in limits]
    farther = [int(round(first * 1.5 ** k)) for k in range(1, 40) if first * 1.5 ** k < CAP.get(depth, 20)]
    offsets = set(itertools.product(range(first), repeat=depth))
    for far in farther:
        offsets.add((far,) * depth)
        offsets.update(tuple(far if i == j else 0 for j in range(depth)) for i in range(depth))
    return sorted(tuple(lo + o for lo, o in zip(lowers, offset)) for offset in offsets
                  if all(lo + o <= hi for lo, o, hi in zip(lowers, offset, uppers)))
