"""Independent numerical solutions for the textbook: set's problems, and partial sums of a series.

The references of plugins/desyr_paper/textbook are series derived by hand; these solvers know nothing of
series or eigenfunctions: Chebyshev collocation in space (Trefethen, *Spectral Methods in MATLAB*), the
boundary values eliminated through the conditions, and the exact exponential of the resulting linear
system in time (``scipy.linalg.expm``), or a dense solve for an elliptic problem.  A disk's problem is one
angular mode on the radius, collocated on ``[-R, R]`` with the mode's parity (ibid., programs 28-29).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product

import numpy as np
import sympy as sp
from scipy.linalg import expm
from scipy.optimize import brentq
from scipy.special import jn_zeros, jnp_zeros, jv, jvp

from desyr.plugin import robinroot

Array = np.ndarray


# ------------------------------------------------------------------ partial sums of a series
def _zeros(kind: str) -> Callable[[Array, Array], Array]:
    def values(nu: Array, k: Array) -> Array:
        k = np.asarray(k, dtype=int)
        table = (jn_zeros if kind == "j" else jnp_zeros)(int(np.max(nu)), int(np.max(k)))
        return np.asarray(table)[k - 1]
    return values


def _robin(k: Array, a: float, b: float, c: float) -> Array:
    k = np.asarray(k, dtype=int)
    table = robinroot.numpy_values(tuple(sp.nsimplify(v) for v in (a, b, c)), int(np.max(k)))
    return np.asarray(table)[k - 1]


def _dini(nu: Array, h: Array, k: Array) -> Array:
    """The roots of ``s*J_nu'(s) + h*J_nu(s)``, found afresh: sign changes on a fine grid, then Brent's method
    (no use of desyr's brackets)."""
    order, rim, k = int(np.max(nu)), float(np.max(h)), np.asarray(k, dtype=int)
    count = int(np.max(k))
    grid = np.linspace(1e-9, np.pi * (count + order + 2), 400 * (count + order + 2))

    def g(s: float) -> float:
        return float(s * jvp(order, s) + rim * jv(order, s))
    values = grid * jvp(order, grid) + rim * jv(order, grid)
    changes = np.nonzero(np.sign(values[:-1]) * np.sign(values[1:]) < 0)[0][:count]
    return np.array([brentq(g, grid[i], grid[i + 1], xtol=1e-15) for i in changes])[k - 1]


def _growing(k: Array, a: float, b: float, c: float) -> Array:
    """The k-th positive root of ``(a + b*z**2)*sinh(z) + c*z*cosh(z)``, found afresh (sign changes of
    ``(a + b*z**2)*tanh(z) + c*z`` on a fine grid, then Brent's method)."""
    def g(z: float) -> float:
        return float((a + b * z * z) * np.tanh(z) + c * z)
    grid = np.linspace(1e-6, 60.0, 60001)
    values = (a + b * grid**2) * np.tanh(grid) + c * grid
    changes = np.nonzero(np.sign(values[:-1]) * np.sign(values[1:]) < 0)[0]
    i = changes[int(np.max(k)) - 1]
    return np.asarray(brentq(g, grid[i], grid[i + 1], xtol=1e-15))


_MODULES = [{"besseljzero": _zeros("j"), "besseljpzero": _zeros("jp"), "robinroot": _robin, "dinizero": _dini,
             "robinsinhroot": _growing},
            "scipy", "numpy"]


def partial_sum(expr: sp.Expr, symbols: Sequence[sp.Symbol], points: Array, terms: int) -> Array:
    """``expr`` at ``points`` (n, d) with each infinite sum cut to ``terms`` terms per index."""
    total = np.zeros(len(points))
    rest = expr
    for s in sorted(expr.atoms(sp.Sum), key=sp.default_sort_key):
        if any(s in other.args[0].atoms(sp.Sum) for other in expr.atoms(sp.Sum) if other is not s):
            continue          # an inner sum: its outer one evaluates it
        rest = rest.xreplace({s: sp.Integer(0)}) if rest.has(s) else rest
        total += _one_sum(expr, s, symbols, points, terms)
    finite = sp.lambdify(list(symbols), rest, modules=_MODULES)
    return total + np.broadcast_to(np.asarray(finite(*points.T), dtype=float), total.shape)


def _one_sum(whole: sp.Expr, s: sp.Sum, symbols: Sequence[sp.Symbol], points: Array, terms: int) -> Array:
    """The sum ``s`` with its factor in ``whole`` (a sum multiplied by ``x/r`` is taken with it)."""
    factor = sp.Integer(1)
    for term in sp.Add.make_args(sp.expand(whole, deep=False, mul=True, multinomial=False)):
        if term.has(s):
            factor = term.xreplace({s: sp.Integer(1)})
    body, limits = s.function, list(s.limits)
    while isinstance(body, sp.Sum):
        limits = list(body.limits) + limits
        body = body.function
    indices = [lim[0] for lim in limits]
    # float indices: NumPy refuses an integer to a negative integer power (2**(-n))
    grids = np.meshgrid(*[np.arange(int(lim[1]), int(lim[1]) + terms, dtype=float) for lim in limits], indexing="ij")
    f = sp.lambdify([*indices, *symbols], body, modules=_MODULES)
    g = sp.lambdify(list(symbols), factor, modules=_MODULES)
    out = np.empty(len(points))
    for i, p in enumerate(points):
        values = np.asarray(f(*grids, *p), dtype=float)
        out[i] = float(np.sum(values)) * float(g(*p))
    return out


# ------------------------------------------------------------------ Chebyshev collocation
def cheb(n: int) -> tuple[Array, Array]:
    """Trefethen's ``cheb``: the differentiation matrix on the n + 1 points ``cos(pi*j/n)`` of [-1, 1]."""
    x = np.cos(np.pi * np.arange(n + 1) / n)
    c = np.hstack([2, np.ones(n - 1), 2]) * (-1) ** np.arange(n + 1)
    dx = x[:, None] - x[None, :]
    d = np.outer(c, 1 / c) / (dx + np.eye(n + 1))
    return d - np.diag(d.sum(axis=1)), x


def interpolate(nodes: Array, values: Array, at: Array) -> Array:
    """The polynomial through ``(nodes, values)`` at ``at`` (barycentric, Chebyshev points of the 2nd kind)."""
    n = len(nodes) - 1
    w = (-1.0) ** np.arange(n + 1)
    w[0] /= 2
    w[-1] /= 2
    diff = at[:, None] - nodes[None, :]
    exact = np.isclose(diff, 0.0, atol=1e-15)
    diff[exact] = 1.0
    weights = w / diff
    out = (weights @ values) / weights.sum(axis=1)
    rows, cols = np.nonzero(exact)
    out[rows] = values[cols]
    return out


class Interval:
    """``[lo, hi]`` with ``n + 1`` Chebyshev points, D and D2 scaled to it."""

    def __init__(self, lo: float, hi: float, n: int) -> None:
        d, x = cheb(n)
        self.x = lo + (hi - lo) * (x + 1) / 2          # x[0] = hi, x[n] = lo
        self.d = d * 2 / (hi - lo)
        self.d2 = self.d @ self.d
        self.n = n


def rod_operator(grid: Interval, d: float, c: float, low: tuple[float, float], high: tuple[float, float]
                 ) -> tuple[Array, Array]:
    """The operator ``d*u_xx + c*u`` on the interior values once the boundary values are eliminated through
    ``alpha*u + beta*u_n = g`` at each end (``low``, ``high`` = (alpha, beta)), and the map ``E`` from the
    interior values and ``(g_high, g_low)`` to all values: ``u = E @ [interior, g_high, g_low]``."""
    n = grid.n
    rows = np.zeros((2, n + 1))
    rows[0] = high[0] * np.eye(n + 1)[0] + high[1] * grid.d[0]          # u_n = u_x at hi
    rows[1] = low[0] * np.eye(n + 1)[n] - low[1] * grid.d[n]            # u_n = -u_x at lo
    ends = rows[:, [0, n]]
    inner = rows[:, 1:n]
    solve = np.linalg.inv(ends)
    every = np.zeros((n + 1, n + 1))
    every[1:n, :n - 1] = np.eye(n - 1)
    every[[0, n], :n - 1] = -solve @ inner
    every[[0, n], n - 1:] = solve
    full = d * grid.d2 + c * np.eye(n + 1)
    return (full @ every)[1:n], every


def evolve(matrix: Array, forcing: Array, state: Array, t: float) -> Array:
    """``y' = M y + f`` (``f`` constant) from ``state`` over ``t``: the exponential of the bordered matrix."""
    size = len(state)
    big = np.zeros((size + 1, size + 1))
    big[:size, :size] = matrix
    big[:size, size] = forcing
    return (expm(big * t) @ np.append(state, 1.0))[:size]


def disk_radial(radius: float, order: int, n: int, neumann: bool, robin: float = 0.0) -> tuple[Array, Array, Array]:
    """The radial operator ``u_rr + u_r/r - m**2*u/r**2`` of one angular mode on the points r > 0 of a
    Chebyshev grid of [-R, R] (n odd: no point at the centre), folded with the mode's parity, the rim's
    condition (u = 0, or u_r + robin*u = 0) eliminated.  Returns the operator on the unknowns (the points inside),
    the radii of every point (the rim first) and the map from the unknowns to every point's value."""
    d, x = cheb(n)
    r = radius * x
    d = d / radius
    d2 = d @ d
    half = (n + 1) // 2                          # r[0] = R > ... > r[half - 1] > 0
    sign = (-1) ** order
    fold = lambda m: m[:half, :half] + sign * m[:half, n:half - 1:-1]      # noqa: E731
    d1f, d2f = fold(d), fold(d2)
    rr = r[:half]
    op = d2f + np.diag(1 / rr) @ d1f - order**2 * np.diag(1 / rr**2)
    rim = -d1f[0, 1:] / (d1f[0, 0] + robin) if neumann else np.zeros(half - 1)
    every = np.vstack([rim, np.eye(half - 1)])
    return (op @ every)[1:], rr, every


def tensor_points(axes: Sequence[Interval]) -> Array:
    return np.array(list(product(*[a.x for a in axes])))
