"""After verification: the exact closed form of the selected expression (``docs/exact.md``).

Constants are identified and canonical rewrites applied only where the verification
residuals, recomputed on the independent verification points, stay at the numeric
solution's round-off level.  The symbolic match against the reference is post hoc,
like the relative L2, and nothing downstream uses it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

import sympy as sp

from desyr.exact import exact_form, symbolic_match
from desyr.exact.form import choose_gauges
from desyr.exact.records import safe_check
from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.model.residuals import verify
from desyr.model.result import ConstantRecord, ExactFormRecord, RewriteRecord
from desyr.model.result_reading import build_typed
from desyr.symbolic.physics import Verification

Verifier = Callable[[Mapping[str, sp.Expr]], Verification]


def _checker(problem: Problem, points: VerificationPoints, verified: Verifier | None
             ) -> Callable[[Mapping[str, sp.Expr]], tuple[float, float]]:
    def check(candidate: Mapping[str, sp.Expr]) -> tuple[float, float]:
        # relative to the problem's scale, as "exact" is decided: a change is judged at any scale alike
        v = verify(problem, candidate, points) if verified is None else verified(candidate)
        return max(v.relative_per_equation, default=0.0), max(v.relative_per_constraint, default=0.0)
    return check


def choose_gauge(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                 verified: Verifier | None = None) -> tuple[dict[str, sp.Expr], list[RewriteRecord]]:
    """The selected expressions with each field the problem leaves free up to a function (a pressure up to
    a function of time) as the simplest member of its class the data allow, checked on the verification
    points (:func:`desyr.exact.form.choose_gauges`), and the accepted decisions; run before the
    verification, so that the printed expression is that member and its exact form agrees with it.
    ``verified``: :func:`desyr.model.residuals.verifier_on` these points, shared with the other checks."""
    check = _checker(problem, points, verified)
    before = safe_check(check, exprs)
    if before is None:
        return dict(exprs), []
    chosen, decisions = choose_gauges(problem, exprs, check, before)
    return chosen, [build_typed(RewriteRecord, d.to_dict(), "rewrites") for d in decisions if d.accepted]


def identify(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints, seed: int = 0,
             verified: Verifier | None = None) -> ExactFormRecord:
    """The checked exact form of ``exprs`` and, with a reference, whether it matches symbolically."""
    form = exact_form(problem, dict(exprs), _checker(problem, points, verified))
    data = form.to_dict()
    data["constants"] = [build_typed(ConstantRecord, c, "constants") for c in data["constants"]]
    data["rewrites"] = [build_typed(RewriteRecord, r, "rewrites") for r in data["rewrites"]]
    record: ExactFormRecord = build_typed(ExactFormRecord, data, "exact_form")
    if problem.reference:
        record.symbolic_match = symbolic_match(form.expressions, problem.reference, problem.symbols,
                                               bounds=[(v.lo, v.hi) for v in problem.variables], seed=seed)
    return record
