"""Residual blocks of candidate expressions, their Jacobians and the physics scores.

Pure mathematics: expressions, points and weights in, arrays out. Which blocks a problem has
(its equations, constraints and observations) is :mod:`desyr.model.residuals`.

The candidate's derivatives come from sympy, the residual and its exact
Jacobian with respect to the parameters are lambdified together with common
subexpression elimination, and the last evaluation is cached because
``least_squares`` asks for the Jacobian at the point it has just evaluated.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

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


class Residuals:
    """Residual blocks over the problem's variables and the parameters: each block an expression
    evaluated (with its exact Jacobian in the parameters) on its own points. What the blocks are
    is decided above (:class:`desyr.model.residuals.ResidualSystem` builds them from a problem)."""

    def __init__(self, variables: Sequence[sp.Symbol], params: Sequence[sp.Symbol], coupled: bool = False) -> None:
        self.variables = list(variables)
        self.params = list(params)
        self.coupled = coupled           # several fields: scores aggregate per component
        self.blocks: list[Block] = []
        self._cache_key: bytes | None = None
        self._cache: list[list[np.ndarray]] = []

    def add(self, kind: str, index: int, expr: sp.Expr, points: np.ndarray, weight: float, jacobian: bool = True,
            reduction: np.ndarray | None = None, data: np.ndarray | None = None) -> Block:
        """Append the block of ``expr`` (appended last; the cache is cleared)."""
        block = self._block(kind, index, expr, points, weight, self.variables + self.params, jacobian)
        block.reduction, block.data = reduction, data
        self.blocks.append(block)
        self._cache_key = None
        return block

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


def scores(residuals: Residuals, constraint_weight: float) -> Scores:
    """Φ = ρ_r + sqrt(λ_c) ρ_c of the equation and constraint blocks; the constraint term is 0
    when there is no constraint."""
    rho_r = _aggregate([v for b, v in residuals.raw() if b.kind == "equation"], residuals.coupled) or 0.0
    rho_c = _aggregate([v for b, v in residuals.raw() if b.kind == "constraint"], residuals.coupled) or 0.0
    return Scores(rho_r, rho_c, phi_score(rho_r, rho_c, constraint_weight))


@dataclass
class Verification:
    R_eq: float
    R_con: float | None            # None when the problem has no constraint
    R_eq_per_equation: list[float]
    R_con_per_constraint: list[float]
    #: each residual over its scale (:mod:`desyr.symbolic.scales`): what "exact" is decided on
    relative_per_equation: list[float] = field(default_factory=list)
    relative_per_constraint: list[float] = field(default_factory=list)
    #: each residual over its data plus its terms' whole size: at round-off, only a proof can decide
    roundoff_per_equation: list[float] = field(default_factory=list)
    roundoff_per_constraint: list[float] = field(default_factory=list)
    #: the problem's scale Q: the largest RMS of one residual's data (1 without data)
    scale: float = 1.0
    #: each residual's own scale S_k = D_k + min(C_k, Q), which its relative value divides by
    size_per_equation: list[float] = field(default_factory=list)
    size_per_constraint: list[float] = field(default_factory=list)

    @property
    def relative(self) -> float:
        """The largest relative residual (0 without residuals)."""
        return max([*self.relative_per_equation, *self.relative_per_constraint], default=0.0)

    @property
    def roundoff(self) -> float:
        """The largest residual over its data plus its terms' whole size."""
        return max([*self.roundoff_per_equation, *self.roundoff_per_constraint], default=0.0)

