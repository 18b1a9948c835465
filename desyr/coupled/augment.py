"""Shared-factor augmentation for coupled problems (paper §3.5; Kovasznay settings, appendix B).

Rates of ``exp(r*x_q)`` factors found in the fields' candidates are clustered
(:func:`desyr.coupled.rates.cluster_rates`); clusters seen in two or more fields are
ranked and the first ``shared_clusters`` are kept.  Every field then gets
candidates built from those shared rates and its own trigonometric factors.

The paper leaves the shape of the added candidates open; DeSyR uses the
template ``c0 + c1*exp(k*r*x_q)*T`` where

* ``r`` is a kept cluster's median rate and ``x_q`` its variable,
* ``k`` runs over the integer multiples that rate tying accepts (1..4), so a
  field whose factor is ``exp(2*r*x)`` (the Kovasznay pressure) can share the
  base rate exactly,
* ``T`` is 1 or one of the field's trigonometric factors (at most three,
  ordered by the loss of the candidate they came from, tree size, then text),
* ``c0, c1`` are fitted to the field's teacher samples by linear least squares.

At most ``added_per_field`` templates are kept per field, taken alternately
from the teacher-fit ranking and the complexity ranking.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import sympy as sp

from desyr.config.spec import CoupledSettings
from desyr.coupled.rates import RateObservation, cluster_rates, exp_factors, shared_clusters
from desyr.model.context import RunContext
from desyr.symbolic.expressions import complexity, expression_text
from desyr.symbolic.numeric import evaluate

_T = TypeVar("_T")


@dataclass
class FieldCandidate:
    """One field's expression with its search-stage figures."""

    field: str
    expression: sp.Expr
    loss: float                   # mean squared error against the teacher samples
    eps_T: float                  # relative teacher error on X_S
    complexity: int
    origin: str                   # searcher name, or "augmented"
    seed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"expression": expression_text(self.expression), "eps_T": self.eps_T,
                "complexity": self.complexity, "origin": self.origin, "seed": self.seed}


def field_candidate(field: str, expr: sp.Expr, ctx: RunContext, origin: str, seed: int | None = None
                    ) -> FieldCandidate:
    j = ctx.problem.fields.index(field)
    assert ctx.teacher_values is not None, "coupled stages run after the teacher"
    target = ctx.teacher_values[:, j]
    values = evaluate(expr, ctx.problem.symbols, ctx.points.search)
    with np.errstate(all="ignore"):
        mse = float(np.mean((values - target) ** 2))
        eps = float(np.sqrt(mse / max(float(np.mean(target ** 2)), 1e-300)))
    if not (math.isfinite(mse) and math.isfinite(eps)):
        mse = eps = math.inf
    return FieldCandidate(field, expr, mse, eps, complexity(expr), origin, seed)


def alternate_rankings(items: Sequence[_T], keys: Sequence[Callable[[_T], Any]], limit: int) -> list[_T]:
    """Take the best not-yet-taken item from each ranking in turn until ``limit`` are taken."""
    rankings = [sorted(items, key=k) for k in keys]
    taken: list[_T] = []
    ids: set[int] = set()
    turn = 0
    while len(taken) < min(limit, len(items)):
        for item in rankings[turn % len(rankings)]:
            if id(item) not in ids:
                taken.append(item)
                ids.add(id(item))
                break
        turn += 1
    return taken


def _trig_factors(cands: list[FieldCandidate], limit: int) -> list[sp.Expr]:
    found: dict[str, tuple[float, int, str, sp.Expr]] = {}
    for c in cands:
        for node in sp.preorder_traversal(c.expression):
            if isinstance(node, (sp.sin, sp.cos)) and node.free_symbols:
                key = sp.srepr(node)
                entry = (c.loss, complexity(node), str(node), node)
                if key not in found or entry[:3] < found[key][:3]:
                    found[key] = entry
    return [e[3] for e in sorted(found.values(), key=lambda e: e[:3])[:limit]]


def _fit_template(factor: sp.Expr, field: str, ctx: RunContext) -> sp.Expr | None:
    g = evaluate(factor, ctx.problem.symbols, ctx.points.search)
    if not np.all(np.isfinite(g)):
        return None
    assert ctx.teacher_values is not None
    y = ctx.teacher_values[:, ctx.problem.fields.index(field)]
    A = np.column_stack([np.ones_like(g), g])
    (c0, c1), *_ = np.linalg.lstsq(A, y, rcond=None)
    if not (math.isfinite(c0) and math.isfinite(c1)):
        return None
    return sp.Float(float(c0)) + sp.Float(float(c1)) * factor


def augment_fields(per_field: dict[str, list[FieldCandidate]], ctx: RunContext, settings: CoupledSettings
                   ) -> tuple[dict[str, list[FieldCandidate]], dict[str, Any]]:
    """The added candidates per field and a record of the clusters behind them."""
    problem = ctx.problem
    observations = [RateObservation(c.field, factor.variable.name, factor.rate, c.loss)
                    for f in problem.fields for c in per_field[f]
                    for factor in exp_factors(c.expression, problem.symbols)]
    clusters = cluster_rates(observations, float(settings.cluster_tolerance))
    kept = shared_clusters(clusters, int(settings.shared_clusters))
    added: dict[str, list[FieldCandidate]] = {f: [] for f in problem.fields}
    symbol = problem.vocabulary.var_symbols
    for f in problem.fields:
        trig = _trig_factors(per_field[f], int(settings.trig_factors))
        templates = []
        for cluster in kept:
            for k in settings.multiples:
                exp_factor = sp.exp(sp.Float(k * cluster.median) * symbol[cluster.variable])
                for t in [sp.Integer(1)] + trig:
                    expr = _fit_template(exp_factor * t, f, ctx)
                    if expr is not None:
                        templates.append(field_candidate(f, expr, ctx, "augmented"))
        templates = [c for c in templates if math.isfinite(c.eps_T)]
        added[f] = alternate_rankings(templates, [lambda c: (c.loss, c.complexity), lambda c: (c.complexity, c.loss)],
                                      int(settings.added_per_field))
    info = {"observations": len(observations), "clusters": [c.as_dict() for c in clusters],
            "shared": [c.as_dict() for c in kept],
            "added": {f: [c.as_dict() for c in added[f]] for f in problem.fields}}
    return added, info
