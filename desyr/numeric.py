"""Turning sympy expressions into vectorised numpy functions."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import sympy as sp


# Derivatives of abs() bring in DiracDelta, which numpy has no name for; it is zero
# everywhere except on a measure-zero set, which is what a point evaluation sees.
_EXTRA = {"DiracDelta": lambda *a: np.zeros_like(np.asarray(a[0], dtype=float)),
          "Heaviside": lambda x, h=0.5: np.heaviside(x, h)}


def lambdify(args: Sequence[sp.Symbol], exprs: Sequence[sp.Expr]):
    """One numpy function returning every expression, sharing subexpressions."""
    return sp.lambdify(list(args), list(exprs), modules=[_EXTRA, "numpy"], cse=True)


def columns(X: np.ndarray) -> list[np.ndarray]:
    return [X[:, j] for j in range(X.shape[1])]


def broadcast(values, n: int) -> np.ndarray:
    """Lambdified constants come back as scalars; make every output length n, real
    (a complex value, e.g. sqrt of a negative number, counts as non-finite)."""
    arr = np.asarray(values)
    if np.iscomplexobj(arr):
        arr = np.where(arr.imag == 0, arr.real, np.nan)
    arr = arr.astype(float, copy=False)
    return np.broadcast_to(arr, (n,)) if arr.ndim == 0 else arr


def evaluate(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray) -> np.ndarray:
    """Values of ``expr`` at the rows of ``X`` (columns in ``symbols`` order)."""
    fn = lambdify(symbols, [expr])
    with np.errstate(all="ignore"):
        return broadcast(fn(*columns(X))[0], X.shape[0]).astype(float, copy=True)
