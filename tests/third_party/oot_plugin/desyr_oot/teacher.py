"""A polynomial teacher: u = sum_k c_k m_k(x) fitted to the PDE and its constraints.

The monomials are taken in the variables scaled to [-1, 1] (better conditioned than
raw powers). The residual of the governing equations and constraints, and its exact
Jacobian in the coefficients, come from :func:`desyr.plugin.for_refinement`; for a
linear PDE the residual is affine in the coefficients, so the first Gauss-Newton
step from zero is already the linear least-squares solution, and later steps only
matter for nonlinear equations. The reference is never read.
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from desyr.plugin import ComponentError, Option, Teacher, TeacherModel, evaluate, for_refinement


class PolynomialModel(TeacherModel):
    """The fitted polynomials, one per field, evaluated with numpy."""

    def __init__(self, fields, expressions, symbols, info):
        self.fields = list(fields)
        self.expressions = dict(expressions)
        self._symbols = list(symbols)
        self._info = dict(info)

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        return np.column_stack([evaluate(self.expressions[f], self._symbols, X) for f in self.fields])

    def info(self):
        return dict(self._info)


def monomial_exponents(dim: int, degree: int) -> list[tuple[int, ...]]:
    """Exponent tuples of every monomial of total degree <= ``degree`` in ``dim`` variables."""
    return [e for total in range(degree + 1)
            for e in itertools.product(range(total + 1), repeat=dim) if sum(e) == total]


class PolynomialTeacher(Teacher):
    """Linear least squares on collocation points for a polynomial of bounded total degree."""

    name = "polynomial"
    options = {
        "degree": Option(10, "total degree of the polynomial", kind=int, low=0, high=30),
        "steps": Option(3, "Gauss-Newton steps from zero (1 solves a linear PDE)", kind=int, low=1, high=50),
        "constraint_weight": Option(100.0, "lambda_c: constraint residuals enter with weight sqrt(lambda_c)",
                                    kind=float, low=0.0, open_low=True),
        "max_terms": Option(500, "refuse polynomials with more coefficients than this", kind=int, low=1),
    }

    def prepare(self, problem, context):
        symbols = list(problem.symbols)
        exponents = monomial_exponents(problem.dim, int(self.settings["degree"]))
        n_terms = len(exponents) * len(problem.fields)
        if n_terms > int(self.settings["max_terms"]):
            raise ComponentError(f"teacher '{self.name}': degree {self.settings['degree']} gives {n_terms} "
                                 f"coefficients (more than max_terms = {self.settings['max_terms']})")
        bounds = np.asarray(problem.bounds, dtype=float)
        scaled = [(2 * s - sp.Float(lo + hi)) / sp.Float(hi - lo) for s, (lo, hi) in zip(symbols, bounds)]
        monomials = [sp.Mul(*[t ** k for t, k in zip(scaled, e)]) for e in exponents]
        coeffs, polys = [], {}
        for field in problem.fields:
            cs = [sp.Symbol(f"{field}_c{i}", real=True) for i in range(len(monomials))]
            coeffs += cs
            polys[field] = sp.Add(*[c * m for c, m in zip(cs, monomials)])
        system = for_refinement(problem, polys, coeffs, context.points, float(self.settings["constraint_weight"]))
        a = np.zeros(len(coeffs))
        history = []
        for _ in range(int(self.settings["steps"])):
            r = system.vector(a)
            J = system.jacobian(a)
            if not (np.all(np.isfinite(r)) and np.all(np.isfinite(J))):
                raise ComponentError(f"teacher '{self.name}': non-finite residual during the fit")
            step, *_ = np.linalg.lstsq(J, -r, rcond=None)
            a = a + step
            history.append(float(np.sqrt(np.mean(system.vector(a) ** 2))))
            if history[-1] < 1e-14 or np.linalg.norm(step) <= 1e-15 * max(1.0, np.linalg.norm(a)):
                break
        values = {c: sp.Float(float(v)) for c, v in zip(coeffs, a)}
        fitted = {f: p.xreplace(values) for f, p in polys.items()}
        info = {"degree": int(self.settings["degree"]), "coefficients": len(coeffs),
                "gauss_newton_steps": len(history), "rms_residual": history[-1]}
        return PolynomialModel(problem.fields, fitted, symbols, info)
