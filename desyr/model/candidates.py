"""Candidate expressions as they move through Stages A, B and C."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields, replace
from typing import Any

import sympy as sp

from desyr.symbolic.expressions import complexity
from desyr.symbolic.series import rebuilt

#: field metadata: set by Stage B (refit, measurement and checked cleaning), so stored with a refit unit
STAGE_B = {"stage_b": True}


@dataclass
class RefitOutcome:
    """What a refiner returns for one candidate."""

    expressions: dict[str, sp.Expr]       # refined and simplified, per field
    status: str                           # converged | not_converged | timeout | failed | fixed
    converged: bool
    reason: str | None = None
    nfev: int = 0
    objective: float = float("nan")
    initial: list[float] = field(default_factory=list)
    params: list[float] = field(default_factory=list)
    starts: int = 0
    seconds: float = 0.0
    shared_rates: list[dict[str, Any]] = field(default_factory=list)   # coupled: rates tied to a shared parameter


@dataclass
class Candidate:
    """One candidate group (one expression per field) and everything measured on it."""

    id: str
    search_expressions: dict[str, sp.Expr]      # pre-refit, with search constants
    searcher: str = "user"
    search_seed: int | None = None
    search_complexity: int | None = None
    search_loss: float | None = None
    # Stage B sets the fields marked STAGE_B; a stored refit record holds exactly these (stage_b_fields)
    refit: RefitOutcome | None = field(default=None, metadata=STAGE_B)
    expressions: dict[str, sp.Expr] | None = field(default=None, metadata=STAGE_B)  # final (refined, maybe cleaned)
    cleaned: bool = field(default=False, metadata=STAGE_B)
    cleaning_note: str | None = field(default=None, metadata=STAGE_B)
    eps_T: float | None = field(default=None, metadata=STAGE_B)           # teacher relative error on X_S
    eps_T_fields: dict[str, float] | None = field(default=None, metadata=STAGE_B)
    rho_r: float | None = field(default=None, metadata=STAGE_B)           # RMS interior residual (refinement points)
    rho_c: float | None = field(default=None, metadata=STAGE_B)           # RMS constraint residual
    phi: float | None = field(default=None, metadata=STAGE_B)             # rho_r + sqrt(lambda_c) rho_c
    #: an inverse problem's unknowns: the exact values named, or why none (desyr.stages.unknowns)
    unknowns_note: str | None = field(default=None, metadata=STAGE_B)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def converged(self) -> bool:
        return bool(self.refit and self.refit.converged)

    @property
    def complexity(self) -> int:
        exprs = self.expressions or self.search_expressions
        return sum(complexity(e) for e in exprs.values())

    def finite(self) -> bool:
        import math
        values = [self.phi] + ([self.eps_T] if self.eps_T is not None else [])
        return self.expressions is not None and all(v is not None and math.isfinite(v) for v in values)


def topology(expr: sp.Expr) -> sp.Expr:
    """The tree with every Float replaced by the placeholder symbol ``c``, rebuilt without evaluation:
    ``1.5*cos(2.0*x) + 0.7*cos(3.0*x)`` stays two terms (evaluated, it merged into ``2*c*cos(c*x)``)."""
    c = sp.Symbol("c")

    def swap(node: sp.Basic) -> sp.Basic:
        if isinstance(node, sp.Float):
            return c
        args = [swap(a) for a in node.args]
        return rebuilt(node, args) if args != list(node.args) else node

    return swap(expr)


def stage_b_fields() -> tuple[str, ...]:
    """The :class:`Candidate` fields that Stage B sets, in declaration order: what a refit unit
    stores and what is copied back from it (one declaration, so no list can fall behind)."""
    return tuple(f.name for f in fields(Candidate) if f.metadata.get("stage_b"))


def refit_outcome_fields() -> tuple[str, ...]:
    """Every field of :class:`RefitOutcome`, in declaration order."""
    return tuple(f.name for f in fields(RefitOutcome))


def candidate_view(c: Candidate) -> Candidate:
    """A copy of ``c`` for a component to read (a gate, a refiner): its mappings and its refit outcome's
    are copies, the expressions in them the same immutable sympy objects, so nothing written to the view
    reaches ``c`` and :func:`changed_fields` tells what was written (no big array is copied)."""
    refit = c.refit
    if refit is not None:
        refit = replace(refit, expressions=dict(refit.expressions), initial=list(refit.initial),
                        params=list(refit.params), shared_rates=copy.deepcopy(refit.shared_rates))
    return replace(c, search_expressions=dict(c.search_expressions), refit=refit,
                   expressions=None if c.expressions is None else dict(c.expressions),
                   eps_T_fields=None if c.eps_T_fields is None else dict(c.eps_T_fields),
                   extra=copy.deepcopy(c.extra))


def changed_fields(c: Candidate, view: Candidate) -> list[str]:
    """The fields of ``view`` (from :func:`candidate_view`) that no longer equal ``c``'s."""
    if not isinstance(view, Candidate):
        return ["type"]
    changed = [f.name for f in fields(Candidate) if not _same(getattr(c, f.name), getattr(view, f.name, None))]
    return changed + sorted(set(vars(view)) - set(vars(c)))       # attributes a component added


def _same(a: Any, b: Any) -> bool:
    """Equal, with the identical objects an untouched view holds (a NaN included) equal."""
    try:
        return a is b or type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - a comparison that fails is a change
        return False
