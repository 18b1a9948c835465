"""What the verifier does with a series until its proof is written (``docs/verify.md``): it reads and
evaluates it, never proves it.

- Its regularity is read from its first terms written out (:func:`desyr.symbolic.series.head`): a
  term singular in the variables makes the series so; the index is not a variable of the domain.
- Its residuals are computed on the fresh points through truncated sums
  (:func:`desyr.symbolic.numeric.evaluate_series`); the numbers count only where each field's own truncation on
  the interior points reached a proved tail bound within the tolerance: otherwise the check is not
  sound and the series is not exact by numbers.
- It is never Proved: at best Verified.
"""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.symbolic.numeric import evaluate_series
from desyr.symbolic.series import has_series, head

#: why a series is at best Verified
UNPROVED = "a series is checked on numbers only (truncated sums with proved tail bounds); its proof is not done"


def is_series(exprs: Mapping[str, sp.Expr]) -> bool:
    return any(has_series(e) for e in exprs.values())


def written_out(exprs: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """Each expression with its sums written out as their first terms (for the regularity check)."""
    return {f: head(e) for f, e in exprs.items()}


def truncation_reason(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                      tolerance: float) -> tuple[str | None, str]:
    """``(why the numbers are not sound or None, how the sums were cut)`` on the interior points."""
    notes, why = [], None
    for field in problem.fields:
        expr = problem.resolved(exprs[field], exprs)
        if not has_series(expr):
            continue
        values = evaluate_series(expr, problem.symbols, points.interior)
        notes.append(f"{field}: {values.report.describe()}")
        if why is None and (values.bound is None or values.bound > tolerance):
            why = (f"{field}'s series has no proved tail bound within the tolerance {tolerance:g} on the fresh "
                   f"points ({values.report.describe()}): its residuals are not a sound check")
    return why, "; ".join(notes)


def series_verdict(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints, tolerance: float,
                   verdict: str, reason: str) -> tuple[str, str]:
    """The verdict of a series from its numbers: Verified only where they are sound; a series above the
    tolerance by round-off only is not exact (only a proof could tell)."""
    unsound, cut = truncation_reason(problem, exprs, points, tolerance)
    reason = f"{reason} ({cut})"
    if verdict != "verified":
        return "not_exact", reason
    if unsound is not None:
        return "not_exact", f"{reason}; but {unsound}"
    return "verified", f"{reason}; {UNPROVED}"
