"""Verification: R_eq and R_con of the selected expression, and post hoc errors.

Everything here is computed on :class:`VerificationPoints` drawn after every
component has run, from the problem as it was read from the config (the
api keeps a private copy that no component received).  The reference enters only
the relative L2 errors, which no stage uses.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping

import numpy as np
import sympy as sp

from desyr.model.outcomes import Errors, Outcome, Selection
from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.model.residuals import verify
from desyr.model.result import SeriesField, SeriesRecord
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.physics import Verification


def relative_l2(problem: Problem, exprs_or_values: Mapping[str, sp.Expr] | np.ndarray, X: np.ndarray,
                ref: np.ndarray | None = None) -> float | None:
    """Post hoc relative L2 error against the reference at ``X`` (None without a reference, or where the
    reference is 0 everywhere: no relative error exists; :func:`absolute_l2` gives the error then).
    ``ref``: the reference's values at ``X`` where the caller has them (a series' take seconds)."""
    ref = problem.evaluate_reference(X) if ref is None else ref
    if ref is None or not np.any(ref):
        return None
    pred = _predicted(problem, exprs_or_values, X)
    with np.errstate(all="ignore"):
        err = float(np.linalg.norm(pred - ref) / np.linalg.norm(ref))
    return err if math.isfinite(err) else math.inf


def _predicted(problem: Problem, exprs_or_values: Mapping[str, sp.Expr] | np.ndarray, X: np.ndarray) -> np.ndarray:
    if isinstance(exprs_or_values, np.ndarray):
        return exprs_or_values
    exprs = exprs_or_values
    return np.column_stack([evaluate(problem.resolved(exprs[f], exprs), problem.symbols, X) for f in problem.fields])


def fieldwise_l2(problem: Problem, exprs: Mapping[str, sp.Expr], X: np.ndarray) -> dict[str, float]:
    """The relative L2 error of each field whose reference is not 0 everywhere."""
    ref = problem.evaluate_reference(X)
    if ref is None:
        return {}
    out = {}
    for j, f in enumerate(problem.fields):
        if not np.any(ref[:, j]):
            continue          # p = 0: a relative error divides by 0 (it read "inf"); absolute_l2 has it
        pred = evaluate(exprs[f], problem.symbols, X)
        with np.errstate(all="ignore"):
            err = float(np.linalg.norm(pred - ref[:, j]) / np.linalg.norm(ref[:, j]))
        out[f] = err if math.isfinite(err) else math.inf
    return out


def absolute_l2(problem: Problem, exprs: Mapping[str, sp.Expr], X: np.ndarray,
                ref: np.ndarray | None = None) -> dict[str, float]:
    """For each field whose reference is 0 everywhere, the RMS of the expression at ``X``: its absolute
    L2 error (per point), the only error such a reference gives."""
    ref = problem.evaluate_reference(X) if ref is None else ref
    if ref is None:
        return {}
    out = {}
    for j, f in enumerate(problem.fields):
        if np.any(ref[:, j]):
            continue
        pred = evaluate(problem.resolved(exprs[f], exprs), problem.symbols, X)
        with np.errstate(all="ignore"):
            err = float(np.sqrt(np.mean(np.square(np.broadcast_to(pred, ref[:, j].shape)))))
        out[f] = err if math.isfinite(err) else math.inf
    return out


def verify_selection(selection: Selection, pristine: Problem, points: VerificationPoints,
                     teacher_values: np.ndarray | None = None,
                     verified: Callable[[Mapping[str, sp.Expr]], Verification] | None = None) -> Outcome:
    """Verification residuals and post hoc errors of the selected candidate (joint and per field).

    ``pristine`` is the problem as read from the config, ``points`` fresh verification sets,
    ``teacher_values`` the teacher's predictions at ``points.interior`` (post hoc teacher error),
    ``verified``: :func:`desyr.model.residuals.verifier_on` these points, where the caller shares one."""
    start = time.perf_counter()
    chosen = selection.selected
    errors = Errors()
    verification = None
    X = points.interior
    ref = pristine.evaluate_reference(X) if chosen is not None and chosen.expressions or \
        teacher_values is not None else None
    if chosen is not None and chosen.expressions:
        exprs = chosen.expressions
        verification = verify(pristine, exprs, points) if verified is None else verified(exprs)
        errors.rel_l2 = relative_l2(pristine, exprs, X, ref)
        errors.pre_refit_rel_l2 = (errors.rel_l2 if dict(chosen.search_expressions) == dict(exprs)
                                   else relative_l2(pristine, chosen.search_expressions, X, ref))
        if len(pristine.fields) > 1:
            errors.fieldwise = fieldwise_l2(pristine, exprs, X)
        errors.absolute = absolute_l2(pristine, exprs, X, ref)
    if teacher_values is not None:
        errors.teacher_rel_l2 = relative_l2(pristine, teacher_values, X, ref)
    return Outcome(selection, verification, errors, time.perf_counter() - start)



def series_truncation(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints) -> SeriesRecord | None:
    """How each field that is a series is cut on the verification points (terms kept, the proved tail
    bound reached), and where on the domain a tail bound holds; None for finite formulas."""
    from desyr.symbolic.numeric import evaluate_series
    from desyr.symbolic.series import bound_on_part, has_series, outer_sums
    fields: dict[str, SeriesField] = {}
    box = {s: (float(v.lo), float(v.hi)) for s, v in zip(problem.symbols, problem.variables)}
    for f in problem.fields:
        expr = problem.resolved(exprs[f], exprs)
        if not has_series(expr):
            continue
        values = evaluate_series(expr, problem.symbols, points.interior)
        sums = outer_sums(expr)
        parts = [bound_on_part(s, box) for s in sums]
        holds = None if any(p is None for p in parts) else "; ".join(sorted({p.where() for p in parts if p}))
        fields[f] = SeriesField(values.terms, values.bound, values.capped, holds, len(sums))
    if not fields:
        return None
    return SeriesRecord(fields, "the run's residuals and errors use these truncated sums")
