"""The allowance of a truncated series judged in L2 (docs/verify.md, "The numeric cross-check").

Where no proved tail bound holds on a target's points (data that disagree with the boundary: terms
~ 1/n at t = 0), the truncated sum converges there in L2 only.  The allowance is then a bound of the
L2 size of what the truncation leaves out, by Parseval's identity: for terms orthogonal on the set
(the eigenfunctions of a proved series are; docs/verify.md, part 3), the mean square of the tail
``sum_{n > N} a_n X_n`` over the set is ``sum_{n > N} mean(|a_n X_n|**2) <= sum_{n > N} M_n**2``,
with ``M_n`` a proved majorant of the term over the set's box (docs/series.md).  The squares of a
majorant ``C/n`` sum (``C**2/N``), though the majorant itself does not: the bound holds where the
pointwise one cannot.  Each sum's bound is added (Minkowski).  The points' root mean square is a
sample of that L2 size, so the allowance is :data:`SAMPLE_MARGIN` times the bound.

The points within :data:`EDGE` of an end of a variable along the set are left out: where the data
disagree with the boundary, the truncated sum's error is of the data's jump within about 1/N of the set's
edges (Gibbs), so one point there would make the points' root mean square far exceed the L2 size it
samples; away from them the true series' error is of the order of the tail's L2 size at every point.  The
mean square over the part kept is at most the whole set's divided by the share kept (at least
``1 - 2*EDGE*d`` of a box or a disk along ``d`` variables), so the bound is raised by that factor's root.

Where no majorant of a sum's terms is proved (a multiple sum, a term the majorants do not read), the
rule falls back to the last block of terms: three times its root mean square (from N/2 to N), granted
only where the blocks shrink on the points (from N/4 to N/2, then to N); that is a measurement, not a
bound, and the verdict says which rule applied.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from desyr.symbolic.series import outer_sums

#: how many times the proved L2 bound (or the last block of terms) the points' root mean square may be
SAMPLE_MARGIN = 3.0
#: the most the margin times the rule's size may add to the tolerance, as a share of the problem's scale Q
#: (docs/verify.md): the rule's size comes from the candidate's own terms, and a tail written to decay
#: slowly (a garbage sum from n = 1000) raised it until a wrong series was Verified; a truncation that
#: leaves out more than this is not judged, and the verdict says so
SHARE = 0.1
#: the most a proved bound of the terms left out may be, as a share of the tolerance, for the points to judge
#: a target: what is left out is not measured, so a wrong part hidden in the tail passes within any larger
#: allowance (a bump of 0.005 at n = 4010, past the 4000 terms kept, had been Verified; red team 44m)
JUDGED = 0.1
#: the share of each variable's range, at each end, whose points the L2 judgement leaves out (the set's edges)
EDGE = 0.01


@dataclass(frozen=True)
class Allowance:
    """What the L2 residual may be, and the rule that gave it."""

    size: float        # the tail's L2 bound, or the last block's root mean square (before the margin)
    allowed: float     # the tolerance plus the margin times ``size`` (the tolerance alone where no rule holds)
    rule: str          # "parseval", "blocks", "none", "coarse" or "too large"

    def said(self, tolerance_only: bool = False) -> str:
        if self.rule == "coarse":
            return (f"the tolerance only: the proved L2 bound of the terms left out, {self.size:.2g}, exceeds "
                    f"{JUDGED:g} of the tolerance (the terms kept leave too much out to judge)")
        if self.rule == "too large":
            return (f"the tolerance only: {SAMPLE_MARGIN:g} times the terms left out, {self.size:.2g}, exceeds "
                    f"{SHARE:g} of the problem's scale (the terms kept leave too much out to judge)")
        if self.rule == "parseval":
            return (f"the tolerance and {SAMPLE_MARGIN:g} times the proved L2 bound of the terms left out, "
                    f"{self.size:.2g} (Parseval, from the terms' majorant)")
        if self.rule == "blocks":
            return (f"the tolerance and {SAMPLE_MARGIN:g} times the last block of terms, {self.size:.2g} "
                    f"(no majorant of the terms proved; the blocks shrink on the points)")
        return (f"the tolerance only: no majorant of the terms is proved and the last block of terms, "
                f"{self.size:.2g}, does not shrink on the points")


def parseval_bound(residual: sp.Expr, X: np.ndarray, symbols: Sequence[sp.Symbol], terms: int,
                   bounds: np.ndarray | None = None) -> float | None:
    """A proved bound of the root mean square, over the set that ``X`` samples, of what keeping ``terms``
    terms of each infinite sum of ``residual`` leaves out (its terms orthogonal there); None where a sum
    is multiple or its term has no proved majorant whose squares sum. A variable that varies along the set
    is read over its whole range in ``bounds`` where given, not over the points drawn: a term that grows
    toward the set's edge (``y**n`` at n = 4500) was bounded by what the points reached, which depends on
    the seed (red team 44n)."""
    from desyr.symbolic.majorant import majorant
    if X.size == 0:
        return 0.0
    box = {s: (float(bounds[k][0]), float(bounds[k][1])) if bounds is not None and np.ptp(X[:, k]) > 0
           else (float(np.min(X[:, k])), float(np.max(X[:, k]))) for k, s in enumerate(symbols)}
    total = 0.0
    for s in outer_sums(residual):
        if len(s.limits) != 1 or s.function.has(sp.Sum) or s.limits[0][2] is not sp.oo:
            return None
        index, lower, _ = s.limits[0]
        found = majorant(s.function, index, {v: box[v] for v in s.function.free_symbols if v in box})
        if found is None:
            return None
        squares = found.times(found).tail(int(lower) + terms)
        if not math.isfinite(squares):
            return None
        total += math.sqrt(squares) * (1 + 1e-12)
    return total


def away_from_edges(X: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, float]:
    """Which of the set's points ``X`` lie at least :data:`EDGE` of its range from each end of every variable
    that varies along the set, and a lower bound of the share of the set kept (all points where none is)."""
    along = [k for k in range(X.shape[1]) if X.size and np.ptp(X[:, k]) > 0]
    keep = np.ones(len(X), dtype=bool)
    for k in along:
        lo, hi = float(bounds[k][0]), float(bounds[k][1])
        margin = EDGE * (hi - lo)
        keep &= (X[:, k] >= lo + margin) & (X[:, k] <= hi - margin)
    if not keep.any():
        return np.ones(len(X), dtype=bool), 1.0
    return keep, 1.0 - 2 * EDGE * len(along)


def allowance(tolerance: float, bound: float | None, block: float, before: float, scale: float) -> Allowance:
    """The L2 allowance: from the proved ``bound`` where there is one (and it is within :data:`JUDGED` of the
    tolerance, else the tolerance alone, "coarse"), else from the last ``block`` of terms where it is no
    larger than the one ``before`` it, else the tolerance alone; and the tolerance alone where the margin
    times that size exceeds :data:`SHARE` of the problem's ``scale``."""
    size = bound if bound is not None else block
    if not SAMPLE_MARGIN * size <= SHARE * scale:
        return Allowance(size, tolerance, "too large")
    if bound is not None and not bound <= JUDGED * tolerance:
        return Allowance(bound, tolerance, "coarse")
    if bound is not None:
        return Allowance(bound, tolerance + SAMPLE_MARGIN * bound, "parseval")
    if block <= before + tolerance:
        return Allowance(block, tolerance + SAMPLE_MARGIN * block, "blocks")
    return Allowance(block, tolerance, "none")
