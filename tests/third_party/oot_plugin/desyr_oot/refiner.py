"""A BFGS refiner: the candidate's tree frozen, its Float constants refit from the physics alone.

The objective is 0.5 * ||r(a)||^2 over the weighted PDE and constraint residual of
:func:`desyr.plugin.for_refinement`; its gradient is J(a)^T r(a) with the exact
Jacobian. Teacher data is never used.
"""
from __future__ import annotations

import time

import numpy as np
import sympy as sp
from scipy.optimize import minimize

from desyr.plugin import Option, Refiner, RefitOutcome, for_refinement, parameterize, simplify_expression


class BFGSRefiner(Refiner):
    """``scipy.optimize.minimize(method="BFGS")`` with the exact gradient."""

    name = "bfgs"
    options = {
        "constraint_weight": Option(100.0, "lambda_c: constraint residuals enter with weight sqrt(lambda_c)",
                                    kind=float, low=0.0, open_low=True),
        "gtol": Option(1e-10, "BFGS: stop when the gradient norm is below this", kind=float, low=0.0,
                       open_low=True),
        "max_iterations": Option(2000, "BFGS iteration limit", kind=int, low=1),
        "max_params": Option(16, "most constants refit (largest first)", kind=int, low=1, high=64),
    }

    def refine(self, candidate, problem, points):
        clock = time.perf_counter()
        fields = list(candidate.search_expressions)
        parts = {f: parameterize(candidate.search_expressions[f], prefix=f"{f}_b",
                                 max_params=int(self.settings["max_params"])) for f in fields}
        symbols = [s for f in fields for s in parts[f].symbols]
        x0 = np.array([v for f in fields for v in parts[f].values], dtype=float)
        if not symbols:
            exprs = {f: simplify_expression(candidate.search_expressions[f]) for f in fields}
            return RefitOutcome(exprs, "fixed", True, reason="no free constants",
                                seconds=time.perf_counter() - clock)
        system = for_refinement(problem, {f: parts[f].expression for f in fields}, symbols, points,
                                float(self.settings["constraint_weight"]))

        def objective(a):
            r = system.vector(a)
            return 0.5 * float(r @ r), system.jacobian(a).T @ r

        with np.errstate(all="ignore"):
            res = minimize(objective, x0, jac=True, method="BFGS",
                           options={"gtol": float(self.settings["gtol"]),
                                    "maxiter": int(self.settings["max_iterations"])})
        if not (np.isfinite(res.fun) and np.all(np.isfinite(res.x))):
            return RefitOutcome({}, "failed", False, reason=f"non-finite objective: {res.message}",
                                params=list(map(float, x0)), initial=list(map(float, x0)),
                                seconds=time.perf_counter() - clock)
        # BFGS reports "precision loss" when the line search cannot improve a round-off
        # level objective: that is a converged refit, not a failure.
        grad = np.linalg.norm(res.jac) if res.jac is not None else np.inf
        converged = bool(res.success) or (res.status == 2 and grad <= 1e-6 * max(1.0, np.sqrt(2 * res.fun)))
        floats = {s: sp.Float(float(v)) for s, v in zip(symbols, res.x)}
        exprs = {f: simplify_expression(parts[f].expression.xreplace(floats)) for f in fields}
        return RefitOutcome(exprs, "converged" if converged else "not_converged", converged,
                            reason=None if converged else str(res.message), nfev=int(res.nfev),
                            objective=2.0 * float(res.fun), initial=list(map(float, x0)),
                            params=list(map(float, res.x)), starts=1, seconds=time.perf_counter() - clock)
