"""The problem's own equations and constraints measured again in mpmath (``docs/verify.md``, "Points off the
doubles, and a second sample").

Doubles can round away a term of the problem itself: ``u_t - u_xx + 10**20*log(1 + u/10**17)`` is about
``u_t - u_xx + 1000*u``, and 0 to doubles wherever ``1 + u/10**17`` rounds to 1.  A formula's residuals are
measured again in mpmath on a sample of 16 points (:func:`~desyr.verify.precise.sampled_again`), and such a term
can live in a band the sample misses; a series' residuals are not measured again at all, since its truncated
sums hold thousands of terms (a wrong series met every target in doubles, red team 44i).  Both answers' values
are compared in mpmath already (:func:`~desyr.verify.precise.values_differ`, :mod:`desyr.verify.series_values`),
so what is left to doubles is the operators.  Each is evaluated at every point the verdict reads it at, with
the derivatives it reads as inputs (the formula's, or the truncated sums', in doubles), in doubles and in
mpmath (:func:`operators_differ`); where the two differ by more than the residual's allowance, doubles cannot
judge the answer.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Constraint, Problem
from desyr.model.scaled import problem_scale
from desyr.symbolic.generic_points import measured_digits, working_digits
from desyr.symbolic.numeric import evaluate, evaluate_series_many
from desyr.symbolic.scales import values_at
from desyr.verify.precise import FIRST, spread
from desyr.verify.series_scales import sum_depth
from desyr.verify.series_verdict import CAP, POINTS, TRUNCATION

#: the most terms per index of a sum the derivatives are read with: the operator is compared with itself, in
#: doubles and in mpmath, so its inputs need only lie where the field's values do (a drum's Bessel series at
#: its 2000 terms and 2000 points took longer than the share)
JET_TERMS = 100


def operators_differ(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                     tolerance: float, sizes: Sequence[float] | None = None) -> str | None:
    """Why doubles cannot be trusted with an equation's or a constraint's operator on ``exprs``, else None: its
    values at its points, in doubles and in mpmath, from the same derivatives, their difference held to the
    tolerance times the residual's size (``sizes``: the equations', then the constraints'; else the problem's
    scale Q)."""
    targets: list[tuple[str, sp.Expr, np.ndarray, np.ndarray | None]] = [
        (f"equation {k + 1}", eq.lhs - eq.forcing, points.interior, None) for k, eq in enumerate(problem.equations)]
    for con, X in zip(problem.constraints, points.constraints):
        targets.append((f"constraint {con.label}", _constraint_part(problem, con), X, _shift(problem, con)))
    # the residuals' own allowances: a gap above one is one doubles can hide a wrong answer behind
    if sizes is None or len(sizes) != len(targets):
        sizes = [problem_scale(problem, points.interior, points.constraints, points.reductions)] * len(targets)
    for (name, operator, X, shift), size in zip(targets, sizes):
        why = _differs(problem, exprs, name, problem.resolved(operator, exprs), X[spread(len(X), _rows(exprs, len(X)))],
                       shift, tolerance * size)
        if why:
            return why
    return None


def _rows(exprs: Mapping[str, sp.Expr], n: int) -> int:
    """How many of a set's points are read: all (a term rounded away can live in a band a sample misses, as
    in a formula's values), but no more than the cross-check reads of a multiple sum (its cost is points
    times terms), spread over the set's rows."""
    return POINTS.get(max((sum_depth(e) for e in exprs.values()), default=0), n)


def _constraint_part(problem: Problem, con: Constraint) -> sp.Expr:
    """A constraint's residual over jets: a periodic pair's operator less its partner's (a term both ends
    share cancels, as it does in the residual), an integral's integrand with its value shared out."""
    if con.kind == "periodic":
        moved = {**{j: _partner(j) for j in _jets(problem, con.operator)}, **problem.shift_map(con)}
        return con.operator - con.operator.xreplace(moved) - con.value
    if con.kind == "integral":
        return con.operator - con.value / sp.Float(con.measure)
    return con.operator - con.value


def _shift(problem: Problem, con: Constraint) -> np.ndarray | None:
    return np.array([float(d) for d in con.moved(problem.numbers)], dtype=float) if con.kind == "periodic" else None


def _partner(jet: sp.Symbol) -> sp.Symbol:
    """The stand-in of a jet at a periodic pair's partner point."""
    return sp.Symbol(f"{jet.name}__partner", **jet.assumptions0)


def _jets(problem: Problem, expr: sp.Expr) -> list[sp.Symbol]:
    return sorted((s for s in expr.free_symbols if problem.vocabulary.jet_of(s) is not None), key=str)


def _differs(problem: Problem, exprs: Mapping[str, sp.Expr], name: str, operator: sp.Expr, X: np.ndarray,
             shift: np.ndarray | None, allowed: float) -> str | None:
    symbols = list(problem.symbols)
    jets = _jets(problem, operator)
    partners = [_partner(j) for j in jets] if shift is not None else []
    if not len(X) or operator.free_symbols - {*symbols, *jets, *partners}:
        return None             # an unknown left in it: a series answer to an inverse problem is not judged
    columns = _jet_values(problem, exprs, jets, X) if jets else []
    if partners:
        columns += _jet_values(problem, exprs, jets, X + shift)
    inputs = np.column_stack([X, *columns]) if columns else X
    inputs = inputs[np.all(np.isfinite(inputs), axis=1)]     # a derivative whose sum does not converge there
    if not len(inputs):
        return None
    arguments = [*symbols, *jets, *partners]
    doubles = evaluate(operator, arguments, inputs)
    finite = doubles[np.isfinite(doubles)]
    digits = working_digits([operator], FIRST + math.ceil(max(0.0, _log10(finite) - math.log10(allowed))),
                            measured_digits([operator], arguments, inputs, math.log10(allowed)))
    if digits is None:
        return f"the numbers in {name} are too large or too small to measure"
    precise = values_at([operator], arguments, inputs, digits, np.zeros(inputs.shape, dtype=bool))[0]
    for a, b in zip(doubles, precise):
        gap = abs(mpmath.mpf(a) - b) if mpmath.isfinite(a) and mpmath.isfinite(b) else mpmath.inf
        if gap > allowed:
            return (f"the residual of {name} is {mpmath.nstr(b, 6)} at a fresh point where doubles give "
                    f"{float(a):.6g} from the same derivatives: doubles round a term of the problem away")
    return None


def _jet_values(problem: Problem, exprs: Mapping[str, sp.Expr], jets: list[sp.Symbol],
                X: np.ndarray) -> list[np.ndarray]:
    """Each jet's values at ``X`` from the truncated sums, as the cross-check computes them in doubles."""
    variables = problem.vocabulary.var_symbols
    derivatives = []
    for symbol in jets:
        jet = problem.vocabulary.jet_of(symbol)
        assert jet is not None
        base = exprs[jet.field]
        derivatives.append(sp.diff(base, *[variables[v] for v in jet.wrt]) if jet.wrt else base)
    depth = max((sum_depth(d) for d in derivatives), default=1)
    return evaluate_series_many(derivatives, problem.symbols, X, TRUNCATION, min(CAP.get(depth, 20), JET_TERMS))


def _log10(values: np.ndarray) -> float:
    size = float(np.sqrt(np.mean(values ** 2))) if len(values) else 0.0
    return math.log10(size) if size > 0 and math.isfinite(size) else 0.0
