"""Decision records and the acceptance rule shared by constant identification and rewrites."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

import sympy as sp

from desyr.symbolic.expressions import expression_text

#: (R_eq, R_con); R_con is None for a problem without constraints
ResidualPair = tuple[float, Optional[float]]
Check = Callable[[Mapping[str, sp.Expr]], ResidualPair]


@dataclass(frozen=True)
class Acceptance:
    """When a changed expression still verifies like the numeric one.

    In the round-off regime (every numeric residual <= ``roundoff``) a change is
    accepted if each residual stays within ``max(ratio * before, atol)``: two float
    evaluations of the same function differ by a few ulps, so one decade of slack
    separates noise from a real change, and ``atol`` covers a numeric residual that
    happens to be exactly 0. Outside that regime nothing is at round-off, and a
    change must not make any residual worse by more than ``rtol`` (relative).
    """

    ratio: float = 10.0
    atol: float = 1e-12
    roundoff: float = 1e-8
    rtol: float = 1e-6

    def bound(self, before: float, regime_roundoff: bool) -> float:
        if regime_roundoff:
            return max(self.ratio * before, self.atol)
        return before * (1.0 + self.rtol) + self.atol

    def accepts(self, before: ResidualPair, after: ResidualPair | None) -> bool:
        if after is None:
            return False
        regime = all(b is None or b <= self.roundoff for b in before)
        for b, a in zip(before, after):
            if b is None and a is None:
                continue
            if b is None or a is None or not math.isfinite(a):
                return False
            if a > self.bound(b, regime):
                return False
        return True


@dataclass
class ConstantDecision:
    """One proposed closed form for one float constant."""

    value: float
    proposed: sp.Expr | None
    accepted: bool
    residuals_before: ResidualPair
    residuals_after: ResidualPair | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"value": float(self.value), "proposed": None if self.proposed is None else str(self.proposed),
                "accepted": self.accepted, "residuals_before": _pair(self.residuals_before),
                "residuals_after": _pair(self.residuals_after), "reason": self.reason}


@dataclass
class RewriteDecision:
    """One canonical rewrite of one field's expression."""

    name: str
    field: str
    before: sp.Expr
    after: sp.Expr
    accepted: bool
    residuals_before: ResidualPair
    residuals_after: ResidualPair | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "field": self.field, "before": expression_text(self.before),
                "after": expression_text(self.after), "accepted": self.accepted,
                "residuals_before": _pair(self.residuals_before),
                "residuals_after": _pair(self.residuals_after), "reason": self.reason}


def _pair(r: ResidualPair | None) -> list[float | None] | None:
    return None if r is None else [None if v is None else float(v) for v in r]


def safe_check(check: Check, exprs: Mapping[str, sp.Expr]) -> ResidualPair | None:
    """The residuals, or None when the expression cannot be evaluated (counts as a refusal)."""
    try:
        r_eq, r_con = check(dict(exprs))
    except Exception:  # an unevaluable proposal is refused, never fatal
        return None
    return (float(r_eq) if r_eq is not None else None, float(r_con) if r_con is not None else None)
