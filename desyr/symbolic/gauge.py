"""Gauge fixing: constants of a frozen tree that the expression's values cannot tell apart.

``a*x**2/(b + c*t)`` is the same function for (a, b, c) and (s*a, s*b, s*c); ``c*exp(a + x)``
for (c, a) and (c*exp(-s), a + s); ``c1*c2*x`` sees only the product.  A refit then stops anywhere
on that manifold (``-37215.55*x/(37215.55 + 37215.55*x**2 + 18607.78*t)``) and no constant has a
closed form.  Such a *continuous symmetry* shows in the Jacobian of the expression's values with
respect to its constants, taken at the fitted constants on sample points: its columns are made unit
(so the sizes of the numbers do not matter) and a singular value below :data:`GAUGE_TOLERANCE` of the
largest is a direction along which the function does not change.

Each symmetry is fixed by setting one constant to a canonical value, 0 (a shift) or +-1 with the
constant's sign (a scale), and moving the others along the symmetry so that the function stays the
same (a least-squares fit to its own values, from the point the direction predicts).  A choice is
kept only if the fixed tree reproduces the values to :data:`VALUE_TOLERANCE`: that is what shows the
symmetry reaches the canonical value (a scale never reaches 0).  Of the reachable choices the one
that leaves the smallest tree wins, then the constant with the largest null-vector component.
Then the null space is taken again, until it is empty.  The caller refits with the physics.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from desyr.symbolic.expressions import complexity
from desyr.symbolic.numeric import broadcast, columns, lambdify
from desyr.symbolic.parameterize import Parameterization, parameterize
from desyr.symbolic.time_limit import OutOfTime, time_limit

#: a singular value of the unit-column Jacobian below this fraction of the largest is a symmetry: an
#: exact one sits at round-off (1e-15), a merely ill-conditioned basis (x, x**2, ... on [0.5, 2]) far above
GAUGE_TOLERANCE = 1e-10
#: a fixed tree must reproduce the original values to this (RMS, relative to the values' RMS)
VALUE_TOLERANCE = 1e-9
#: a null-vector component below this (unit-column coordinates) does not move the constant
COMPONENT_FLOOR = 0.05
#: at most this many sample points: enough to see every direction, cheap to differentiate on
MAX_POINTS = 256


@dataclass(frozen=True)
class GaugeFix:
    """One symmetry fixed: the constant's fitted value and the canonical value it was set to."""

    value: float
    canonical: int


class _Numeric:
    """The values of a parameterized tree on the points and their exact Jacobian with respect to the
    constants, as functions of the constants (None where not finite); lambdified once."""

    def __init__(self, par: Parameterization, symbols: Sequence[sp.Symbol], X: np.ndarray) -> None:
        args = [*symbols, *par.symbols]
        self._f = lambdify(args, [par.expression])
        self._J = lambdify(args, [sp.diff(par.expression, s) for s in par.symbols])
        self._cols, self._n = columns(X), X.shape[0]

    def values(self, c: np.ndarray) -> np.ndarray | None:
        out = self._call(self._f, c)
        return None if out is None else out[0]

    def jacobian(self, c: np.ndarray) -> np.ndarray | None:
        out = self._call(self._J, c)
        return None if out is None else np.column_stack(out)

    def _call(self, fn: Callable[..., list[object]], c: np.ndarray) -> list[np.ndarray] | None:
        with np.errstate(all="ignore"):
            try:
                out = [broadcast(v, self._n) for v in fn(*self._cols, *c)]
            except (ArithmeticError, TypeError, ValueError):
                return None
        return out if all(np.all(np.isfinite(v)) for v in out) else None


def null_directions(num: _Numeric, values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The symmetries at ``values``: rows of unit-column null vectors and the column norms (a row
    divided by the norms is the same direction in the constants themselves)."""
    J = num.jacobian(np.asarray(values, dtype=float))
    if J is None or not J.size:
        return np.zeros((0, len(values))), np.ones(len(values))
    norms = np.linalg.norm(J, axis=0)
    norms[norms == 0] = 1.0
    _, s, Vt = np.linalg.svd(J / norms, full_matrices=True)
    s = np.concatenate([s, np.zeros(Vt.shape[0] - s.size)])     # more constants than points
    rank = int(np.sum(s > GAUGE_TOLERANCE * s[0])) if s[0] > 0 else 0
    return Vt[rank:], norms


def symmetries(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray) -> int:
    """How many continuous symmetries the constants of ``expr`` have on the points ``X``."""
    par = parameterize(expr)
    if not par.values:
        return 0
    X = _sample(X)
    return int(null_directions(_Numeric(par, symbols, X), par.values)[0].shape[0])


def fix_gauge(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray) -> tuple[sp.Expr, list[GaugeFix]]:
    """``expr`` with one constant set to a canonical value per symmetry and the others moved so that
    its values stay the same; the fixes made (none: ``expr`` itself)."""
    X = _sample(X)
    fixes: list[GaugeFix] = []
    current = expr
    for _ in range(len(parameterize(expr).values)):
        par = parameterize(current)
        if not par.values:
            break
        num = _Numeric(par, symbols, X)
        null, norms = null_directions(num, par.values)
        if not null.shape[0]:
            break
        step = _best_fix(par, num, null[0], norms)
        if step is None:
            break
        current, fix = step
        fixes.append(fix)
    return current, fixes


def _best_fix(par: Parameterization, num: _Numeric, direction: np.ndarray, norms: np.ndarray
              ) -> tuple[sp.Expr, GaugeFix] | None:
    """The reachable canonical setting that leaves the smallest tree (ties: the largest component)."""
    values = np.asarray(par.values, dtype=float)
    target = num.values(values)
    if target is None:
        return None
    moved = [i for i in np.argsort(-np.abs(direction)) if abs(direction[i]) > COMPONENT_FLOOR]
    options = []
    for i in moved:
        for canonical in (0, int(np.sign(values[i]))):
            fixed = par.expression.xreplace({par.symbols[i]: sp.Integer(canonical)})
            options.append((complexity(par.substitute()) - complexity(_with(par, fixed, i)), i, canonical, fixed))
    # the largest drop first; sorted is stable, so ties keep the order of the components
    for _, i, canonical, fixed in sorted(options, key=lambda o: -o[0]):
        fitted = _refit_values(num, values, i, canonical, direction / norms, target)
        if fitted is not None:
            rest = [s for k, s in enumerate(par.symbols) if k != i]
            tree = fixed.xreplace({s: sp.Float(float(v)) for s, v in zip(rest, fitted)})
            return tree, GaugeFix(float(values[i]), canonical)
    return None


def _with(par: Parameterization, fixed: sp.Expr, i: int) -> sp.Expr:
    """The fixed tree with the other constants at their values (for its size)."""
    return fixed.xreplace({s: sp.Float(v) for k, (s, v) in enumerate(zip(par.symbols, par.values)) if k != i})


def _refit_values(num: _Numeric, values: np.ndarray, i: int, canonical: int, tangent: np.ndarray,
                  target: np.ndarray) -> np.ndarray | None:
    """The other constants that make the tree with constant ``i`` at ``canonical`` reproduce ``target``
    (None when it cannot: the symmetry does not reach that value)."""
    others = [k for k in range(values.size) if k != i]
    scale = max(float(np.sqrt(np.mean(target ** 2))), 1e-300)

    def full(rest: np.ndarray) -> np.ndarray:
        out = values.copy()
        out[others], out[i] = rest, canonical
        return out

    def misfit(rest: np.ndarray) -> np.ndarray:
        got = num.values(full(rest))
        return np.full(target.size, 1e6) if got is None else (got - target) / scale

    def jacobian(rest: np.ndarray) -> np.ndarray:
        J = num.jacobian(full(rest))
        return np.zeros((target.size, len(others))) if J is None else J[:, others] / scale

    if not others:
        return values[others] if _rms(misfit(values[others])) <= VALUE_TOLERANCE else None
    s = (canonical - values[i]) / tangent[i]
    with np.errstate(all="ignore"):
        # along a scaling the constants move multiplicatively (exact for c1*c2, c*exp(a + x)), along
        # a shift additively (a + b + x); the fit starts from whichever of the two is closer
        starts = [values + s * tangent, values * np.exp(np.clip(s * tangent / values, -50, 50))]
    start = min((v[others] for v in starts if np.all(np.isfinite(v))), key=lambda r: _rms(misfit(r)), default=None)
    if start is None:
        return None
    from scipy.optimize import least_squares  # 0.3 s to import; most runs fix no gauge

    try:
        with np.errstate(all="ignore"):
            fit = least_squares(misfit, start, jac=jacobian, method="lm", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                                max_nfev=200)
    except (ValueError, np.linalg.LinAlgError):
        return None
    ok = np.all(np.isfinite(fit.x)) and _rms(misfit(fit.x)) <= VALUE_TOLERANCE
    return np.asarray(fit.x) if ok else None


def _rms(r: np.ndarray) -> float:
    value = float(np.sqrt(np.mean(r ** 2)))
    return value if np.isfinite(value) else float("inf")


def _sample(X: np.ndarray) -> np.ndarray:
    """At most :data:`MAX_POINTS` rows, spread over ``X`` (deterministic)."""
    if X.shape[0] <= MAX_POINTS:
        return X
    rows: np.ndarray = X[np.linspace(0, X.shape[0] - 1, MAX_POINTS).astype(int)]
    return rows


# ---- a field free up to a function (issue 47): a pressure up to a function of time -------------------

#: a field's expression larger than this (nodes) is left as it is: distributing it costs without bound
FIELD_GAUGE_MAX_NODES = 400


def free_function_variables(orders: Sequence[tuple[str, ...]], variables: Sequence[str]) -> tuple[str, ...] | None:
    """The variables a field may gain any function of without changing any equation, from the derivatives
    its jets in the equations take (``orders``, one tuple of variables per jet): an incompressible flow's
    pressure enters as ``p_x`` and ``p_y`` only, so it is free up to a function of ``t``; ``()`` means
    up to a constant.  None where a jet is the field itself (no such gauge) or the equations hold none.
    Every jet differentiates by a variable outside the result, so such a function leaves each jet
    unchanged (the data may still fix it: the caller's check decides)."""
    if not orders or any(not wrt for wrt in orders):
        return None
    used = {v for wrt in orders for v in wrt}
    return tuple(v for v in variables if v not in used)


def gauge_part(expr: sp.Expr, free: Sequence[sp.Symbol]) -> sp.Expr:
    """The additive terms of ``expr`` (products distributed) that hold no variable but ``free``: the
    member of the gauge the expression carries, ``(exp(-2*t/5) - 1)/2`` of a Taylor-Green pressure; 0
    where the expression is too large to distribute (:data:`FIELD_GAUGE_MAX_NODES`)."""
    if complexity(expr) > FIELD_GAUGE_MAX_NODES:
        return sp.Integer(0)
    allowed = set(free)
    terms = sp.Add.make_args(sp.expand_mul(expr))
    return sp.Add(*[term for term in terms if not term.free_symbols - allowed])


#: seconds of SymPy work for the mean of a field over the other variables
MEAN_SECONDS = 2.0


def gauge_members(expr: sp.Expr, free: Sequence[sp.Symbol], ends: Sequence[tuple[float, float]],
                  others: Sequence[tuple[sp.Symbol, float, float]] = ()) -> list[sp.Expr]:
    """Members of the expression's gauge class, in the order they are tried: where it is free up to a
    function of ``free``, the one whose mean over the other variables' box (``others``: symbol, low, high)
    stays at its value at the start of the free variables' intervals (a decaying pressure decays whole:
    ``1/2 - (sin(x)**2 + sin(y)**2)*exp(-2*t/5)/2`` becomes ``(1 - sin(x)**2 - sin(y)**2)*exp(-2*t/5)/2``);
    then, shorter than the expression, the one without its gauge part and those with the part's value at
    an end of the free intervals (``ends``) in its place.  Empty when it carries no gauge part."""
    part = gauge_part(expr, free)
    if part == 0:
        return []
    distributed = sp.expand_mul(expr)
    rest = distributed - part
    out: list[sp.Expr] = []
    steady = _steady_mean(rest, part, free, ends, others)
    if steady is not None and complexity(steady) <= 1.5 * complexity(distributed):
        out.append(steady)
    for value in [sp.Integer(0), *(part.xreplace({v: sp.Float(e[k]) for v, e in zip(free, ends)}) for k in range(2))]:
        if not value.is_number:
            continue
        member = _shorter(rest + value)
        if member not in out and complexity(member) < complexity(distributed):
            out.append(member)
    return [m for m in out if sp.expand_mul(m) != distributed]


def _steady_mean(rest: sp.Expr, part: sp.Expr, free: Sequence[sp.Symbol], ends: Sequence[tuple[float, float]],
                 others: Sequence[tuple[sp.Symbol, float, float]]) -> sp.Expr | None:
    """``rest + M - m``, ``m`` the mean of ``rest`` over the other variables' box (a function of the free
    ones) and ``M`` the whole field's mean at the start of the free intervals; None without free
    variables, other variables or a closed-form mean (within :data:`MEAN_SECONDS`)."""
    if not free or not others:
        return None
    try:
        with time_limit(MEAN_SECONDS):
            total = rest
            volume = sp.Integer(1)
            for v, lo, hi in others:
                a, b = sp.nsimplify(lo, [sp.pi]), sp.nsimplify(hi, [sp.pi])
                total = sp.integrate(total, (v, a, b))
                volume *= b - a
            mean = sp.simplify(total / volume)
    except (OutOfTime, Exception):  # noqa: BLE001 - an integral SymPy cannot do leaves no such member
        return None
    if mean.has(sp.Integral) or mean.free_symbols - set(free):
        return None
    start = {v: sp.nsimplify(e[0], [sp.pi]) for v, e in zip(free, ends)}
    level = (mean + part).xreplace(start)
    return _shorter(rest + level - mean)


def _shorter(expr: sp.Expr) -> sp.Expr:
    """The shorter of the distributed and factored forms."""
    return min((sp.expand_mul(expr), sp.factor_terms(expr)), key=complexity)
