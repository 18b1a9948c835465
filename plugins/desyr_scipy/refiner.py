"""Stage B with scipy: frozen-tree, physics-only, multi-start least squares (paper Algorithm 1)."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import sympy as sp
from scipy.optimize import least_squares
from threadpoolctl import threadpool_limits

from desyr.model.candidates import Candidate, RefitOutcome
from desyr.roles import ComponentError, Refiner
from desyr.parameterize import MAX_PARAMS, is_eligible, constant_nodes, parameterize
from desyr.physics import for_refinement
from desyr.model.points import PointSets
from desyr.model.problem import Problem
from desyr.coupled.rates import TiedRates, tie_shared_rates
from desyr.simplify import simplify_expression


class _Timeout(Exception):
    pass


@dataclass
class _Run:
    x: np.ndarray
    cost: float
    status: int
    nfev: int
    message: str

    @property
    def converged(self) -> bool:
        # scipy: 1 gtol, 2 ftol, 3 xtol, 4 ftol and xtol; 0 means max_nfev was reached.
        return self.status > 0


class ScipyRefiner(Refiner):
    """``scipy.optimize.least_squares`` (trf) on the weighted PDE + constraint residual."""

    name = "scipy"
    default = True
    options = {
        "constraint_weight": 100.0,   # lambda_c: constraint residuals enter with weight sqrt(100)
        "starts": 5,                  # the search constants plus starts-1 perturbed copies
        "perturbation": 0.1,          # relative std of the multiplicative perturbations
        "tolerance": 1e-8,            # ftol = xtol = gtol
        "max_nfev": None,             # None: scipy's default, 100 x number of parameters
        "timeout": 60.0,              # seconds per candidate, over all starts
        "max_params": MAX_PARAMS,
        "jacobian": "exact",          # or "2-point" / "3-point" finite differences
        "early_stop_cost": 1e-26,     # skip remaining starts once the objective is at round-off level
        "merge_redundant_scales": True,  # distribute constant factors when that removes parameters
        "tie_shared_rates": True,     # coupled problems: exp rates shared across fields (k*R, k = 1..4)
        "seed": 0,
    }

    def __init__(self, **options):
        super().__init__(**options)
        if self.settings["jacobian"] not in ("exact", "2-point", "3-point"):
            raise ComponentError("refiner 'scipy': jacobian must be 'exact', '2-point' or '3-point'")
        if int(self.settings["starts"]) < 1:
            raise ComponentError("refiner 'scipy': starts must be at least 1")

    # ----------------------------------------------------------------- public
    def refine(self, candidate: Candidate, problem: Problem, points: PointSets) -> RefitOutcome:
        clock = time.perf_counter()
        fields = list(candidate.search_expressions)
        tied = self._tie_rates(candidate.search_expressions, problem)
        parts = {f: self._parameterize(tied.expressions[f], f) for f in fields}
        symbols = tied.symbols + [s for f in fields for s in parts[f].symbols]
        x0 = np.array(tied.values + [v for f in fields for v in parts[f].values], dtype=float)
        if not symbols:
            exprs = {f: simplify_expression(candidate.search_expressions[f]) for f in fields}
            return RefitOutcome(exprs, "fixed", True, reason="no free constants", seconds=time.perf_counter() - clock)
        residuals = for_refinement(problem, {f: parts[f].expression for f in fields}, symbols, points,
                                   float(self.settings["constraint_weight"]),
                                   jacobian=self.settings["jacobian"] == "exact")
        runs, failures, timed_out = self._multistart(residuals, x0, clock)
        outcome = self._outcome(runs, failures, timed_out, x0)
        chosen = outcome.params or list(x0)
        values = dict(zip(symbols, chosen))
        floats = {s: sp.Float(float(v)) for s, v in values.items()}
        outcome.expressions = {f: simplify_expression(parts[f].expression.xreplace(floats)) for f in fields}
        outcome.initial = [float(v) for v in x0]
        outcome.shared_rates = tied.ties
        outcome.seconds = time.perf_counter() - clock
        return outcome

    # -------------------------------------------------------------- internals
    def _tie_rates(self, exprs, problem: Problem) -> TiedRates:
        """Shared exponential rates become one parameter (coupled problems, paper §3.5)."""
        if len(exprs) < 2 or not self.settings["tie_shared_rates"]:
            return TiedRates(dict(exprs), [], [], [])
        return tie_shared_rates(exprs, problem.symbols)

    def _parameterize(self, expr: sp.Expr, field: str):
        """The paper's parameterization, of the tree with redundant constant factors merged if that
        leaves fewer parameters: ``c1*x**3*(a + b*x)`` has a direction along which nothing changes
        (c1 against a and b), which stalls trust-region steps; ``expand_mul`` gives the same function
        with independent coefficients, and the family it spans contains the original one."""
        cap = int(self.settings["max_params"])
        plain = parameterize(expr, prefix=f"{field}_a", max_params=cap)
        if not self.settings["merge_redundant_scales"]:
            return plain
        expanded = sp.expand_mul(expr)
        merged = parameterize(expanded, prefix=f"{field}_a", max_params=cap)
        # Use it only when every merged constant is a free parameter of its own: a tie or a
        # product that lands on an ineligible value (1.0, ~0) would shrink the family.
        free = sum(1 for node in constant_nodes(expanded) if is_eligible(float(node)))
        untied = free == len(merged.symbols) == sum(1 for _ in constant_nodes(expanded))
        return merged if untied and len(merged.symbols) < len(plain.symbols) else plain

    def _starts(self, x0: np.ndarray) -> list[np.ndarray]:
        rng = np.random.default_rng(int(self.settings["seed"]))
        sigma = float(self.settings["perturbation"])
        extra = [x0 * (1.0 + sigma * rng.standard_normal(x0.shape)) for _ in range(int(self.settings["starts"]) - 1)]
        return [x0.copy()] + extra

    def _multistart(self, residuals, x0, clock):
        deadline = clock + float(self.settings["timeout"])
        runs: list[_Run] = []
        failures: list[str] = []

        def fun(a):
            if time.perf_counter() > deadline:
                raise _Timeout
            return residuals.vector(a)

        jac = residuals.jacobian if self.settings["jacobian"] == "exact" else self.settings["jacobian"]
        tol = float(self.settings["tolerance"])
        with threadpool_limits(limits=1):
            for k, start in enumerate(self._starts(x0)):
                try:
                    res = least_squares(fun, start, jac=jac, method="trf", ftol=tol, xtol=tol, gtol=tol,
                                        max_nfev=self.settings["max_nfev"], x_scale="jac")
                except _Timeout:
                    return runs, failures, True
                except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError) as exc:
                    failures.append(f"start {k}: {exc}")
                    continue
                if np.isfinite(res.cost) and np.all(np.isfinite(res.x)):
                    runs.append(_Run(res.x, float(res.cost), int(res.status), int(res.nfev), res.message))
                    if res.cost <= float(self.settings["early_stop_cost"]):
                        break
                else:
                    failures.append(f"start {k}: non-finite objective")
        return runs, failures, False

    def _outcome(self, runs: list[_Run], failures: list[str], timed_out: bool, x0) -> RefitOutcome:
        nfev = sum(r.nfev for r in runs)
        if not runs:
            if timed_out:
                # The search constants, not an arbitrary trial point of the interrupted solve.
                reason = "; ".join([f"timeout after {self.settings['timeout']} s"] + failures)
                return RefitOutcome({}, "timeout", False, reason=reason, params=[float(v) for v in x0], starts=0)
            reason = "; ".join(failures) or "no finite run"
            return RefitOutcome({}, "failed", False, reason=f"non-finite: {reason}", params=[float(v) for v in x0])
        best = min(runs, key=lambda r: r.cost)
        notes = failures + ([f"timeout after {len(runs)} start(s)"] if timed_out else [])
        status = "converged" if best.converged else "not_converged"
        reason = None if best.converged else f"evaluation limit reached: {best.message}"
        if notes:
            reason = "; ".join(([reason] if reason else []) + notes)
        return RefitOutcome({}, status, best.converged, reason=reason, nfev=nfev, objective=2.0 * best.cost,
                            params=[float(v) for v in best.x], starts=len(runs))
