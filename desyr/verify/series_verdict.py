"""The verdict of a series answer: the numeric cross-check of its truncated sums, and its proof.

A series' residuals on points are those of a truncated sum.  Where the sums' proved tail bound holds
on a target's points (docs/series.md), the residual must be within the tolerance plus that bound,
pointwise.  Where none does (data that disagree with the boundary: terms ~ 1/n at t = 0), the sum
converges there only in L2: the residual's root mean square over the set's points must be within the
allowance of :mod:`desyr.verify.series_l2` (a proved Parseval bound of the terms left out, else the
last block of terms where the blocks shrink); a series that converges to something else is seen once
its error exceeds that allowance, a smaller error is left to the proof.
A series that passes is Verified; Proved also needs
:func:`desyr.verify.series_proof.prove_series` and a printed formula that is the proved one.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.symbolic.expressions import expression_text
from desyr.symbolic.series import merge_sums
from desyr.symbolic.simplify import bounded_simplify
from desyr.verify.budget import Budget
from desyr.verify.series_form import has_infinite_sum
from desyr.verify.series_identity import points
from desyr.verify.series_l2 import Allowance, allowance, away_from_edges, parseval_bound
from desyr.verify.series_proof import SeriesProof, prove_series
from desyr.verify.series_scales import sum_depth, target_sizes

#: the truncation's tolerance, relative to the sums' first terms (the tail bound is what is judged)
TRUNCATION = 1e-10
#: the most terms per index of a sum (a double sum: this many per index, squared)
CAP = {1: 4000, 2: 60, 3: 12}
#: the most of a target's fresh points a multiple sum is evaluated at (its cost is points times terms)
POINTS = {2: 400, 3: 100}
#: the most the tail bound of a pointwise judgement may be, as a share of the tolerance (more terms are kept
#: where the first truncation leaves more out)
FINER = 0.1
#: the fewest terms a truncation falls back to where more overflow in doubles
MIN_CAP = 50


@dataclass(frozen=True)
class Judged:
    """One target on the verifier's points."""

    name: str
    norm: str                 # "pointwise" or "L2"
    residual: float           # max |residual| or its root mean square
    allowed: float
    terms: int
    bound: float | None       # the tail bound (pointwise), or the size the L2 allowance is made of
    rule: Allowance | None = None   # how the L2 allowance was made
    size: float = 1.0         # what the tolerance is relative to: the target's own size

    @property
    def within(self) -> bool:
        return math.isfinite(self.residual) and self.residual <= self.allowed

    @property
    def unjudged(self) -> bool:
        """The points cannot decide this target: its truncation leaves out more than the tolerance, or
        no bound of the terms left out is proved (the last blocks shrinking is a measurement: a term that
        vanishes over them and returns past the cap, ``exp(-(n - 4500)**2)``, red team 44l)."""
        if self.rule is None:
            return False
        return self.rule.rule in ("too large", "coarse") or (self.rule.rule != "parseval" and self.within)

    @property
    def ok(self) -> bool:
        return self.within and not self.unjudged

    def describe(self) -> str:
        bound = math.nan if self.bound is None else self.bound
        if self.norm == "pointwise" and self.rule is not None:
            said = (f"|residual| <= {self.residual:.3g}, but the terms left out ({bound:.2g}, the tail bound) exceed "
                    f"the tolerance {self.allowed:.3g} (the terms kept leave too much out to judge)")
        elif self.norm == "pointwise":
            said = f"|residual| <= {self.residual:.3g} (allowed {self.allowed:.3g}: the tolerance and the tail bound {bound:.2g})"
        else:
            said = f"L2 residual {self.residual:.3g} on its points away from the set's edges (allowed {self.allowed:.3g}: {self.rule.said() if self.rule else ''})"
            if self.unjudged and self.rule is not None and self.rule.rule not in ("too large", "coarse"):
                said += ", but no bound of the terms left out is proved"
        return f"{self.name}: {said}, {self._terms_said()}"

    def _terms_said(self) -> str:
        if self.terms == 0:
            return "no sum left in its residual (the terms cancel in it identically: nothing truncated)"
        return f"{self.terms} terms kept of a sum (at most)"


def is_series(*forms: Mapping[str, sp.Expr] | None) -> bool:
    return any(form is not None and any(has_infinite_sum(e) for e in form.values()) for form in forms)


def cross_check(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints,
                tolerance: float, scale: float = 1.0, sizes: Sequence[float] | None = None) -> list[Judged]:
    """Each target's residual of the truncated series on the verifier's points, held to ``tolerance`` times
    its size (``sizes``, the equations' then the constraints', :func:`~desyr.verify.series_scales.
    target_sizes`; else the problem's ``scale`` Q, which bounds an L2 allowance)."""
    targets = [(f"equation {k + 1}", problem.apply(eq.lhs - eq.forcing, exprs), points.interior)
               for k, eq in enumerate(problem.equations)]
    targets += [(f"constraint {con.label}", problem.constraint_residual(con, exprs), X)
                for con, X in zip(problem.constraints, points.constraints)]
    sizes = list(sizes) if sizes is not None else [scale] * len(targets)
    reductions = [None] * len(problem.equations) + [
        points.reductions[l] if con.kind == "integral" and l < len(points.reductions) else None
        for l, con in enumerate(problem.constraints)]
    # an L2 allowance is bounded by the target's own size too: a field's data elsewhere (Q of 1e12) had let a
    # slowly shrinking tail of 1e7 stand as the allowance of a target of size 1 (red team 44j)
    return [replace(_judge(problem, name, residual, X, tolerance * size, min(size, scale)) if G is None
                    else _judge_integral(problem, name, residual, X, G, tolerance * size), size=size)
            for (name, residual, X), size, G in zip(targets, sizes, reductions)]


def _judge_integral(problem: Problem, name: str, integrand: sp.Expr, X: np.ndarray, reduction: np.ndarray,
                    tolerance: float) -> Judged:
    """An integral constraint: its integrand at the rule's nodes, summed by the rule (``reduction``), each
    integral within the tolerance plus the tail bound times the rule's weights; with no tail bound, left to
    the proof (its integrand had been judged at each node, and a true series with its mean was refused,
    red team 44j)."""
    from desyr.symbolic.numeric import evaluate_series
    integrand = _combined(integrand, problem)
    full = evaluate_series(integrand, problem.symbols, X, TRUNCATION, CAP.get(sum_depth(integrand), 20))
    with np.errstate(all="ignore"):
        values = reduction @ np.asarray(full.values, dtype=float)
    worst = float(np.max(np.abs(values))) if values.size and np.all(np.isfinite(values)) else math.inf
    if not integrand.has(sp.Sum):       # the sums cancel in it: nothing truncated
        return Judged(name, "pointwise", worst, tolerance, 0, None)
    if full.bound is None or full.capped:
        return Judged(name, "pointwise", worst, tolerance, full.terms, full.bound,
                      Allowance(math.inf, tolerance, "too large"))
    bound = full.bound * float(np.max(np.sum(np.abs(reduction), axis=1)))
    if bound > tolerance * FINER:       # as for a pointwise target: a wrong part could hide in what is left out
        return Judged(name, "pointwise", worst, tolerance, full.terms, bound, Allowance(bound, tolerance, "too large"))
    return Judged(name, "pointwise", worst, tolerance + bound, full.terms, bound)


def _combined(expr: sp.Expr, problem: Problem) -> sp.Expr:
    """``expr`` multiplied out with each sum held as one symbol (a sum that cancels, ``2*S - 2*S``, is gone),
    then the sums over the same ranges merged (``Sum(u_t) - Sum(u_xx)``), and a merged sum whose term is 0
    (SymPy's simplification within 4 s, witnessed at a few indices and points) dropped: its value is 0,
    and thousands of its terms need not be evaluated."""
    held = {s: sp.Dummy("sum") for s in expr.atoms(sp.Sum)}
    if not held:
        return expr
    expr = merge_sums(sp.expand(expr.xreplace(held)).xreplace({d: s for s, d in held.items()}))
    return expr.xreplace({s: sp.Integer(0) for s in expr.atoms(sp.Sum) if _zero_term(s, problem)})


def _zero_term(total: sp.Sum, problem: Problem) -> bool:
    from desyr.verify.series_identity import witnessed
    term = total.function
    while isinstance(term, sp.Sum):
        term = term.function
    simpler = bounded_simplify(term, max_nodes=1500, seconds=4.0)
    if simpler is None or simpler != 0:
        return False
    indices = {limit[0]: int(limit[1]) for s in [total, *total.atoms(sp.Sum)] for limit in s.limits}
    ranges = {v: (sp.Rational(lo).limit_denominator(10**6), sp.Rational(hi).limit_denominator(10**6))
              for v, (lo, hi) in zip(problem.symbols, problem.bounds)}
    at = points(b"cross-check", "zero term", {v: r for v, r in ranges.items() if term.has(v)}, indices)
    return witnessed(term, at, indices)


def _judge(problem: Problem, name: str, residual: sp.Expr, X: np.ndarray, tolerance: float, scale: float) -> Judged:
    from desyr.symbolic.numeric import evaluate_series
    residual = _combined(residual, problem)
    depth = sum_depth(residual)
    cap = CAP.get(depth, 20)
    X = X[: POINTS.get(depth, len(X))]
    full = evaluate_series(residual, problem.symbols, X, TRUNCATION, cap)
    values = np.asarray(full.values, dtype=float)
    while not np.all(np.isfinite(values)) and cap > MIN_CAP:
        # a term that overflows in doubles far out (sinh(n*pi)): fewer terms, judged in L2 below
        cap //= 4
        full = evaluate_series(residual, problem.symbols, X, 0.0, cap)
        values = np.asarray(full.values, dtype=float)
    if full.bound is not None and not full.capped and full.bound > tolerance * FINER:
        # the tail left out must be small beside the tolerance, not beside the sums' first terms: terms of
        # 10**12 cut at 1e-10 of their size leave 100 out, and a residual of 1 passed within it (red team 44h)
        finer = evaluate_series(residual, problem.symbols, X, TRUNCATION * tolerance * FINER / full.bound, cap)
        if np.all(np.isfinite(np.asarray(finer.values, dtype=float))):
            full, values = finer, np.asarray(finer.values, dtype=float)
    if full.bound is not None and not full.capped:
        worst = float(np.max(np.abs(values))) if values.size else 0.0
        # the terms left out are not measured: a bound above a tenth of the tolerance could hide a wrong part
        # (as in L2, series_l2.JUDGED), and the truncation cannot tell a residual within the tolerance
        if full.bound > tolerance * FINER:
            rule = Allowance(full.bound, tolerance, "too large")
            return Judged(name, "pointwise", worst, tolerance, full.terms, full.bound, rule)
        return Judged(name, "pointwise", worst, tolerance + full.bound, full.terms, full.bound)
    half, quarter = (np.asarray(evaluate_series(residual, problem.symbols, X, 0.0, max(1, full.terms // d)).values,
                                dtype=float) for d in (2, 4))
    kept, share = away_from_edges(X, problem.bounds)
    values, half, quarter = values[kept], half[kept], quarter[kept]
    block, before = _rms(values - half), _rms(half - quarter)
    terms = min((s.terms for s in full.report.sums), default=full.terms)   # the fewest: the largest tail
    bound = parseval_bound(residual, X, problem.symbols, terms, problem.bounds)
    rule = allowance(tolerance, None if bound is None else bound / math.sqrt(share), block, before, scale)
    if cap < CAP.get(depth, 20) and rule.rule in ("blocks", "none"):
        # cut where terms overflow: the blocks measured say nothing of the terms past the cut (a coefficient of
        # 10 at n = 100 of a series cut at 62 terms, red team 44h); only a proved bound speaks for them
        rule = Allowance(rule.size, tolerance, "too large")
    return Judged(name, "L2", _rms(values), rule.allowed, full.terms, rule.size, rule)


def _described(targets: Sequence[Judged]) -> str:
    return "; nor ".join(j.describe() for j in targets)


def _rms(values: np.ndarray) -> float:
    if values.size == 0:
        return 0.0
    with np.errstate(all="ignore"):
        value = float(np.sqrt(np.mean(np.square(values))))
    return value if math.isfinite(value) else math.inf


Decision = tuple[str, str, dict[str, Any], dict[str, Any] | None]


def decision(problem: Problem, numeric: Mapping[str, sp.Expr], exact: Mapping[str, sp.Expr] | None,
             points: VerificationPoints, tolerance: float, budget: Budget) -> Decision:
    """``(verdict, reason, residuals, exact_part)`` of a series answer, each part within its share of
    ``budget``: the smoothness of its first terms, the truncated sums on the points, the proof."""
    from desyr.model.scaled import problem_scale
    rough = _rough(problem, numeric, budget, terms=False)
    if rough:
        return "not_exact", rough, _residuals([], 1.0), None
    scale = problem_scale(problem, points.interior, points.constraints, points.reductions)
    def evaluated() -> list[Judged] | str:
        return cross_check(problem, numeric, points, tolerance, scale, target_sizes(problem, numeric, points, scale))

    def late(why: str) -> list[Judged] | str:
        return why

    judged = budget.within("residuals", evaluated, late)
    if isinstance(judged, str):
        return "not_exact", f"the truncated series on the fresh points was {judged}", _residuals([], scale), None
    residuals = _residuals(judged, scale)
    failed = [j for j in judged if not j.ok]
    # a target whose kept terms leave too much out to judge on points is left to the proof alone: such a
    # series can be Proved, never Verified (a candidate's own slow tail must not buy it an allowance)
    unjudged = [j for j in failed if j.unjudged]
    wrong = [j for j in failed if not j.unjudged]
    if wrong:
        return "not_exact", f"the truncated series does not meet {wrong[0].describe()}", residuals, None
    said = "; ".join(j.describe() for j in judged if j.ok)
    numbers = f"the truncated series meets every target on fresh points ({said})" if not unjudged else (
        f"the truncated series meets the other targets on fresh points ({said}); "
        f"{'; '.join(j.describe() for j in unjudged)}: left to the proof")
    floats = any(e.atoms(sp.Float) for e in numeric.values())
    form = exact if exact is not None else (None if floats else numeric)
    if form is None and unjudged:
        return "not_exact", f"the points cannot judge {_described(unjudged)}", residuals, None
    if form is None:
        return "verified", f"{numbers}; not proved: constants not identified (float constants, no exact form)", \
            residuals, {"proved": False, "reason": "constants not identified", "expressions": None}
    proof = budget.within("proof", lambda: prove_series(problem, form),
                          lambda late: SeriesProof(False, f"the series proof was {late}"))
    part: dict[str, Any] = {"expressions": {f: expression_text(form[f]) for f in problem.fields},
                            "proved": proof.proved, "reason": proof.reason, "parts": dict(proof.parts),
                            "steps": [{"residual": n, "zero": ok} for n, ok in proof.steps], "printed": None}
    if not proof.proved:
        rough = _rough(problem, numeric, budget, terms=True)       # terms no proof vouches for
        if rough:
            return "not_exact", f"{rough}; and {proof.reason}", residuals, part
        if unjudged:
            return "not_exact", f"the points cannot judge {_described(unjudged)}; and not proved: " \
                f"{proof.reason}", residuals, part
        return "verified", f"{numbers}; not proved: {proof.reason}", residuals, part
    if any(sp.srepr(numeric[f]) != sp.srepr(form[f]) for f in problem.fields):
        if unjudged:
            return "not_exact", f"the points cannot judge {_described(unjudged)}; the exact form is " \
                "proved, but the printed series is not it", residuals, part
        part["printed"] = "the printed series is not the proved exact form (a series' floats are not matched to it)"
        return "verified", f"{numbers}; the exact form is proved ({proof.reason}), but {part['printed']}", residuals, part
    return "proved", f"{proof.reason}; {numbers}", residuals, part


def _rough(problem: Problem, exprs: Mapping[str, sp.Expr], budget: Budget, terms: bool) -> str | None:
    """Why the series is not smooth enough (the rules of docs/verify.md), or None: its finite part, or, with
    ``terms``, its first terms written out as well; a named eigenvalue of a written-out term is its value
    (an interval encloses a number, not the function). A proved series' terms need no such check: each is
    a product of eigenfunctions, analytic inside the domain."""
    from desyr.verify.regularity import REASON, rough_reason
    from desyr.verify.series_form import NotASeries, split_answer
    from desyr.verify.series_roots import numeric
    from desyr.verify.truncated import written_out

    def read() -> dict[str, sp.Expr]:
        if terms:
            return {f: numeric(e) for f, e in written_out(exprs).items()}
        out = {}
        for f, e in exprs.items():
            try:
                out[f] = split_answer(e, set(problem.variable_names)).finite
            except NotASeries:
                out[f] = numeric(written_out({f: e})[f])
        return out

    return budget.within("smoothness", lambda: rough_reason(problem, read()),
                         lambda late: f"{REASON}: its smoothness and branch conditions were {late}")


def _residuals(judged: list[Judged], scale: float) -> dict[str, Any]:
    """The residuals in the verdict's shape (absolute and relative to the problem's scale), from the
    cross-check."""
    equations = [j.residual for j in judged if j.name.startswith("equation")]
    constraints = [j.residual for j in judged if not j.name.startswith("equation")]

    def plain(v: float) -> float | str:
        return v if math.isfinite(v) else str(v)
    return {"R_eq": plain(max(equations, default=0.0)), "R_con": plain(max(constraints, default=0.0)) if constraints
            else None, "R_eq_per_equation": [plain(v) for v in equations],
            "R_con_per_constraint": [plain(v) for v in constraints], "rel_l2": None, "smooth": None,
            "relative": plain(max((j.residual / j.size for j in judged), default=0.0)),
            "relative_per_equation": [plain(j.residual / j.size) for j in judged if j.name.startswith("equation")],
            "relative_per_constraint": [plain(j.residual / j.size) for j in judged
                                        if not j.name.startswith("equation")], "roundoff": 0.0, "scale": scale,
            "series": [{"target": j.name, "norm": j.norm, "residual": plain(j.residual), "allowed": plain(j.allowed),
                        "terms": j.terms, "bound": None if j.bound is None else plain(j.bound), "size": plain(j.size)}
                       for j in judged]}
