"""A formula's numbers on the verifier's fresh points (:mod:`desyr.verify.verdict` decides from them).

- :func:`check`: the first look, in doubles, after the smoothness and branch conditions;
- :func:`looked`: where doubles put a residual above the tolerance, the second look at higher precision;
- :func:`sampled`: a Verified formula measured again on a sample of every residual's points (red team 44e);
- :func:`values_checked`: a Verified formula's values compared in doubles and mpmath at every point (44d, 44g).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.model.residuals import Verification, verify
from desyr.symbolic.numeric import evaluate
from desyr.verify.budget import Budget
from desyr.verify.precise import MOST, Second, data_differ, sampled_again, second_look, values_differ
from desyr.verify.problem_operators import operators_differ
from desyr.verify.regularity import REASON, numeric_fields, rough_reason
from desyr.verify.truncated import is_series, written_out


@dataclass(frozen=True)
class Checked:
    """One expression set's numbers on the verifier's points: the absolute residuals, and each residual
    over its scale (``relative``, what the tolerance judges; ``roundoff``, over its terms' whole size)."""

    R_eq: float
    R_con: float | None
    R_eq_per_equation: list[float]
    R_con_per_constraint: list[float]
    rel_l2: float | None
    smooth: str | None             # None, or why it is not smooth enough
    relative: float = 0.0
    relative_per_equation: list[float] = field(default_factory=list)
    relative_per_constraint: list[float] = field(default_factory=list)
    roundoff: float = 0.0
    scale: float = 1.0
    #: each residual's scale S_k (what the printed formula's bound is held to)
    size_per_equation: list[float] = field(default_factory=list)
    size_per_constraint: list[float] = field(default_factory=list)
    #: what the second look at higher precision said ("": none was needed), and whether it decided
    second: str = ""
    decided: bool = False


def check(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints, budget: Budget | None = None,
          part: str = "residuals") -> Checked:
    """The numbers of ``exprs`` on the fresh points, each step within its share of ``budget``'s time."""
    budget = budget or Budget()

    def smoothness() -> tuple[str | None, Mapping[str, sp.Expr]]:
        series = is_series(exprs)        # a series' regularity is read from its first terms written out
        why = rough_reason(problem, written_out(exprs) if series else exprs)
        # abs() of one-signed quantities are those quantities: their derivatives carry no delta
        return why, (numeric_fields(problem, exprs) if why is None and not series else exprs)

    smooth, exprs = budget.within("smoothness", smoothness,
                                  lambda late: (f"{REASON}: its smoothness and branch conditions were {late}", exprs))
    def numbers() -> Verification | str:
        return verify(problem, exprs, points)

    v = budget.within(part, numbers, lambda late: late)
    if isinstance(v, str):
        return unevaluated(f"its residuals on the fresh points were {v}")
    return checked_from(problem, exprs, points, v, smooth)


def checked_from(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints, v: Verification,
             smooth: str | None, second: str = "") -> Checked:
    return Checked(finite(v.R_eq), None if v.R_con is None else finite(v.R_con),
                   [finite(r) for r in v.R_eq_per_equation], [finite(r) for r in v.R_con_per_constraint],
                   rel_l2(problem, exprs, points.interior), smooth, finite(v.relative),
                   [finite(r) for r in v.relative_per_equation], [finite(r) for r in v.relative_per_constraint],
                   finite(v.roundoff), finite(v.scale), list(v.size_per_equation), list(v.size_per_constraint),
                   second, bool(second))


def looked(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints, checked: Checked,
           tolerance: float, budget: Budget) -> Checked:
    """``checked``; or, where doubles put a residual above ``tolerance``, the numbers of the second look
    at higher precision (:mod:`desyr.verify.precise`) when it decides them."""
    if checked.smooth or checked.relative <= tolerance:
        return checked
    exprs = numeric_fields(problem, exprs)      # as the first look measured them: removable 0/0 as its limit
    def late(why: str) -> Second | str:
        return why

    second = budget.within("precision", lambda: second_look(problem, exprs, points, tolerance), late)
    if isinstance(second, str):
        return replace(checked, second=f"not measured again at higher precision: that was {second}")
    if second.above:
        return replace(checked, second=f"shown above it at its worst points at {second.digits} digits", decided=True)
    if second.verification is None:
        return replace(checked, second=f"not decided at up to {second.digits} digits")
    return checked_from(problem, exprs, points, second.verification, checked.smooth,
                    f"measured again at {second.digits} digits: doubles could not decide")


def sampled(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints, tolerance: float,
             budget: Budget, verdict: str, reason: str, residuals: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """A Verified formula measured again on a sample of every residual's points at higher precision
    (:func:`sampled_again`): Not exact where a residual is shown above the tolerance there, where its values
    cannot be measured, or where that is not finished in time (red team 44d: four slow Bessel terms used up the
    share, and the absorbed term beside them passed).  Whatever doubles say: they can round a term away without
    a sign (``exp(46)*(exp(x/10**17) - 1)``, red team 44e)."""
    def late(why: str) -> Second | str:
        return why

    exprs = numeric_fields(problem, exprs)      # as the first look measured them (red team 44f: 0/0 on a face)
    again = budget.within("precision", lambda: sampled_again(problem, exprs, points, tolerance), late)
    if isinstance(again, str):
        return "not_exact", (f"{reason}; but its sample at higher precision was {again}: no evidence that doubles "
                             f"did not round a term away"), residuals
    if not again.above:
        return verdict, reason, residuals
    if again.verification is None:
        return "not_exact", (f"{reason}; but its values need more than {MOST} digits to be measured at higher "
                             f"precision: no evidence that doubles did not round a term away"), residuals
    v = again.verification
    return ("not_exact", f"the largest relative residual is {v.relative:.3g} on a sample of the fresh points "
            f"measured again at {again.digits} digits (doubles had rounded a term away), above the tolerance "
            f"{tolerance:g} of the problem's scale", plain(checked_from(problem, exprs, points, v, None,
                                                               f"sampled at {again.digits} digits")))


def all_points(problem: Problem, points: VerificationPoints) -> list[np.ndarray]:
    """Every set of points the verdict reads the fields at: the fresh interior and constraint points, and the
    observations of an inverse problem (its data test reads the fields there)."""
    sets = [points.interior, *points.constraints]
    if problem.observations is not None:
        sets.append(problem.observations.X)
    return [s for s in sets if len(s)]


def values_checked(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints, tolerance: float,
                    budget: Budget, verdict: str, reason: str, residuals: dict[str, Any]
                    ) -> tuple[str, str, dict[str, Any]]:
    """A Verified formula whose values doubles and mpmath disagree on (:func:`values_differ`) is measured again
    in mpmath at every point (:func:`second_look`): Not exact unless that decides it within the tolerance, and
    Not exact for an inverse problem whose observations' test read the values in doubles."""
    def late(why: str) -> str | None:
        return f"its values at higher precision were {why}"

    exprs = numeric_fields(problem, exprs)      # as the first look measured them

    away = budget.within("precision", lambda: values_differ(problem, exprs, all_points(problem, points), tolerance)
                         or data_differ(problem, points, tolerance)
                         or operators_differ(problem, exprs, points, tolerance), late)
    if not away:
        return verdict, reason, residuals
    if away.startswith("its values at higher precision were"):
        return "not_exact", f"{reason}; but {away}: no evidence that doubles did not round a term away", residuals
    if problem.observations is not None:
        return "not_exact", f"{away}, so the data test in doubles cannot judge it", residuals

    def undecided(why: str) -> Second | str:
        return why

    second = budget.within("precision", lambda: second_look(problem, exprs, points, tolerance), undecided)
    if isinstance(second, str) or second.verification is None:
        return "not_exact", f"{away}, and its residuals were not decided at higher precision", residuals
    checked = checked_from(problem, exprs, points, second.verification, None, f"measured again at {second.digits} digits")
    if second.above or checked.relative > tolerance:
        return "not_exact", (f"{away}; measured again at {second.digits} digits, the largest relative residual is "
                             f"{checked.relative:.3g}, above the tolerance {tolerance:g}"), plain(checked)
    return verdict, f"{reason} ({away}; measured again at {second.digits} digits)", plain(checked)


def unevaluated(why: str) -> Checked:
    return Checked(math.inf, None, [], [], None, why, math.inf, [], [], math.inf, 1.0)


def difference(problem: Problem, a: Mapping[str, sp.Expr], b: Mapping[str, sp.Expr], X: np.ndarray) -> float:
    va = np.column_stack([evaluate(a[f], problem.symbols, X) for f in problem.fields])
    vb = np.column_stack([evaluate(b[f], problem.symbols, X) for f in problem.fields])
    with np.errstate(all="ignore"):
        gap = float(np.linalg.norm(va - vb)) / max(float(np.linalg.norm(vb)), 1e-300)
    return gap if math.isfinite(gap) else math.inf


def rel_l2(problem: Problem, exprs: Mapping[str, sp.Expr], X: np.ndarray) -> float | None:
    if not problem.reference:
        return None
    return difference(problem, exprs, problem.reference, X)


def finite(value: float) -> float:
    value = float(value)
    return value if math.isfinite(value) else math.inf


def plain(c: Checked) -> dict[str, Any]:
    def num(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)
        return [num(x) for x in v] if isinstance(v, list) else v
    return {k: num(v) for k, v in asdict(c).items()}
