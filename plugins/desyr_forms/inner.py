"""Inner forms: a ratio of polynomials ``P/Q`` (``Q``'s constant term fixed to 1; no ``Q`` for a
polynomial), optionally wrapped in ``exp``, fitted linearly to a transformed target.

A polynomial is one least-squares solve; a rational function is the linearised fit ``z*Q - P = 0``
reweighted by ``1/|Q|`` of the previous solve (Sanathanan and Koerner's iteration), which turns the
equation error into the output error the outer fit is judged by.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

Mono = tuple[int, ...]
#: reweighting passes of the linearised rational fit
SK_ITERATIONS = 5


def monomials(d: int, degree: int, constant: bool = True) -> tuple[Mono, ...]:
    """Exponent tuples of total degree <= ``degree`` in ``d`` variables, by degree (the constant first)."""
    out = [m for m in itertools.product(range(degree + 1), repeat=d) if sum(m) <= degree]
    out.sort(key=lambda m: (sum(m), tuple(-e for e in m)))
    return tuple(m for m in out if constant or any(m))


def design(X: np.ndarray, monos: Sequence[Mono]) -> np.ndarray:
    """The value of each monomial at the rows of ``X``, one column each."""
    out = np.ones((X.shape[0], len(monos)))
    for j, m in enumerate(monos):
        for i, e in enumerate(m):
            if e:
                out[:, j] *= X[:, i] ** e
    return out


@dataclass(frozen=True)
class Inner:
    """``P/Q`` (or ``exp(P/Q)``): ``num`` are P's monomials, ``den`` Q's besides its constant 1;
    ``fixed_one`` says P's constant coefficient is fixed to 1 (a scale the outer absorbs)."""

    num: tuple[Mono, ...]
    den: tuple[Mono, ...] = ()
    exp: bool = False
    fixed_one: bool = False

    @property
    def size(self) -> int:
        """Number of free coefficients."""
        return len(self.num) + len(self.den) - int(self.fixed_one)

    def full(self, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P's coefficients (with the fixed 1 put back) and Q's."""
        p = np.concatenate([[1.0], c[:len(self.num) - 1]]) if self.fixed_one else c[:len(self.num)]
        return p, c[len(p) - int(self.fixed_one):]

    def values(self, X: np.ndarray, c: np.ndarray) -> np.ndarray:
        p, q = self.full(c)
        with np.errstate(all="ignore"):
            v = design(X, self.num) @ p
            if self.den:
                v = v / (1.0 + design(X, self.den) @ q)
            return np.asarray(np.exp(v) if self.exp else v, dtype=float)

    def sympy(self, symbols: Sequence[sp.Symbol], c: Sequence[float]) -> sp.Expr:
        p, q = self.full(np.asarray(c, dtype=float))
        P = sp.Add(*(_coef(k) * _mono(symbols, m) for k, m in zip(p, self.num) if k))
        if self.den:
            P = P / (sp.Integer(1) + sp.Add(*(_coef(k) * _mono(symbols, m) for k, m in zip(q, self.den) if k)))
        return sp.exp(P) if self.exp else P

    def without(self, drop: set[int]) -> tuple[Inner, list[int]]:
        """This inner without the free coefficients at ``drop`` (their monomials removed) and the kept indices."""
        offset = int(self.fixed_one)
        num = [m for j, m in enumerate(self.num) if (j < offset) or (j - offset) not in drop]
        n_free_num = len(self.num) - offset
        den = [m for j, m in enumerate(self.den) if (n_free_num + j) not in drop]
        kept = [i for i in range(self.size) if i not in drop]
        return Inner(tuple(num), tuple(den), self.exp, self.fixed_one), kept


def _coef(k: float) -> sp.Expr:
    """0 and +-1 are structure (integers); any other coefficient a provisional Float."""
    return sp.Integer(int(k)) if k in (0.0, 1.0, -1.0) else sp.Float(float(k))


def _mono(symbols: Sequence[sp.Symbol], m: Mono) -> sp.Expr:
    return sp.Mul(*(s ** e for s, e in zip(symbols, m) if e))


def fit_inner(X: np.ndarray, z: np.ndarray, w: np.ndarray, inner: Inner) -> np.ndarray | None:
    """Coefficients of ``inner``'s P/Q fitted to ``z`` (log z already taken for an exp inner), rows
    weighted by ``w``; None when the solve is not finite."""
    N = design(X, inner.num)
    target = z.copy()
    if inner.fixed_one:        # P = 1 + rest: move the fixed column to the target
        target = target - N[:, 0]
        N = N[:, 1:]
    if not inner.den:
        return _solve(N * w[:, None], target * w)
    D = design(X, inner.den)
    weights = w.copy()
    c = None
    for _ in range(SK_ITERATIONS):
        A = np.hstack([N, -z[:, None] * D]) * weights[:, None]
        c = _solve(A, target * weights)
        if c is None:
            return None
        Q = 1.0 + D @ c[N.shape[1]:]
        if not np.all(np.isfinite(Q)) or np.min(np.abs(Q)) < 1e-8:
            return c
        weights = w / np.abs(Q)
    return c


def _solve(A: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        return None
    norms = np.linalg.norm(A, axis=0)
    norms[norms == 0] = 1.0
    c = np.linalg.lstsq(A / norms, b, rcond=None)[0] / norms
    return c if np.all(np.isfinite(c)) else None


def linear_from_square(X: np.ndarray, c: np.ndarray, monos: Sequence[Mono]) -> np.ndarray | None:
    """Coefficients (constant first, then each variable) of a linear form L with L**2 closest to the
    quadratic with coefficients ``c`` on ``monos`` (all monomials of degree <= 2): its leading
    eigenvector, the sign fixed so the first nonzero coefficient is positive."""
    d = X.shape[1]
    M = np.zeros((d + 1, d + 1))
    for k, m in zip(c, monos):
        idx = [0] + [i + 1 for i, e in enumerate(m) for _ in range(e)]
        idx = idx[-2:] if len(idx) > 2 else ([0, 0] if len(idx) == 1 else idx)
        i, j = idx
        if i == j:
            M[i, i] += k
        else:
            M[i, j] += k / 2
            M[j, i] += k / 2
    vals, vecs = np.linalg.eigh(M)
    if vals[-1] <= 0:
        return None
    v = vecs[:, -1] * np.sqrt(vals[-1])
    nz = v[np.abs(v) > 1e-12 * np.abs(v).max()]
    return np.asarray(-v if nz.size and nz[0] < 0 else v, dtype=float)
