"""A problem's residuals for a candidate solution: which blocks a :class:`Problem` has (its equations on
interior points, its constraints on their sets, its observations) and the scores over them.

The evaluation, the Jacobians and the arithmetic of the scores are mathematics
(:mod:`desyr.symbolic.physics`, which knows no problem); this module only reads the problem and the
point sets and hands their parts down, with the method's default weights.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from desyr.errors import ComponentError
from desyr.model.constants import METHOD
from desyr.model.points import PointSets, VerificationPoints
from desyr.model.problem import Problem
from desyr.model.scaled import measured_verification
from desyr.symbolic.identifiability import Sensitivity, sensitivity_at
from desyr.symbolic.parameterize import Parameterization, parameterize
from desyr.symbolic.physics import (
    OBSERVATION_WEIGHT,
    Params,
    Residuals,
    Scores,
    Verification,
    scores,
)

__all__ = ["OBSERVATION_WEIGHT", "Params", "ResidualSystem", "Scores", "Verification", "for_refinement",
           "physics_scores", "sensitivity", "verify", "with_observations"]


class ResidualSystem(Residuals):
    """All residual blocks of one candidate group on one choice of points."""

    def __init__(self, problem: Problem, solution: Mapping[str, sp.Expr], params: Sequence[sp.Symbol],
                 interior: np.ndarray, constraint_points: Sequence[np.ndarray],
                 constraint_weight: float = METHOD.constraint_weight, jacobian: bool = True,
                 reductions: Sequence[np.ndarray | None] = ()) -> None:
        super().__init__(problem.symbols, params, coupled=len(problem.fields) > 1)
        self.problem = problem
        for k, eq in enumerate(problem.equations):
            self.add("equation", k, problem.apply(eq.residual, solution), interior, 1.0, jacobian)
        root_weight = math.sqrt(constraint_weight)
        for l, con in enumerate(problem.constraints):
            self.add("constraint", l, problem.constraint_residual(con, solution), constraint_points[l], root_weight,
                     jacobian, reductions[l] if l < len(reductions) else None)


def for_refinement(problem: Problem, solution: Mapping[str, sp.Expr], params: Sequence[sp.Symbol],
                   points: PointSets, constraint_weight: float = METHOD.constraint_weight,
                   jacobian: bool = True) -> ResidualSystem:
    """The residual system a refiner minimises: equations on the refinement points and constraints, and
    for an inverse problem the misfit to the observations (with :data:`OBSERVATION_WEIGHT`; it is data,
    so :func:`physics_scores` leaves it out)."""
    solution = in_problem_symbols(problem, solution, params)
    system = ResidualSystem(problem, solution, params, points.refine, points.constraints, constraint_weight, jacobian,
                            points.reductions)
    return with_observations(system, solution, jacobian)


def in_problem_symbols(problem: Problem, solution: Mapping[str, sp.Expr], params: Sequence[sp.Symbol] = ()
                       ) -> dict[str, sp.Expr]:
    """``solution`` in the problem's own symbols: a ``sympy.Symbol("x")`` is not the problem's real ``x``
    (its derivatives in ``x`` would be 0, and the residuals silently wrong), so each free symbol that is
    not one of ``params`` is mapped by name to the problem's variable or parameter of that name; a name
    the problem does not have is one line naming it."""
    own = {s.name: s for s in problem.symbols}
    own.update((name, value) for name, value in problem.vocabulary.extra.items() if isinstance(value, sp.Symbol))
    free = set(params)
    out = {}
    for f, e in solution.items():
        e = sp.sympify(e)
        swap = {}
        for s in sorted(e.free_symbols - free, key=str):
            if s.name not in own:
                known = ", ".join([*own, *(p.name for p in params)])
                raise ComponentError(f"the expression of {f} uses the symbol {s.name!r}, which is neither a variable "
                                     f"of the problem nor a parameter given to for_refinement (known: {known})")
            if own[s.name] != s:
                swap[s] = own[s.name]
        out[f] = e.xreplace(swap) if swap else e
    return out


def with_observations(system: ResidualSystem, solution: Mapping[str, sp.Expr], jacobian: bool = True
                      ) -> ResidualSystem:
    """``system`` with one block per observed field (its misfit to the data, weighted by
    :meth:`~desyr.model.unknowns.Observations.weight`), appended last."""
    problem = system.problem
    obs = problem.observations
    if obs is not None and all(f in solution for f in obs.fields):
        for k, f in enumerate(obs.fields):
            system.add("observation", k, problem.apply(solution[f], solution), obs.X,
                       math.sqrt(OBSERVATION_WEIGHT) * obs.weight(f), jacobian, data=obs.column(f))
    return system


def physics_scores(residuals: Residuals, constraint_weight: float = METHOD.constraint_weight) -> Scores:
    """Φ = ρ_r + sqrt(λ_c) ρ_c on the refinement points; the constraint term is omitted
    when the problem has no constraint."""
    return scores(residuals, constraint_weight)


def verify(problem: Problem, solution: Mapping[str, sp.Expr], points: PointSets | VerificationPoints) -> Verification:
    """R_eq on independent interior points, R_con on the constraint sets (eq. verification), and each
    residual relative to its scale (:mod:`desyr.model.scaled`), which decides "exact"."""
    interior = points.interior if isinstance(points, VerificationPoints) else points.verify
    return measured_verification(problem, solution, interior, list(points.constraints), points.reductions)


def verifier_on(problem: Problem, points: VerificationPoints) -> Callable[[Mapping[str, sp.Expr]], Verification]:
    """:func:`verify` on these points, each candidate measured once: the run's verification, its gauge
    choice and its exact form's check all measure the selected expressions (seconds for a series, whose
    residuals add thousands of terms at every point)."""
    seen: dict[tuple[tuple[str, sp.Expr], ...], Verification] = {}

    def verified(solution: Mapping[str, sp.Expr]) -> Verification:
        key = tuple(sorted(solution.items(), key=lambda item: item[0]))
        if key not in seen:
            seen[key] = verify(problem, solution, points)
        return seen[key]
    return verified


def _floated(expr: sp.Expr) -> sp.Expr:
    """An exact form's numbers as floats, so that they are free too: ``exp(-30*pi**2*t)`` fitted to data
    taken at t = 0 alone has a rate that nothing decides, and neither the 30 nor nu may pass as found."""
    numbers = {r: sp.Float(r) for r in expr.atoms(sp.Rational) if r not in (0, 1, -1)}
    return expr.xreplace(numbers) if numbers else expr


def _free(name: str, value: float) -> Parameterization:
    symbol = sp.Dummy(f"{name}_s1", real=True)
    return Parameterization(symbol, [symbol], [value])


def sensitivity(problem: Problem, exprs: Mapping[str, sp.Expr], interior: np.ndarray,
                constraint_points: Sequence[np.ndarray], reductions: Sequence[np.ndarray | None] = (),
                constraint_weight: float = METHOD.constraint_weight) -> Sensitivity | None:
    """The unit-column Jacobian's rank and the unknowns' standard errors at ``exprs``, every float of
    the fields and every unknown free (an exact value too); None without unknowns
    (:func:`desyr.symbolic.identifiability.sensitivity_at` does the algebra)."""
    names = [u.name for u in problem.unknowns if u.name in exprs and exprs[u.name].is_number]
    if not names:
        return None
    # an unknown is free whatever its form (1/10 as much as 0.1003, and 1 or 0, which parameterize
    # would take for structure)
    parts = {f: (_free(f, float(e)) if f in names else parameterize(_floated(e), prefix=f"{f}_s"))
             for f, e in exprs.items()}
    symbols = [s for p in parts.values() for s in p.symbols]
    values: Params = np.array([v for p in parts.values() for v in p.values], dtype=float)
    solution = {f: p.expression for f, p in parts.items()}
    system = with_observations(ResidualSystem(problem, solution, symbols, interior, constraint_points,
                                              constraint_weight, True, reductions), solution)
    obs = problem.observations
    observed = None if obs is None else obs.X.shape[0] * len(obs.fields)
    return sensitivity_at(system, values, {n: symbols.index(parts[n].symbols[0]) for n in names}, observed)
