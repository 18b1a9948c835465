"""Least squares on frozen topologies for the studies: physics-only, teacher-only, mixed, noisy constraints.

The studies vary one thing at a time (the objective, the start, the constraint data), so
they solve with one solver: ``scipy.optimize.least_squares`` (trf, exact Jacobian, tight
tolerances) followed by a few Gauss-Newton steps that are kept only if they lower the
objective, as Stage B's scipy refiner does.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from scipy.optimize import least_squares

from desyr.model.constants import METHOD
from desyr.model.points import PointSets
from desyr.model.problem import Problem
from desyr.model.residuals import Params, ResidualSystem, for_refinement
from desyr.symbolic.numeric import broadcast, columns, lambdify
from desyr.symbolic.parameterize import Parameterization, parameterize

Vec = Any    # a parameter vector: a sequence of floats or a 1-D array


@dataclass
class Frozen:
    """A frozen scalar topology: the parameterized tree and its residual system."""

    problem: Problem
    field: str
    param: Parameterization
    system: ResidualSystem

    def expressions(self, values: Vec) -> dict[str, sp.Expr]:
        return {self.field: self.param.substitute(list(values))}


def freeze(problem: Problem, expr: sp.Expr, points: PointSets, constraint_weight: float = METHOD.constraint_weight) -> Frozen:
    field = problem.fields[0]
    param = parameterize(expr)
    system = for_refinement(problem, {field: param.expression}, param.symbols, points, constraint_weight)
    return Frozen(problem, field, param, system)


class NoisyConstraints(ResidualSystem):
    """A residual system whose prescribed constraint values carry additive noise (one array per
    constraint block): residual = operator - (value + noise)."""

    noise: list[np.ndarray | None]

    def _evaluate(self, params: Params) -> list[list[np.ndarray]]:
        out = super()._evaluate(params)
        noise = getattr(self, "noise", None) or [None] * len(out)
        return [[v[0] - n] + list(v[1:]) if n is not None else v for v, n in zip(out, noise)]


class DataTerm:
    """u(X_S; a) - teacher and its exact Jacobian in a."""

    def __init__(self, frozen: Frozen, X: np.ndarray, target: np.ndarray) -> None:
        p = frozen.param
        outputs = [p.expression] + [sp.diff(p.expression, s) for s in p.symbols]
        self.fn = lambdify(frozen.problem.symbols + p.symbols, outputs)
        self.X, self.target = X, np.asarray(target, float)

    def _values(self, a: Vec) -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            return [broadcast(v, len(self.X)) for v in self.fn(*columns(self.X), *a)]

    def vector(self, a: Vec) -> np.ndarray:
        residual: np.ndarray = self._values(a)[0] - self.target
        return residual

    def jacobian(self, a: Vec) -> np.ndarray:
        stacked: np.ndarray = np.column_stack(self._values(a)[1:])
        return stacked


def solve(fun: Callable[[Vec], np.ndarray], jac: Callable[[Vec], np.ndarray], x0: Vec, polish_steps: int = 8) -> tuple[np.ndarray, bool, int]:
    """least_squares (trf, tight tolerances) then Gauss-Newton polish; (x, converged, nfev)."""
    x0 = np.asarray(x0, float)
    if x0.size == 0:
        return x0, True, 0
    try:
        res = least_squares(fun, x0, jac=jac, method="trf", ftol=1e-12, xtol=1e-12, gtol=1e-12,
                            x_scale="jac", max_nfev=200 * max(1, x0.size))
    except (ValueError, FloatingPointError, OverflowError, ZeroDivisionError):
        return x0, False, 0
    x, converged, nfev = res.x, bool(res.status > 0), int(res.nfev)
    f = fun(x)
    cost = float(f @ f)
    for _ in range(polish_steps):
        J = jac(x)
        norms = np.linalg.norm(J, axis=0)
        norms[norms == 0] = 1.0
        with np.errstate(all="ignore"):
            trial = x + np.linalg.lstsq(J / norms, -f, rcond=None)[0] / norms
            f_trial = fun(trial)
            c_trial = float(f_trial @ f_trial)
        if not (np.all(np.isfinite(trial)) and np.isfinite(c_trial)) or c_trial >= cost:
            break
        x, f, cost = trial, f_trial, c_trial
    return x, converged and bool(np.all(np.isfinite(x))), nfev


def physics_only(frozen: Frozen, x0: Vec) -> tuple[np.ndarray, bool]:
    x, ok, _ = solve(frozen.system.vector, frozen.system.jacobian, x0)
    return x, ok


def teacher_only(frozen: Frozen, data: DataTerm, x0: Vec) -> tuple[np.ndarray, bool]:
    x, ok, _ = solve(data.vector, data.jacobian, x0)
    return x, ok


def mixed(frozen: Frozen, data: DataTerm, beta: float, x0: Vec) -> tuple[np.ndarray, bool]:
    """min |u(X_S) - T|^2 + beta |F(a)|^2: the physics residuals carry weight sqrt(beta)."""
    w = float(np.sqrt(beta))

    def fun(a: Vec) -> np.ndarray:
        return np.concatenate([w * frozen.system.vector(a), data.vector(a)])

    def jac(a: Vec) -> np.ndarray:
        return np.vstack([w * frozen.system.jacobian(a), data.jacobian(a)])

    x, ok, _ = solve(fun, jac, x0)
    return x, ok


def jacobian_audit(frozen: Frozen, a: Vec) -> dict[str, float | int]:
    """Rank, smallest singular value and condition number of the exact dF/da at ``a``."""
    J = frozen.system.jacobian(a)
    s = np.linalg.svd(J, compute_uv=False)
    tol = s.max() * max(J.shape) * np.finfo(float).eps if s.size else 0.0
    rank = int(np.sum(s > tol))
    return {"parameters": int(J.shape[1]), "rows": int(J.shape[0]), "rank": rank,
            "full_rank": rank == J.shape[1], "sigma_min": float(s.min()) if s.size else 0.0,
            "sigma_max": float(s.max()) if s.size else 0.0,
            "condition": float(s.max() / s.min()) if s.size and s.min() > 0 else float("inf")}


def frozen_start(expr: sp.Expr) -> list[float]:
    return list(parameterize(expr).values)
