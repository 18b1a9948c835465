"""Problem residuals in torch: sympy expressions evaluated on jets from autograd.

Imported only by the heavy teacher module (it imports deepxde and torch).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import scipy.special
import sympy as sp
import torch

from desyr.plugin import Problem, broadcast, columns
from desyr_deepxde.backend import dde

#: ``d(ys, xs, i, j)``: the derivative of output column ``i`` of ``ys`` by input column ``j`` of ``xs``, (n, 1)
Derivative = Callable[[torch.Tensor, torch.Tensor, int, int], torch.Tensor]


# ------------------------------------------------------------ sympy -> torch
def _unary(tfn: Callable[[torch.Tensor], torch.Tensor], mfn: Callable[[float], float]
           ) -> Callable[[torch.Tensor | float], torch.Tensor | float]:
    return lambda a: tfn(a) if isinstance(a, torch.Tensor) else mfn(a)


TORCH_FUNCTIONS: dict[str, Any] = {
    "sin": _unary(torch.sin, math.sin), "cos": _unary(torch.cos, math.cos),
    "tan": _unary(torch.tan, math.tan), "exp": _unary(torch.exp, math.exp),
    "log": _unary(torch.log, math.log), "sqrt": _unary(torch.sqrt, math.sqrt),
    "tanh": _unary(torch.tanh, math.tanh), "sinh": _unary(torch.sinh, math.sinh),
    "cosh": _unary(torch.cosh, math.cosh), "asin": _unary(torch.asin, math.asin),
    "acos": _unary(torch.acos, math.acos), "atan": _unary(torch.atan, math.atan),
    "Abs": abs, "abs": abs, "pi": math.pi, "E": math.e,
    "erf": _unary(torch.special.erf, math.erf), "erfc": _unary(torch.special.erfc, math.erfc),
    "sech": _unary(lambda a: 1 / torch.cosh(a), lambda a: 1 / math.cosh(a)),
    "csch": _unary(lambda a: 1 / torch.sinh(a), lambda a: 1 / math.sinh(a)),
    "coth": _unary(lambda a: 1 / torch.tanh(a), lambda a: 1 / math.tanh(a)),
    "airyai": lambda a: _data(lambda v: scipy.special.airy(v)[0], a),
    "airybi": lambda a: _data(lambda v: scipy.special.airy(v)[2], a),
    "besselj": lambda n, a: _data(lambda v: scipy.special.jv(n, v), a),
    "bessely": lambda n, a: _data(lambda v: scipy.special.yv(n, v), a),
    "besseli": lambda n, a: _data(lambda v: scipy.special.iv(n, v), a),
    "besselk": lambda n, a: _data(lambda v: scipy.special.kv(n, v), a),
}


def _data(fn: Callable[[np.ndarray], np.ndarray], a: torch.Tensor | float) -> torch.Tensor | float:
    """A Bessel or Airy function of the equations' data (coefficients, sources: functions of the inputs,
    never of the network), by SciPy: torch.special has only a few orders and no derivatives of them, and
    the training differentiates the network's output, not the data."""
    if not isinstance(a, torch.Tensor):
        return float(fn(np.asarray(float(a))))
    values = fn(a.detach().cpu().numpy())
    return torch.as_tensor(values, dtype=a.dtype, device=a.device)


def torch_function(args: Sequence[sp.Symbol], expr: sp.Expr) -> Callable[..., torch.Tensor]:
    """``f(*tensors) -> tensor`` of ``expr``; constants are broadcast to the first argument."""
    fn = sp.lambdify(list(args), expr, modules=[TORCH_FUNCTIONS], cse=True)

    def call(*values: torch.Tensor) -> torch.Tensor:
        out = fn(*values)
        if not isinstance(out, torch.Tensor):
            out = torch.full_like(values[0], float(out))
        elif out.shape != values[0].shape:
            out = out + torch.zeros_like(values[0])
        return out

    return call


# ------------------------------------------------------------------ residuals
class PinnResiduals:
    """Equation and constraint residuals of one problem as torch functions; an inverse problem's
    unknown coefficients are trainable scalars (DeepXDE's ``Variable``) that train with the network."""

    def __init__(self, problem: Problem, net_vars: list[str]) -> None:
        self.problem = problem
        self.jets = problem.jets()
        self.field_index = {f: i for i, f in enumerate(problem.fields)}
        self.col = {v: net_vars.index(v) for v in problem.variable_names}
        self.unknowns: list[torch.Tensor] = [dde.Variable(u.start()) for u in problem.unknowns]
        unknown_symbols = [problem.unknown_symbol(u.name) for u in problem.unknowns]
        args = list(problem.symbols) + unknown_symbols + [problem.jet_symbol(j) for j in self.jets]
        self.equations = [torch_function(args, e.residual) for e in problem.equations]
        # a value in an unknown (u = A*sin(pi*x) at t = 0, A unknown) trains with it: it moves into
        # the operator, and the condition's target becomes 0 (constraint_values)
        self.operators = [torch_function(args, c.operator - c.value if in_unknowns(problem, c.value) else c.operator)
                          for c in problem.constraints]

    def restart_unknowns(self) -> None:
        """Every unknown back to its start, for the next network of the ladder."""
        with torch.no_grad():
            for tensor, unknown in zip(self.unknowns, self.problem.unknowns):
                tensor.fill_(unknown.start())

    def unknown_values(self) -> dict[str, float]:
        return {u.name: float(t.detach()) for u, t in zip(self.problem.unknowns, self.unknowns)}

    def variables(self, x: torch.Tensor) -> list[torch.Tensor]:
        return [x[:, self.col[v]:self.col[v] + 1] for v in self.problem.variable_names]

    def jet_values(self, x: torch.Tensor, y: torch.Tensor, d: Derivative) -> list[torch.Tensor]:
        """Every needed jet, by repeated first derivatives ``d(ys, xs, i, j)``."""
        memo: dict[tuple[str, tuple[str, ...]], torch.Tensor] = {}
        out = []
        for jet in self.jets:
            k = self.field_index[jet.field]
            t = y[:, k:k + 1]
            for m, var in enumerate(jet.wrt):
                key = (jet.field, jet.wrt[:m + 1])
                if key not in memo:
                    memo[key] = d(y, x, k, self.col[var]) if m == 0 else d(t, x, 0, self.col[var])
                t = memo[key]
            out.append(t)
        return out

    def equation_residuals(self, x: torch.Tensor, y: torch.Tensor, d: Derivative) -> list[torch.Tensor]:
        jets = self.jet_values(x, y, d)
        cols = self.variables(x)
        return [f(*cols, *self.unknowns, *jets) for f in self.equations]

    def constraint_operator(self, index: int, x: torch.Tensor, y: torch.Tensor, d: Derivative) -> torch.Tensor:
        jets = self.jet_values(x, y, d)
        return self.operators[index](*self.variables(x), *self.unknowns, *jets)


def equation_scales(residuals: PinnResiduals, X: torch.Tensor) -> list[float]:
    """Per equation, the RMS on ``X`` of its source term (the residual with every field and
    derivative set to 0), capped at 1; 1 where the equation is homogeneous.

    Training divides each residual by this.  A tiny forcing (Euler-Bernoulli: u_xxxx = 5e-5)
    otherwise leaves losses near 1e-9, where Adam's epsilon and L-BFGS's gradient tolerance
    stop the optimizer before the forcing is resolved.  Sources of order 1 and above leave
    the loss as it was."""
    zeros = [torch.zeros_like(X[:, :1]) for _ in residuals.jets]
    cols = residuals.variables(X)
    scales = []
    for f in residuals.equations:
        with torch.no_grad():
            rms = float(torch.sqrt(torch.mean(f(*cols, *residuals.unknowns, *zeros) ** 2)))
        scales.append(min(rms, 1.0) if math.isfinite(rms) and rms > 0 else 1.0)
    return scales


def dde_derivative(ys: torch.Tensor, xs: torch.Tensor, i: int, j: int) -> torch.Tensor:
    """d ys[:, i] / d xs[:, j] through DeepXDE's cached Jacobian (inside its training loop)."""
    return cast(torch.Tensor, dde.grad.jacobian(ys, xs, i=i, j=j))     # DeepXDE is untyped


def autograd_derivative(ys: torch.Tensor, xs: torch.Tensor, i: int, j: int) -> torch.Tensor:
    """d ys[:, i] / d xs[:, j] by plain autograd (outside DeepXDE's loop), kept differentiable."""
    g = torch.autograd.grad(ys[:, i].sum(), xs, create_graph=True)[0]
    return g[:, j:j + 1]


def in_unknowns(problem: Problem, expr: sp.Expr) -> bool:
    """Whether ``expr`` uses an unknown coefficient of the problem."""
    return any(s.name in problem.unknown_names for s in expr.free_symbols)


def constraint_values(problem: Problem, index: int, X: np.ndarray) -> np.ndarray:
    """g_l at the constraint points, (n, 1) float64 (0 where the value is in the operator: in_unknowns)."""
    from desyr.plugin import lambdify
    con = problem.constraints[index]
    if in_unknowns(problem, con.value):
        return np.zeros((X.shape[0], 1))
    # an integral constraint's integrand carries value / measure: its quadrature sum is the value
    value = con.value / con.measure if con.kind == "integral" else con.value
    fn = lambdify(problem.symbols, [value])
    with np.errstate(all="ignore"):
        return broadcast(fn(*columns(X))[0], X.shape[0]).astype(float).reshape(-1, 1)
