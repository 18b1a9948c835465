"""The verdict of a series answer: the numeric cross-check of its truncated sums, and its proof.

A series' residuals on points are those of a truncated sum.  Where the sums' proved tail bound holds
on a target's points (docs/series.md), the residual must be within the tolerance plus that bound,
pointwise.  Where none does (data that disagree with the boundary: terms ~ 1/n at t = 0), the sum
converges there only in L2: the residual's root mean square over the set's points must be within the
tolerance plus three times that of the next block of terms (from N/2 to N), which Parseval's
identity makes the size of the tail.  A series that passes is Verified; Proved also needs
:func:`desyr.verify.series_proof.prove_series` and a printed formula that is the proved one.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.symbolic.expressions import expression_text
from desyr.verify.series_form import has_infinite_sum
from desyr.verify.series_proof import prove_series

#: the truncation's tolerance, relative to the sums' first terms (the tail bound is what is judged)
TRUNCATION = 1e-10
#: the most terms per index of a sum (a double sum: this many per index, squared)
CAP = {1: 4000, 2: 200, 3: 40}
#: the fewest terms a truncation falls back to where more overflow in doubles
MIN_CAP = 50
#: how many times the last block of terms the L2 residual may be
BLOCKS = 3.0


@dataclass(frozen=True)
class Judged:
    """One target on the verifier's points."""

    name: str
    norm: str                 # "pointwise" or "L2"
    residual: float           # max |residual| or its root mean square
    allowed: float
    terms: int
    bound: float | None       # the tail bound (pointwise), or the last block's size (L2)

    @property
    def ok(self) -> bool:
        return math.isfinite(self.residual) and self.residual <= self.allowed

    def describe(self) -> str:
        bound = math.nan if self.bound is None else self.bound
        said = (f"|residual| <= {self.residual:.3g} (allowed {self.allowed:.3g}: the tolerance and the tail bound "
                f"{bound:.2g})" if self.norm == "pointwise" else
                f"L2 residual {self.residual:.3g} (allowed {self.allowed:.3g}: the tolerance and {BLOCKS:g} times "
                f"the last block of terms, {bound:.2g})")
        return f"{self.name}: {said}, {self.terms} terms"


def is_series(*forms: Mapping[str, sp.Expr] | None) -> bool:
    return any(form is not None and any(has_infinite_sum(e) for e in form.values()) for form in forms)


def cross_check(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                tolerance: float) -> list[Judged]:
    """Each target's residual of the truncated series on the verifier's points."""
    out = []
    for k, eq in enumerate(problem.equations):
        residual = problem.apply(eq.lhs - eq.forcing, exprs)
        out.append(_judge(problem, f"equation {k + 1}", residual, points.interior, tolerance))
    for con, X in zip(problem.constraints, points.constraints):
        out.append(_judge(problem, f"constraint {con.label}", problem.constraint_residual(con, exprs), X, tolerance))
    return out


def _combined(expr: sp.Expr) -> sp.Expr:
    """``expr`` multiplied out with each sum held as one symbol, so that a sum that cancels (``2*S - 2*S``, where
    the equation's terms of the finite part and of the sums met) is not evaluated at all."""
    held = {s: sp.Dummy("sum") for s in expr.atoms(sp.Sum)}
    if not held:
        return expr
    return sp.expand(expr.xreplace(held)).xreplace({d: s for s, d in held.items()})


def _depth(expr: sp.Expr) -> int:
    return max((len(s.limits) + _depth(s.function) for s in expr.atoms(sp.Sum)), default=0)


def _judge(problem: Problem, name: str, residual: sp.Expr, X: np.ndarray, tolerance: float) -> Judged:
    from desyr.symbolic.series import evaluate_series
    residual = _combined(residual)
    cap = CAP.get(_depth(residual), 20)
    full = evaluate_series(residual, problem.symbols, X, TRUNCATION, cap)
    values = np.asarray(full.values, dtype=float)
    while not np.all(np.isfinite(values)) and cap > MIN_CAP:
        # a term that overflows in doubles far out (sinh(n*pi)): fewer terms, judged in L2 below
        cap //= 4
        full = evaluate_series(residual, problem.symbols, X, 0.0, cap)
        values = np.asarray(full.values, dtype=float)
    if full.bound is not None and not full.capped:
        worst = float(np.max(np.abs(values))) if values.size else 0.0
        return Judged(name, "pointwise", worst, tolerance + full.bound, full.terms, full.bound)
    half = evaluate_series(residual, problem.symbols, X, 0.0, max(1, full.terms // 2))
    block = _rms(values - np.asarray(half.values, dtype=float))
    return Judged(name, "L2", _rms(values), tolerance + BLOCKS * block, full.terms, block)


def _rms(values: np.ndarray) -> float:
    if values.size == 0:
        return 0.0
    with np.errstate(all="ignore"):
        value = float(np.sqrt(np.mean(np.square(values))))
    return value if math.isfinite(value) else math.inf


def outcome(problem: Problem, numeric: Mapping[str, sp.Expr], exact: Mapping[str, sp.Expr] | None,
            points: VerificationPoints, tolerance: float) -> tuple[str, str, dict[str, Any], dict[str, Any] | None]:
    """``(verdict, reason, residuals, exact_part)`` of a series answer."""
    judged = cross_check(problem, numeric, points, tolerance)
    residuals = _residuals(judged)
    failed = [j for j in judged if not j.ok]
    if failed:
        return "not_exact", f"the truncated series does not meet {failed[0].describe()}", residuals, None
    said = "; ".join(j.describe() for j in judged)
    numbers = f"the truncated series meets every target on fresh points ({said})"
    floats = any(e.atoms(sp.Float) for e in numeric.values())
    form = exact if exact is not None else (None if floats else numeric)
    if form is None:
        return "verified", f"{numbers}; not proved: constants not identified (float constants, no exact form)", \
            residuals, {"proved": False, "reason": "constants not identified", "expressions": None}
    proof = prove_series(problem, form)
    part: dict[str, Any] = {"expressions": {f: expression_text(form[f]) for f in problem.fields},
                            "proved": proof.proved, "reason": proof.reason, "parts": dict(proof.parts),
                            "steps": [{"residual": n, "zero": ok} for n, ok in proof.steps], "printed": None}
    if not proof.proved:
        return "verified", f"{numbers}; not proved: {proof.reason}", residuals, part
    if form is not numeric and any(sp.srepr(numeric[f]) != sp.srepr(form[f]) for f in problem.fields):
        part["printed"] = "the printed series is not the proved exact form"
        return "verified", f"{numbers}; the exact form is proved ({proof.reason}), but {part['printed']}", residuals, part
    return "proved", f"{proof.reason}; {numbers}", residuals, part


def _residuals(judged: list[Judged]) -> dict[str, Any]:
    """The residuals in the verdict's shape (R_eq, R_con and the per-target lists), from the cross-check."""
    equations = [j.residual for j in judged if j.name.startswith("equation")]
    constraints = [j.residual for j in judged if not j.name.startswith("equation")]

    def plain(v: float) -> float | str:
        return v if math.isfinite(v) else str(v)
    return {"R_eq": plain(max(equations, default=0.0)), "R_con": plain(max(constraints, default=0.0)) if constraints
            else None, "R_eq_per_equation": [plain(v) for v in equations],
            "R_con_per_constraint": [plain(v) for v in constraints], "rel_l2": None, "smooth": None,
            "series": [{"target": j.name, "norm": j.norm, "residual": plain(j.residual), "allowed": plain(j.allowed),
                        "terms": j.terms, "bound": None if j.bound is None else plain(j.bound)} for j in judged]}
