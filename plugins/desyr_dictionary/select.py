"""Support selection: a beam search of orthogonal least squares (forward regression) over the columns.

scikit-learn's orthogonal matching pursuit (OMP) gives the first, established greedy path of
supports; a beam search of orthogonal least squares widens it.  Orthogonal least squares adds, to a support ``S``, the column that lowers the residual sum of squares
the most, ``(a_c . r)^2 / |P a_c|^2`` with ``P`` the projection away from ``span(S)``; unlike
matching pursuit it accounts for what the support already explains, which matters in a coherent
dictionary (``x**2*exp(-a*x)`` looks much like ``sin(pi*x)``).  A greedy path is still misled when
a wrong column enters first, so each level keeps the ``beam`` best supports (by residual), each
grown by its ``beam`` best columns.  Everything is incremental: a support carries its orthonormal
basis, the projections of all columns on it and their correlations with its residual, so a child
costs one product of the column matrix with a vector.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

#: columns whose centred norm is below this fraction of their norm (constants) are left out
TINY_COLUMN = 1e-10
#: a column whose part orthogonal to the support is below this fraction of its norm adds nothing
DEPENDENT = 1e-7
#: where the orthogonal-matching-pursuit support of a size goes in its level when the beam missed it
#: (sparse_fits fits the first few supports of each level)
OMP_SLOT = 2


@dataclass
class _Node:
    support: tuple[int, ...]          # indices into the usable columns, in order of entry
    basis: np.ndarray                 # (n, k) orthonormal basis of the support's span
    left: np.ndarray                  # (p,) squared norm of each column's part orthogonal to the span
    corr: np.ndarray                  # (p,) each column's inner product with the residual
    resid: np.ndarray                 # (n,) the residual
    rss: float

    def gains(self) -> np.ndarray:
        ok = self.left > DEPENDENT ** 2
        g = np.where(ok, self.corr ** 2 / np.where(ok, self.left, 1.0), -1.0)
        g[list(self.support)] = -1.0
        return g


def beam_supports(A: np.ndarray, y: np.ndarray, max_terms: int, beam: int, center: bool = True,
                  exact: float = 0.0) -> Iterator[list[tuple[list[int], float]]]:
    """Per support size ``k = 1..max_terms`` in turn: up to ``beam`` supports (column indices of ``A``,
    in order of entry) with their relative residual (RMS of the residual over RMS of ``y``, both
    centred when ``center``: the intercept is then in every fit), best first.  Stops after the first
    size whose best support leaves a relative residual of at most ``exact``."""
    finite = np.all(np.isfinite(A), axis=0)
    yc = y - y.mean() if center else np.asarray(y, dtype=float)
    scale = float(np.linalg.norm(yc))
    cols = np.flatnonzero(finite)
    if not scale > 0 or not len(cols) or max_terms < 1:
        return
    Ac = A[:, cols] if len(cols) < A.shape[1] else np.array(A, dtype=float)
    raw = np.sqrt(np.einsum("ij,ij->j", Ac, Ac))
    if center:
        Ac -= Ac.mean(axis=0)
    norms = np.sqrt(np.einsum("ij,ij->j", Ac, Ac))
    usable = (norms > TINY_COLUMN * raw) & (norms > 0)
    if not usable.all():
        Ac, norms, cols = Ac[:, usable], norms[usable], cols[usable]
    if not len(cols):
        return
    Ac /= norms
    omp = omp_path(Ac, yc, max_terms)
    p = Ac.shape[1]
    nodes = [_Node((), np.empty((len(yc), 0)), np.ones(p), Ac.T @ yc, yc, scale ** 2)]
    for _ in range(min(max_terms, len(cols), len(yc) - 1)):
        children: dict[frozenset[int], tuple[float, int, int]] = {}
        for i, node in enumerate(nodes):
            g = node.gains()
            top = np.argpartition(-g, min(beam, p) - 1)[:beam] if p > beam else np.arange(p)
            for c in top:
                if g[c] <= 0:
                    continue
                key = frozenset(node.support + (int(c),))
                rss = node.rss - float(g[c])
                if key not in children or rss < children[key][0]:
                    children[key] = (rss, i, int(c))
        if not children:
            break
        best = sorted(children.values(), key=lambda v: (v[0], nodes[v[1]].support, v[2]))[:beam]
        nodes = [_grow(nodes[i], c, Ac) for _, i, c in best]
        nodes.sort(key=lambda nd: nd.rss)
        level = [([int(cols[j]) for j in nd.support], float(np.sqrt(max(nd.rss, 0.0))) / scale) for nd in nodes]
        k = len(nodes[0].support)
        if k <= len(omp) and not any(set(sup) == {int(cols[j]) for j in omp[k - 1]} for sup, _ in level[:OMP_SLOT + 1]):
            found = omp[k - 1]
            coef, *_ = np.linalg.lstsq(Ac[:, found], yc, rcond=None)
            rel = float(np.linalg.norm(yc - Ac[:, found] @ coef)) / scale
            level.insert(min(OMP_SLOT, len(level)), ([int(cols[j]) for j in found], rel))
        yield level
        if level[0][1] <= exact:
            return


def omp_path(Ac: np.ndarray, yc: np.ndarray, max_terms: int) -> list[list[int]]:
    """The supports of scikit-learn's orthogonal matching pursuit for sizes 1..max_terms (its path);
    empty without scikit-learn.  The beam search widens this established greedy path: a support
    OMP finds is always among those fitted."""
    try:
        from sklearn.linear_model import orthogonal_mp
    except ImportError:
        return []
    n_terms = min(max_terms, Ac.shape[1], len(yc) - 1)
    if n_terms < 1:
        return []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # "orthogonal matching pursuit ended prematurely": a shorter path
        path = np.asarray(orthogonal_mp(Ac, yc, n_nonzero_coefs=n_terms, return_path=True))
    path = path.reshape(Ac.shape[1], -1)
    return [sorted(np.flatnonzero(path[:, k]).tolist()) for k in range(path.shape[1])
            if np.count_nonzero(path[:, k]) == k + 1]


def _grow(node: _Node, c: int, Ac: np.ndarray) -> _Node:
    """``node`` with column ``c`` added (Gram-Schmidt, orthogonalised twice)."""
    Q = node.basis
    v = Ac[:, c].copy()
    for _ in range(2):
        v -= Q @ (Q.T @ v)
    q = v / np.linalg.norm(v)
    proj = Ac.T @ q                       # each column's component along the new direction
    r_dot = float(q @ node.resid)
    resid = node.resid - r_dot * q
    resid -= q * float(q @ resid)
    # the residual loses its component along q; every correlation follows from proj
    corr = node.corr - r_dot * proj
    left = np.maximum(node.left - proj ** 2, 0.0)
    return _Node(node.support + (c,), np.column_stack([Q, q]), left, corr, resid, float(resid @ resid))

