"""Whether a refit is its frozen tree with other constants (the refiner's contract, paper §3.3).

A refiner refits the constants of the tree the search found, and nothing else: it may simplify the
refitted tree (``1.0*sin(3.14159*x)`` -> ``sin(pi*x)``), merge or tie constants, fit the coefficients of
the tree with its products multiplied out, or drive a constant to 0, but it may not hand back another
formula. The test is numerical and does not depend on how the refiner
parameterised the tree: every float of the frozen tree (outside exponents, which no refit moves)
becomes a free constant of its own, and a least-squares fit of that family to the refit's values on
sample points must reproduce them to :data:`FAMILY_TOLERANCE`. An honest refit is a member of the
family, so the fit reaches it (to round-off) from the search's own constants; another formula is not.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from desyr.symbolic.numeric import columns, evaluate, lambdify

#: largest RMS difference, relative to the refit's RMS, between the refit and the best member of the family
FAMILY_TOLERANCE = 1e-6
#: the fit's evaluation cap, per free constant
_EVALUATIONS = 200


def free_constants(tree: sp.Expr, prefix: str = "_k") -> tuple[sp.Expr, list[sp.Symbol], list[float]]:
    """``tree`` with each float node outside an exponent replaced by a symbol of its own, the symbols
    and the floats they replaced (in traversal order)."""
    symbols: list[sp.Symbol] = []
    values: list[float] = []

    def walk(node: sp.Expr) -> sp.Expr:
        if isinstance(node, sp.Float):
            symbols.append(sp.Symbol(f"{prefix}{len(symbols)}", real=True))
            values.append(float(node))
            return symbols[-1]
        if isinstance(node, sp.Pow):
            return sp.Pow(walk(node.base), node.exp)
        if not node.args:
            return node
        return node.func(*[walk(a) for a in node.args])

    return walk(tree), symbols, values


#: what every float becomes in :func:`_masked`
_MASK = sp.Symbol("_float")


def _masked(tree: sp.Expr) -> sp.Expr:
    """``tree`` with every float outside an exponent the same symbol: two trees that differ only in their
    floats mask alike, whatever order SymPy gives their arguments (it sorts them by the floats' values)."""
    return free_constants(tree)[0].xreplace({s: _MASK for s in free_constants(tree)[1]})


def outside_family(frozen: sp.Expr, refit: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray,
                   free: Mapping[sp.Symbol, float] | None = None) -> str | None:
    """None when some values of ``frozen``'s constants (and of the symbols in ``free``, from their given
    starting values) make it equal ``refit`` at the rows of ``X`` (columns in ``symbols`` order); else
    how far the nearest member stays.  The tree with its products multiplied out counts as the frozen
    tree too: ``c1*x**3*(a + b*x)`` has a direction along which nothing changes, and a refiner may fit the
    same function's independent coefficients instead (the scipy refiner's ``merge_redundant_scales``)."""
    why = _outside(frozen, refit, symbols, X, free)
    if why is None:
        return None
    expanded = sp.expand_mul(frozen)
    if expanded != frozen and _outside(expanded, refit, symbols, X, free) is None:
        return None
    return why


def _outside(frozen: sp.Expr, refit: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray,
             free: Mapping[sp.Symbol, float] | None) -> str | None:
    tree, params, start = free_constants(frozen)
    if refit == frozen or _masked(refit) == _masked(frozen):
        return None       # the same tree with other floats: no fit needed
    target = evaluate(refit, symbols, X)
    keep = np.isfinite(target)
    if not keep.any():
        return None       # nothing to compare on: the refit's own checks refuse a non-finite refit
    y = target[keep]
    tol = FAMILY_TOLERANCE * float(np.sqrt(np.mean(y ** 2))) + 1e-12
    params += list(free or {})
    start += list((free or {}).values())
    fn = lambdify([*symbols, *params], [tree])
    cols = columns(X[keep])

    def residual(theta: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            values = np.broadcast_to(np.asarray(fn(*cols, *theta)[0], dtype=float), y.shape)
        out: np.ndarray = np.nan_to_num(values - y, nan=1e6, posinf=1e6, neginf=-1e6)
        return out

    def miss(theta: np.ndarray) -> float:
        return float(np.sqrt(np.mean(residual(theta) ** 2)))

    theta = np.asarray(start, dtype=float)
    best = miss(theta)
    if best > tol and len(theta):
        from scipy.optimize import least_squares

        try:
            fit = least_squares(residual, theta, method="trf", x_scale="jac", ftol=1e-14, xtol=1e-14, gtol=1e-14,
                                max_nfev=_EVALUATIONS * (len(theta) + 1))
            best = min(best, miss(fit.x))
        except (ValueError, ArithmeticError):
            pass
    if best <= tol:
        return None
    scale = float(np.sqrt(np.mean(y ** 2))) or 1.0
    return (f"it is not the frozen tree {frozen} with other constants: the nearest such tree misses it by "
            f"{best / scale:.2g} (relative RMS)")
