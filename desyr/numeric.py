"""Turning sympy expressions into vectorised numpy functions."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import sympy as sp


def lambdify(args: Sequence[sp.Symbol], exprs: Sequence[sp.Expr]):
    """One numpy function returning every expression, sharing subexpressions."""
    return sp.lambdify(list(args), list(exprs), modules="numpy", cse=True)


def columns(X: np.ndarray) -> list[np.ndarray]:
    return [X[:, j] for j in range(X.shape[1])]


def broadcast(values, n: int) -> np.ndarray:
    """Lambdified constants come back as scalars; make every output length n."""
    arr = np.asarray(values, dtype=float)
    return np.broadcast_to(arr, (n,)) if arr.ndim == 0 else arr


def evaluate(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray) -> np.ndarray:
    """Values of ``expr`` at the rows of ``X`` (columns in ``symbols`` order)."""
    fn = lambdify(symbols, [expr])
    with np.errstate(all="ignore"):
        return broadcast(fn(*columns(X))[0], X.shape[0]).astype(float, copy=True)
