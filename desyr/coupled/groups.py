"""Coupled multi-field problems (paper §3.5): from fieldwise pools to one selected group.

Stage A has already searched every field on its own teacher output.  Here:

1. shared-factor augmentation (:mod:`desyr.coupled.augment`) adds candidates built from
   exponential rates found in two or more fields;
2. each field gets a shortlist: finite, non-duplicate, teacher-compatible
   (eps_T,f <= 3 min eps_T,f + 1e-8) and balanced between fit and complexity;
3. the Cartesian product of the shortlists is ranked, before any refit, by
   joint Phi with the search constants, mean eps_T and total complexity;
4. the best groups are refit jointly on a screening subset (one start, capped
   evaluations) and the gate sequence picks one group;
5. that group alone is refit on the full refinement set with the standard
   multi-start; the competition is not reopened.

Each step is a function that :func:`desyr.api.run` calls in turn, as for one field:
:func:`coupled_groups` (1-3), Stage B on :func:`screening_context` with
:func:`screening_refiner` and the gates (4), then :func:`refit_winner` (5).
"""
from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from desyr.config.spec import CoupledSettings
from desyr.coupled.augment import FieldCandidate, alternate_rankings, augment_fields, field_candidate
from desyr.extension.roles import Refiner
from desyr.model.candidates import Candidate
from desyr.model.constants import METHOD, MethodConstants
from desyr.model.context import CoupledInfo, RunContext
from desyr.model.outcomes import CoupledGroups, RefitPassOutcome, Selection
from desyr.model.problem import Problem
from desyr.model.unknowns import starting_values
from desyr.stages.pool import PooledCandidate
from desyr.stages.refit import refine_pool
from desyr.symbolic.numeric import broadcast, columns, lambdify
from desyr.symbolic.physics import phi_score


# --------------------------------------------------------------- shortlists
def shortlist(cands: list[FieldCandidate], size: int, method: MethodConstants = METHOD
              ) -> tuple[list[FieldCandidate], dict[str, int]]:
    """Finite, non-duplicate, teacher-compatible (the teacher gate's limit), then a fit/complexity-balanced subset."""
    unique: dict[str, FieldCandidate] = {}
    for c in cands:
        if math.isfinite(c.eps_T):
            unique.setdefault(sp.srepr(c.expression), c)
    pool = list(unique.values())
    if not pool:
        return [], {"finite": 0, "compatible": 0}
    best = min(c.eps_T for c in pool)
    compatible = [c for c in pool if c.eps_T <= method.teacher_factor * best + method.teacher_absolute]
    chosen = alternate_rankings(compatible, [lambda c: (c.eps_T, c.complexity), lambda c: (c.complexity, c.eps_T)],
                                size)
    return chosen, {"finite": len(pool), "compatible": len(compatible)}


# -------------------------------------------------------- group pre-ranking
class FieldJets:
    """Every jet of one field expression on the screening and constraint points."""

    def __init__(self, problem: Problem, field: str, expr: sp.Expr, point_sets: list[np.ndarray]):
        jets = [j for j in problem.jets() if j.field == field]
        derivs = [problem.apply(problem.jet_symbol(j), {field: expr}) for j in jets]
        fn = lambdify(problem.symbols, derivs)
        self.values: list[dict[sp.Symbol, np.ndarray]] = []
        with np.errstate(all="ignore"):
            for X in point_sets:
                out = fn(*columns(X)) if derivs else []
                self.values.append({problem.jet_symbol(j): broadcast(v, X.shape[0]) for j, v in zip(jets, out)})


class GroupScorer:
    """Joint Phi of a field combination from precomputed jets (no per-group sympy work)."""

    def __init__(self, problem: Problem, interior: np.ndarray, constraint_points: Sequence[np.ndarray],
                 constraint_weight: float, unknowns: Mapping[str, sp.Expr] | None = None):
        self.problem, self.constraint_weight = problem, constraint_weight
        self.point_sets = [interior] + list(constraint_points)
        jet_syms = [problem.jet_symbol(j) for j in problem.jets()]
        self.jet_syms = jet_syms
        args = problem.symbols + jet_syms
        # an inverse problem's groups are ranked at the unknowns' starting values
        given = dict(unknowns or {})
        self.terms = [(0, lambdify(args, [problem.resolved(e.residual, given)])) for e in problem.equations]
        # periodic and integral constraints need the fields at other points than their own: the screen
        # leaves them to the joint refit, which evaluates them whole
        self.terms += [(1 + l, lambdify(args, [problem.resolved(c.residual, given)]))
                       for l, c in enumerate(problem.constraints)
                       if c.kind == "pointwise"]
        self.n_eq = len(problem.equations)

    def phi(self, jets: list[FieldJets]) -> float:
        rms = []
        with np.errstate(all="ignore"):
            for where, fn in self.terms:
                X = self.point_sets[where]
                merged = {}
                for fj in jets:
                    merged.update(fj.values[where])
                values = broadcast(fn(*columns(X), *[merged.get(s, 0.0) for s in self.jet_syms])[0], X.shape[0])
                rms.append(float(np.sqrt(np.mean(np.square(values)))))
        eq, con = rms[:self.n_eq], rms[self.n_eq:]
        value = phi_score(_rms(eq), _rms(con) if con else 0.0, self.constraint_weight)
        return value if math.isfinite(value) else math.inf


def _rms(values: list[float]) -> float:
    return float(np.sqrt(np.mean(np.square(values))))


@dataclass
class RankedGroup:
    members: tuple[FieldCandidate, ...]
    phi: float
    eps_T: float
    complexity: int

    @property
    def key(self) -> tuple[float, float, int]:
        return (self.phi, self.eps_T, self.complexity)


def rank_groups(problem: Problem, shortlists: dict[str, list[FieldCandidate]], scorer: GroupScorer) -> list[RankedGroup]:
    jets = {f: [FieldJets(problem, f, c.expression, scorer.point_sets) for c in shortlists[f]] for f in problem.fields}
    ranked = []
    for combo in itertools.product(*(range(len(shortlists[f])) for f in problem.fields)):
        members = tuple(shortlists[f][i] for f, i in zip(problem.fields, combo))
        phi = scorer.phi([jets[f][i] for f, i in zip(problem.fields, combo)])
        ranked.append(RankedGroup(members, phi, float(np.mean([m.eps_T for m in members])),
                                  sum(m.complexity for m in members)))
    ranked.sort(key=lambda g: g.key)
    return ranked


def group_candidate(i: int, group: RankedGroup, fields: Sequence[str]) -> Candidate:
    seeds = [m.seed for m in group.members if m.seed is not None]
    return Candidate(f"g{i}", {f: m.expression for f, m in zip(fields, group.members)},
                     searcher="+".join(sorted({m.origin for m in group.members})),
                     search_seed=min(seeds) if seeds else None, search_complexity=group.complexity,
                     search_loss=group.eps_T,
                     extra={"pre_rank": i, "pre_refit_phi": group.phi,
                            "origins": {f: m.origin for f, m in zip(fields, group.members)}})


# ----------------------------------------------------------------- stages
def screening_context(ctx: RunContext, n_points: int) -> RunContext:
    """The run context with the interior refinement set reduced to a seeded subset."""
    refine = ctx.points.refine
    if n_points < refine.shape[0]:
        rng = np.random.default_rng([ctx.seed, 750])
        refine = refine[np.sort(rng.choice(refine.shape[0], n_points, replace=False))]
    return replace(ctx, points=replace(ctx.points, refine=refine))


def screening_refiner(refiner: Refiner, settings: CoupledSettings) -> Refiner:
    """The configured refiner's own cheap variant (:meth:`Refiner.screening`)."""
    return refiner.screening(settings.screening_starts, settings.screening_max_nfev)


def coupled_groups(pooled: Mapping[str, list[PooledCandidate]], searcher: str, settings: CoupledSettings,
                   ctx: RunContext, screening: RunContext) -> CoupledGroups:
    """Steps 1-3 of the module docstring: the best groups, as candidates for the screening refit
    (``screening``: the context of :func:`screening_context`, whose points rank the groups)."""
    problem = ctx.problem
    per_field = {f: [field_candidate(f, e.member.expression, ctx, e.searcher or searcher, e.seed) for e in entries]
                 for f, entries in pooled.items()}
    start = time.perf_counter()
    added, augment_info = augment_fields(per_field, ctx, settings)
    lists, list_info = {}, {}
    for f in problem.fields:
        lists[f], list_info[f] = shortlist(per_field[f] + added[f], settings.shortlist, ctx.method)
        if not lists[f]:
            # no group can be formed: the attempt ends with no candidate (a result, Not exact), as a field's
            # empty pool does (searchers stopped by the budget left nothing), never an error
            ctx.progress.message(f"coupled: field '{f}': no finite candidate reached the shortlist")
    scorer = GroupScorer(problem, screening.points.refine, screening.points.constraints, ctx.constraint_weight,
                         starting_values(problem.unknowns, ctx.unknown_estimates))
    ranked = rank_groups(problem, lists, scorer)
    screened = [group_candidate(i, g, problem.fields) for i, g in enumerate(ranked[:settings.screened_groups])]
    ctx.progress.message(f"coupled: {len(ranked)} group(s) from shortlists "
                         f"{' x '.join(str(len(lists[f])) for f in problem.fields)}; screening the best {len(screened)}")
    info = CoupledInfo(
        settings=settings.as_dict(), augmentation=augment_info,
        shortlists={f: {**list_info[f], "kept": [c.as_dict() for c in lists[f]]} for f in problem.fields},
        groups=len(ranked), screened=len(screened), screening_seconds=0.0)
    return CoupledGroups(screened, info, time.perf_counter() - start)


def screened_info(groups: CoupledGroups, screening: RefitPassOutcome, selection: Selection) -> CoupledInfo:
    """The coupled record once the gates chose a group: screening covers steps 1-4."""
    seconds = groups.seconds + screening.seconds + selection.seconds
    return replace(groups.info, screening_seconds=round(seconds, 3))


def refit_winner(selection: Selection, refiner: Refiner, ctx: RunContext) -> RefitPassOutcome:
    """Full-set joint refit of the selected group; its screening figures are kept in ``extra``."""
    chosen = selection.selected
    if chosen is None:
        return RefitPassOutcome(0, {}, 0.0)
    assert chosen.refit is not None, "every screened group was refit"
    chosen.extra["screening"] = {"status": chosen.refit.status, "phi": chosen.phi, "eps_T": chosen.eps_T,
                                 "complexity": chosen.complexity, "nfev": chosen.refit.nfev}
    chosen.cleaned, chosen.cleaning_note = False, None
    return refine_pool([chosen], refiner, ctx, scope="winner")
