"""Governing-equation and constraint residuals of candidate expressions.

The candidate's derivatives come from sympy, the residual and its exact
Jacobian with respect to the parameters are lambdified together with common
subexpression elimination, and the last evaluation is cached because
``least_squares`` asks for the Jacobian at the point it has just evaluated.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from desyr.model.constants import METHOD
from desyr.model.points import PointSets, VerificationPoints
from desyr.model.problem import Problem
from desyr.symbolic.numeric import broadcast, columns, lambdify


@dataclass
class Block:
    kind: str                 # "equation" or "constraint"
    index: int
    points: np.ndarray
    weight: float             # pointwise weight of the residual in the least-squares vector
    function: object          # lambdified: (*variables, *params) -> [R, dR/da_1, ...]
    with_jacobian: bool
    #: an integral constraint's quadrature weights (m, n): its m residuals are these sums of the integrand
    reduction: np.ndarray | None = None
    #: an observation block's measured values, subtracted from the field's values at its points
    data: np.ndarray | None = None


#: weight of an observation's squared misfit, against 1 for an interior residual and lambda_c for a
#: constraint's: the physics is exact and noisy data must not pull a formula off it, only choose
#: among the formulas it allows (where it allows a family, any weight picks the same member)
OBSERVATION_WEIGHT = 1.0

#: parameter values: a sequence of floats or a 1-D array (refiners pass scipy's arrays)
Params = Sequence[float] | np.ndarray


class ResidualSystem:
    """All residual blocks of one candidate group on one choice of points."""

    def __init__(self, problem: Problem, solution: Mapping[str, sp.Expr], params: Sequence[sp.Symbol],
                 interior: np.ndarray, constraint_points: Sequence[np.ndarray],
                 constraint_weight: float = METHOD.constraint_weight, jacobian: bool = True,
                 reductions: Sequence[np.ndarray | None] = ()) -> None:
        self.problem = problem
        self.params = list(params)
        args = problem.symbols + self.params
        root_weight = math.sqrt(constraint_weight)
        self.blocks: list[Block] = []
        for k, eq in enumerate(problem.equations):
            self.blocks.append(self._block("equation", k, problem.apply(eq.residual, solution),
                                           interior, 1.0, args, jacobian))
        for l, con in enumerate(problem.constraints):
            self.blocks.append(self._block("constraint", l, problem.constraint_residual(con, solution),
                                           constraint_points[l], root_weight, args, jacobian))
            if l < len(reductions):
                self.blocks[-1].reduction = reductions[l]
        self._cache_key: bytes | None = None
        self._cache: list[list[np.ndarray]] = []

    def _block(self, kind: str, index: int, expr: sp.Expr, points: np.ndarray, weight: float,
               args: Sequence[sp.Symbol], jacobian: bool) -> Block:
        outputs = [expr] + ([sp.diff(expr, a) for a in self.params] if jacobian else [])
        return Block(kind, index, points, weight, lambdify(args, outputs), jacobian)

    # ------------------------------------------------------------ evaluation
    def _evaluate(self, params: Params) -> list[list[np.ndarray]]:
        a = np.asarray(params, dtype=float)
        key = a.tobytes()
        if key != self._cache_key:
            out = []
            with np.errstate(all="ignore"):
                for block in self.blocks:
                    n = block.points.shape[0]
                    values = [broadcast(v, n) for v in block.function(*columns(block.points), *a)]  # type: ignore[operator]
                    if block.data is not None:
                        values[0] = values[0] - block.data
                    out.append(values if block.reduction is None else [block.reduction @ v for v in values])
            self._cache_key, self._cache = key, out
        return self._cache

    def vector(self, a: Params = ()) -> np.ndarray:
        """Weighted residual vector F(a) of the refit objective."""
        return np.concatenate([b.weight * vals[0] for b, vals in zip(self.blocks, self._evaluate(a))])

    def jacobian(self, a: Params = ()) -> np.ndarray:
        """Exact dF/da, rows matching :meth:`vector`."""
        parts = []
        for block, vals in zip(self.blocks, self._evaluate(a)):
            parts.append(block.weight * np.column_stack(vals[1:]) if self.params
                         else np.zeros((len(vals[0]), 0)))
        return np.vstack(parts)

    def raw(self, a: Params = ()) -> list[tuple[Block, np.ndarray]]:
        """Unweighted residual values per block."""
        return [(b, vals[0]) for b, vals in zip(self.blocks, self._evaluate(a))]


def for_refinement(problem: Problem, solution: Mapping[str, sp.Expr], params: Sequence[sp.Symbol],
                   points: PointSets, constraint_weight: float = METHOD.constraint_weight,
                   jacobian: bool = True) -> ResidualSystem:
    """The residual system a refiner minimises: equations on the refinement points and constraints, and
    for an inverse problem the misfit to the observations (with :data:`OBSERVATION_WEIGHT`; it is data,
    so :func:`physics_scores` leaves it out)."""
    system = ResidualSystem(problem, solution, params, points.refine, points.constraints, constraint_weight, jacobian,
                            points.reductions)
    return with_observations(system, solution, jacobian)


def with_observations(system: ResidualSystem, solution: Mapping[str, sp.Expr], jacobian: bool = True
                      ) -> ResidualSystem:
    """``system`` with one block per observed field (its misfit to the data, weighted by
    :meth:`~desyr.model.unknowns.Observations.weight`), appended last."""
    problem = system.problem
    obs = problem.observations
    if obs is not None and all(f in solution for f in obs.fields):
        for k, f in enumerate(obs.fields):
            block = system._block("observation", k, problem.apply(solution[f], solution), obs.X,
                                  math.sqrt(OBSERVATION_WEIGHT) * obs.weight(f), problem.symbols + system.params, jacobian)
            block.data = obs.column(f)
            system.blocks.append(block)
    return system


@dataclass
class Scores:
    """The physics scores of a solution: RMS interior and constraint residuals, and Phi."""

    rho_r: float              # RMS interior residual over all equations
    rho_c: float              # RMS constraint residual over all constraint components
    phi: float                # rho_r + sqrt(lambda_c) rho_c (eq. selection-score)


def rms(values: np.ndarray) -> float:
    values = np.asarray(values, dtype=float)
    if not values.size:
        return 0.0
    with np.errstate(over="ignore"):
        out = float(np.sqrt(np.mean(np.square(values))))
    if math.isinf(out) and np.isfinite(values).all():
        # finite residuals above 1e154 overflow when squared: the same RMS, computed scaled
        # (only then, so that ordinary residuals keep their exact values)
        scale = float(np.max(np.abs(values)))
        out = scale * float(np.sqrt(np.mean(np.square(values / scale))))
    return out


def _aggregate(values: list[np.ndarray], coupled: bool) -> float | None:
    """RMS over all points (scalar problems, eq. selection-score), or the RMS of the
    per-component RMS values (coupled problems, eq. coupled-selection-scores)."""
    if not values:
        return None
    if coupled:
        return rms(np.array([rms(v) for v in values]))
    return rms(np.concatenate(values))


def phi_score(rho_r: float, rho_c: float, constraint_weight: float) -> float:
    """Φ = ρ_r + sqrt(λ_c) ρ_c (eq. selection-score), the one place the formula is written."""
    return rho_r + math.sqrt(constraint_weight) * rho_c


def physics_scores(residuals: ResidualSystem, constraint_weight: float = METHOD.constraint_weight) -> Scores:
    """Φ = ρ_r + sqrt(λ_c) ρ_c on the refinement points; the constraint term is omitted
    when the problem has no constraint."""
    coupled = len(residuals.problem.fields) > 1
    rho_r = _aggregate([v for b, v in residuals.raw() if b.kind == "equation"], coupled) or 0.0
    rho_c = _aggregate([v for b, v in residuals.raw() if b.kind == "constraint"], coupled) or 0.0
    return Scores(rho_r, rho_c, phi_score(rho_r, rho_c, constraint_weight))


@dataclass
class Verification:
    R_eq: float
    R_con: float | None            # None when the problem has no constraint
    R_eq_per_equation: list[float]
    R_con_per_constraint: list[float]


def verify(problem: Problem, solution: Mapping[str, sp.Expr], points: PointSets | VerificationPoints) -> Verification:
    """R_eq on independent interior points, R_con on the constraint sets (eq. verification).

    For a scalar problem R_con weights each constraint set by its share of points, i.e.
    it is the RMS over all constraint points; coupled problems take the RMS of the
    per-component values, as the paper's coupled verification does.
    """
    interior = points.interior if isinstance(points, VerificationPoints) else points.verify
    residuals = ResidualSystem(problem, solution, [], interior, list(points.constraints), jacobian=False,
                               reductions=points.reductions)
    coupled = len(problem.fields) > 1
    eq = [v for b, v in residuals.raw() if b.kind == "equation"]
    con = [v for b, v in residuals.raw() if b.kind == "constraint"]
    return Verification(
        R_eq=_aggregate(eq, coupled) or 0.0,
        R_con=_aggregate(con, coupled),
        R_eq_per_equation=[rms(v) for v in eq],
        R_con_per_constraint=[rms(v) for v in con],
    )
