"""Stage B with scipy: frozen-tree, physics-only, multi-start least squares (paper Algorithm 1)."""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import sympy as sp
from threadpoolctl import threadpool_limits

from desyr.plugin import (
    MAX_PARAMS,
    METHOD,
    Candidate,
    Option,
    Parameterization,
    PointSets,
    Problem,
    Refiner,
    RefitOutcome,
    ResidualSystem,
    TiedRates,
    constant_nodes,
    for_refinement,
    is_eligible,
    parameterize,
    simplify_expression,
    tie_shared_rates,
)

#: a residual vector or its Jacobian as a function of the parameters
_Function = Callable[[np.ndarray], np.ndarray]


class _NonFiniteJacobian(ValueError):
    """A Jacobian with an infinite or undefined entry: LAPACK would print to stderr and fail on it."""


def _finite_jacobian(jac: _Function) -> _Function:
    """``jac`` checked before the solver's linear algebra sees it: a derivative that is infinite or undefined
    at a point (``sqrt(u)`` where ``u`` reaches 0) ends that start with a clear reason."""
    def checked(a: np.ndarray) -> np.ndarray:
        J = np.asarray(jac(a), dtype=float)
        if not np.all(np.isfinite(J)):
            raise _NonFiniteJacobian("non-finite Jacobian (a derivative is infinite or undefined at some points)")
        return J
    return checked


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
        "constraint_weight": Option(METHOD.constraint_weight, "lambda_c: constraint residuals enter with weight sqrt(lambda_c)",
                                    kind=float, low=0.0),
        "starts": Option(5, "total starts: the search constants plus starts-1 perturbed copies", kind=int, low=1),
        "perturbation": Option(0.1, "relative std of the multiplicative perturbations", kind=float, low=0.0),
        "tolerance": Option(1e-8, "ftol = xtol = gtol of least_squares", kind=float, low=0.0, open_low=True),
        "max_nfev": Option(None, "evaluation cap per start; None: scipy's default, 100 x parameters",
                           kind=int, low=1, nullable=True),
        "timeout": Option(60.0, "seconds per candidate, over all starts; inf: no limit", kind=float, low=0.0,
                          open_low=True, high=math.inf),
        "max_params": Option(MAX_PARAMS, "parameter cap per field", kind=int, low=1),
        "jacobian": Option("exact", "exact (sympy) or finite-difference Jacobian", kind=str,
                           choices=("exact", "2-point", "3-point")),
        "early_stop_cost": Option(1e-26, "skip remaining starts once 1/2 sum F^2 is at most this",
                                  kind=float, low=0.0),
        "merge_redundant_scales": Option(True, "refit expand_mul(tree) when that removes parameters", kind=bool),
        "tie_shared_rates": Option(True, "coupled problems: exp rates shared across fields are one parameter",
                                   kind=bool),
        "polish_steps": Option(8, "Gauss-Newton steps (exact Jacobian, lstsq) from the best converged start, "
                                  "each kept only if it lowers the objective; 0 disables the polish",
                               kind=int, low=0, high=100),
        "seed": Option(0, "seed of the perturbations", kind=int, low=0),
        "simplify": Option(True, "sympy.simplify the refined tree (bounded in size and time); the core turns it "
                                 "off for the intermediate refits that name an unknown", kind=bool),
    }

    method_fields = {"constraint_weight": "constraint_weight"}
    imports_ahead = ("scipy.optimize",)     # imported by _multistart, at the first refit with constants

    # ----------------------------------------------------------------- public
    def screening(self, starts: int, evaluations: int) -> ScipyRefiner:
        """The same refiner with fewer starts and capped evaluations per start."""
        return type(self)(**{**self.settings, "starts": starts, "max_nfev": evaluations})

    def within(self, seconds: float) -> ScipyRefiner:
        """The same refiner with its per-candidate ``timeout`` cut to ``seconds`` (never raised)."""
        if seconds >= float(self.settings["timeout"]):
            return self
        return type(self)(**{**self.settings, "timeout": max(float(seconds), 1e-3)})   # the option is > 0

    def refine(self, candidate: Candidate, problem: Problem, points: PointSets) -> RefitOutcome:
        clock = time.perf_counter()
        fields = list(candidate.search_expressions)
        tied = self._tie_rates(candidate.search_expressions, problem)
        parts = {f: self._parameterize(tied.expressions[f], f) for f in fields}
        symbols = tied.symbols + [s for f in fields for s in parts[f].symbols]
        x0 = np.array(tied.values + [v for f in fields for v in parts[f].values], dtype=float)
        if not symbols:
            exprs = {f: self._simplified(candidate.search_expressions[f]) for f in fields}
            return RefitOutcome(exprs, "fixed", True, reason="no free constants", seconds=time.perf_counter() - clock)
        residuals = for_refinement(problem, {f: parts[f].expression for f in fields}, symbols, points,
                                   float(self.settings["constraint_weight"]),
                                   jacobian=self.settings["jacobian"] == "exact")
        runs, failures, timed_out = self._multistart(residuals, x0, clock)
        runs = self._polish_best(residuals, runs, clock)
        outcome = self._outcome(runs, failures, timed_out, x0)
        chosen = outcome.params or list(x0)
        values = dict(zip(symbols, chosen))
        floats = {s: sp.Float(float(v)) for s, v in values.items()}
        outcome.expressions = {f: self._simplified(parts[f].expression.xreplace(floats)) for f in fields}
        outcome.initial = [float(v) for v in x0]
        outcome.shared_rates = tied.ties
        outcome.seconds = time.perf_counter() - clock
        return outcome

    # -------------------------------------------------------------- internals
    def _simplified(self, expr: sp.Expr) -> sp.Expr:
        return simplify_expression(expr) if self.settings["simplify"] else expr

    def _tie_rates(self, exprs: Mapping[str, sp.Expr], problem: Problem) -> TiedRates:
        """Shared exponential rates become one parameter (coupled problems, paper §3.5)."""
        if len(exprs) < 2 or not self.settings["tie_shared_rates"]:
            return TiedRates(dict(exprs), [], [], [])
        return tie_shared_rates(exprs, problem.symbols)

    def _parameterize(self, expr: sp.Expr, field: str) -> Parameterization:
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

    def _multistart(self, residuals: ResidualSystem, x0: np.ndarray, clock: float
                    ) -> tuple[list[_Run], list[str], bool]:
        deadline = clock + float(self.settings["timeout"])
        runs: list[_Run] = []
        failures: list[str] = []

        def fun(a: np.ndarray) -> np.ndarray:
            if time.perf_counter() > deadline:
                raise _Timeout
            return residuals.vector(a)

        # here, not at the top: importing scipy.optimize takes about 0.3 s of CPU, which a run whose
        # candidates have no constant to fit (and every command that only lists or checks the
        # refiner) never needs
        from scipy.optimize import least_squares

        jac = _finite_jacobian(residuals.jacobian) if self.settings["jacobian"] == "exact" else self.settings["jacobian"]
        tol = float(self.settings["tolerance"])
        # a trial step far out overflows inside scipy's trust region; it rejects the step itself,
        # and its RuntimeWarnings would only interleave with the run's progress lines
        with threadpool_limits(limits=1), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            for k, start in enumerate(self._starts(x0)):
                try:
                    res = least_squares(fun, start, jac=jac, method="trf", ftol=tol, xtol=tol, gtol=tol,
                                        max_nfev=self.settings["max_nfev"], x_scale="jac")
                except _Timeout:
                    return runs, failures, True
                except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError, np.linalg.LinAlgError) as exc:
                    failures.append(f"start {k}: {exc}")
                    continue
                if np.isfinite(res.cost) and np.all(np.isfinite(res.x)):
                    runs.append(_Run(res.x, float(res.cost), int(res.status), int(res.nfev), res.message))
                    if res.cost <= float(self.settings["early_stop_cost"]):
                        break
                else:
                    failures.append(f"start {k}: non-finite objective")
        return runs, failures, False

    def _polish_best(self, residuals: ResidualSystem, runs: list[_Run], clock: float) -> list[_Run]:
        """Replace the best run by its polished version (see :func:`polish`)."""
        steps = int(self.settings["polish_steps"])
        if not runs or steps == 0:
            return runs
        best = min(runs, key=lambda r: r.cost)
        if not best.converged or best.cost == 0.0:
            return runs   # a run stopped by its evaluation cap may be far from a minimum: leave it
        jac = residuals.jacobian if self.settings["jacobian"] == "exact" else None
        deadline = clock + float(self.settings["timeout"])
        with threadpool_limits(limits=1):
            x, cost, used = polish(residuals.vector, jac, best.x, steps, deadline)
        polished = _Run(x, cost, best.status, best.nfev + used, best.message)
        return [polished if r is best else r for r in runs]

    def _outcome(self, runs: list[_Run], failures: list[str], timed_out: bool, x0: np.ndarray) -> RefitOutcome:
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
        why: str | None = None if best.converged else f"evaluation limit reached: {best.message}"
        if notes:
            why = "; ".join(([why] if why else []) + notes)
        return RefitOutcome({}, status, best.converged, reason=why, nfev=nfev, objective=2.0 * best.cost,
                            params=[float(v) for v in best.x], starts=len(runs))


def polish(fun: _Function, jac: _Function | None, x: np.ndarray, steps: int, deadline: float = float("inf")) -> tuple[np.ndarray, float, int]:
    """Gauss-Newton steps from a converged point, each kept only if it lowers 1/2 |F|^2.

    trf stops on relative tolerances (ftol = xtol = 1e-8 by default), which can leave an
    exact solution a few digits above the float64 floor (Burgers: relative L2 1e-13).
    Near a zero-residual minimum Gauss-Newton converges quadratically, and one step costs
    one Jacobian and one lstsq on an (n x p) matrix, p <= 16, so a few steps are cheap.
    Columns are scaled to unit norm first so that lstsq's rank cut treats parameters of
    very different sizes alike. ``jac=None`` uses central differences (the finite-difference
    modes have no exact Jacobian); at a zero residual the step still converges, linearly.
    Returns the point, its cost and the number of accepted steps.
    """
    x = np.asarray(x, dtype=float)
    f = np.asarray(fun(x), dtype=float)
    cost = 0.5 * float(f @ f)
    used = 0
    for _ in range(steps):
        if cost == 0.0 or time.perf_counter() > deadline:
            break
        J = np.asarray(jac(x), dtype=float) if jac is not None else _central_jacobian(fun, x)
        if not np.all(np.isfinite(J)):
            break                       # no step to take: lstsq's LAPACK would fail on it, and print
        norms = np.linalg.norm(J, axis=0)
        norms[norms == 0.0] = 1.0
        with np.errstate(all="ignore"):
            step = np.linalg.lstsq(J / norms, -f, rcond=None)[0] / norms
            trial = x + step
            f_trial = np.asarray(fun(trial), dtype=float)
            c_trial = 0.5 * float(f_trial @ f_trial)
        if not (np.all(np.isfinite(trial)) and np.isfinite(c_trial)) or c_trial >= cost:
            break
        x, f, cost, used = trial, f_trial, c_trial, used + 1
    return x, cost, used


def _central_jacobian(fun: _Function, x: np.ndarray) -> np.ndarray:
    h = np.cbrt(np.finfo(float).eps) * np.maximum(1.0, np.abs(x))
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h[j]
        cols.append((np.asarray(fun(x + e)) - np.asarray(fun(x - e))) / (2.0 * h[j]))
    return np.column_stack(cols)
