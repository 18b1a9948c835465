"""Whether the physics and the data decide an inverse problem's unknowns, and how precisely.

The objective is the refit's: every equation and constraint residual, and the misfit to the
observations.  Its Jacobian with respect to every free number (the fields' float constants and
the unknowns) is decomposed with unit columns, so that a dependence shows whatever the sizes of
the numbers.  A direction the objective cannot see (a singular value below
:data:`RANK_TOLERANCE` of the largest) that moves an unknown means the unknowns are not decided:
``u_t = a*b*u_xx`` sees only ``a*b``.  The run (:mod:`desyr.stages.unknowns`) and the verifier
(:mod:`desyr.verify.verdict`) each compute it on their own points.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from desyr.model.constants import METHOD
from desyr.model.problem import Problem
from desyr.symbolic.parameterize import Parameterization, parameterize
from desyr.symbolic.physics import OBSERVATION_WEIGHT, ResidualSystem, with_observations

#: singular values below this fraction of the largest are directions the objective cannot see
RANK_TOLERANCE = 1e-7


def _floated(expr: sp.Expr) -> sp.Expr:
    """An exact form's numbers as floats, so that they are free too: ``exp(-30*pi**2*t)`` fitted to data
    taken at t = 0 alone has a rate that nothing decides, and neither the 30 nor nu may pass as found."""
    numbers = {r: sp.Float(r) for r in expr.atoms(sp.Rational) if r not in (0, 1, -1)}
    return expr.xreplace(numbers) if numbers else expr


@dataclass(frozen=True)
class Sensitivity:
    """What the objective's Jacobian says about the unknowns at a fit."""

    rank: int
    size: int
    blind: tuple[str, ...]              # unknowns moved by a direction the objective cannot see
    combination: str                    # what the data do decide, when two unknowns are blind
    errors: dict[str, float]            # standard error of each unknown (absolute)


def _free(name: str, value: float) -> Parameterization:
    symbol = sp.Dummy(f"{name}_s1", real=True)
    return Parameterization(symbol, [symbol], [value])


def sensitivity(problem: Problem, exprs: Mapping[str, sp.Expr], interior: np.ndarray,
                constraint_points: Sequence[np.ndarray], reductions: Sequence[np.ndarray | None] = (),
                constraint_weight: float = METHOD.constraint_weight) -> Sensitivity | None:
    """The unit-column Jacobian's rank and the unknowns' standard errors at ``exprs``, every float of
    the fields and every unknown free (an exact value too); None without unknowns."""
    names = [u.name for u in problem.unknowns if u.name in exprs and exprs[u.name].is_number]
    if not names:
        return None
    # an unknown is free whatever its form (1/10 as much as 0.1003, and 1 or 0, which parameterize
    # would take for structure)
    parts = {f: (_free(f, float(e)) if f in names else parameterize(_floated(e), prefix=f"{f}_s"))
             for f, e in exprs.items()}
    symbols = [s for p in parts.values() for s in p.symbols]
    values = np.array([v for p in parts.values() for v in p.values], dtype=float)
    solution = {f: p.expression for f, p in parts.items()}
    system = with_observations(ResidualSystem(problem, solution, symbols, interior, constraint_points,
                                              constraint_weight, True, reductions), solution)
    with np.errstate(all="ignore"):
        J = system.jacobian(values)
        F = system.vector(values)
    if not (np.all(np.isfinite(J)) and np.all(np.isfinite(F))):
        return None
    # unit columns: a dependence is seen whatever the sizes of the numbers (a 6e-9 coefficient too)
    norms = np.linalg.norm(J, axis=0)
    norms[norms == 0] = 1.0
    _, s, Vt = np.linalg.svd(J / norms, full_matrices=False)
    rank = int(np.sum(s > RANK_TOLERANCE * s[0])) if s.size and s[0] > 0 else 0
    unknown_columns = {n: symbols.index(parts[n].symbols[0]) for n in names}
    null = Vt[rank:] / norms                          # the blind directions, in the numbers themselves
    null = null / np.maximum(np.linalg.norm(null, axis=1, keepdims=True), 1e-300)
    blind = tuple(n for n, j in unknown_columns.items() if null.size and np.max(np.abs(null[:, j])) > 0.1)
    relative = null / np.where(values == 0, 1.0, values)   # the same directions in relative changes
    return Sensitivity(rank, len(symbols), blind, _combination(blind, relative, unknown_columns),
                       _errors(J / norms, F, norms, s, Vt, rank, unknown_columns, problem))


def _combination(blind: tuple[str, ...], null: np.ndarray, columns: Mapping[str, int]) -> str:
    """``a*b`` when the one blind direction moves a and b oppositely in relative terms."""
    if len(blind) != 2 or null.shape[0] != 1:
        return ""
    p, q = (float(null[0, columns[n]]) for n in blind)
    ratio = Fraction(-q / p).limit_denominator(4) if p else None
    if ratio is None or abs(float(ratio) + q / p) > 1e-3:
        return ""
    a, b = blind
    exponent = "" if ratio == 1 else f"**({ratio})"
    return f"{a}*{b}{exponent}" if ratio > 0 else f"{a}/{b}{'' if ratio == -1 else f'**({-ratio})'}"


def _errors(Jn: np.ndarray, F: np.ndarray, norms: np.ndarray, s: np.ndarray, Vt: np.ndarray, rank: int,
            columns: Mapping[str, int], problem: Problem) -> dict[str, float]:
    """Standard errors of the unknowns: the noise variance (from the observation rows) times the
    covariance of the unit-column Jacobian, inverted on the directions it sees."""
    obs = problem.observations
    if obs is None or rank == 0:
        return {}
    n = obs.X.shape[0] * len(obs.fields)
    rows = F[-n:] / math.sqrt(OBSERVATION_WEIGHT)      # the observation blocks come last
    variance = float(rows @ rows) / max(n - rank, 1)
    seen = Vt[:rank] / s[:rank, None]
    covariance = variance * (seen.T @ seen)           # pinv(Jn^T Jn), unit columns
    return {name: math.sqrt(max(covariance[j, j], 0.0)) / norms[j] for name, j in columns.items()}
