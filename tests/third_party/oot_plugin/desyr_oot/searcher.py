"""A sparse-regression searcher: a dictionary of separable terms and greedy sparse fits.

The dictionary holds, for every variable x and every unary operator f of the task
that this searcher knows, the terms f(k*x) for a grid of rates k (plain numbers and
multiples of pi, the latter kept exact so they are structure, not constants), plus
the monomials of total degree <= ``poly_degree`` (the constant 1 included). Best-subset
selection (small supports) with orthogonal matching pursuit and single swaps beyond it,
or sequentially thresholded least squares, picks supports of 1, 2, ... ``max_terms``
terms; each support's least-squares fit is a candidate member, and the members that are
not dominated (fewer nodes or a lower loss than every other) form the front.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from desyr.plugin import (ComponentError, Option, ParetoMember, SearchResult, Searcher, complexity,
                          teacher_fit_mse)

_UNARY = {"sin": sp.sin, "cos": sp.cos, "exp": sp.exp, "tanh": sp.tanh, "sinh": sp.sinh, "cosh": sp.cosh}
_NUMPY = {"sin": np.sin, "cos": np.cos, "exp": np.exp, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh}


class SparseSearcher(Searcher):
    """Best-subset / matching pursuit (``omp``, default) or STLSQ over separable basis terms."""

    name = "sparse"
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = frozenset(_UNARY)
    budget_ignored = frozenset({"iterations", "populations", "time_limit"})
    options = {
        "method": Option("omp", "how supports are chosen", kind=str, choices=("omp", "stlsq")),
        "max_terms": Option(4, "largest support (front members have 1..max_terms terms)", kind=int, low=1, high=20),
        "rates": Option([0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0], "plain rates k of the terms f(k*x)", kind=list,
                        item=float),
        "pi_multiples": Option([0.5, 1.0, 1.5, 2.0, 3.0, 4.0], "rates k = m*pi (kept exact)", kind=list,
                               item=float),
        "poly_degree": Option(2, "total degree of the polynomial terms", kind=int, low=0, high=6),
        "exhaustive_limit": Option(5000, "omp: try every support of a size with at most this many subsets",
                                   kind=int, low=0),
        "threshold": Option(1e-6, "STLSQ: relative coefficient threshold", kind=float, low=0.0),
    }

    def search(self, task):
        settings, ignored = self.settings_for(task)
        X, y = self.task_arrays(task)
        symbols = [sp.Symbol(name, real=True) for name in task.variables]
        terms, columns = self._dictionary(task, symbols, X, settings)
        keep = [j for j, col in enumerate(columns) if np.all(np.isfinite(col)) and np.linalg.norm(col) > 0]
        terms = [terms[j] for j in keep]
        if not terms:
            raise ComponentError(f"searcher '{self.name}': empty dictionary")
        A = np.column_stack([columns[j] for j in keep])
        scale = np.linalg.norm(A, axis=0)
        A = A / scale
        supports = (self._omp(A, y, settings["max_terms"], settings["exhaustive_limit"])
                    if settings["method"] == "omp"
                    else self._stlsq(A, y, settings["max_terms"], settings["threshold"]))
        front = []
        for support in supports:
            coef, *_ = np.linalg.lstsq(A[:, support], y, rcond=None)
            expr = sp.Add(*[sp.Float(float(c / scale[j])) * terms[j] for c, j in zip(coef, support)])
            size = complexity(expr)
            if size > task.max_size:
                continue
            loss = teacher_fit_mse(expr, symbols, X, y)
            if math.isfinite(loss):
                front.append(ParetoMember(expr, size, loss))
        front = _pareto(front)
        info = {"dictionary": len(terms), "method": settings["method"], "supports": len(supports),
                "ignored_budget": ignored}
        return SearchResult(front, info)

    # ---------------------------------------------------------------- internals
    def _dictionary(self, task, symbols, X, settings):
        terms, columns = [], []
        rates = [(sp.Float(k), k) for k in settings["rates"]]
        rates += [(sp.Rational(k).limit_denominator(100) * sp.pi, k * math.pi) for k in settings["pi_multiples"]]
        for op in task.unary:
            if op not in _UNARY:
                continue
            for (s, col), (k_sym, k_num) in itertools.product(zip(symbols, X.T), rates):
                terms.append(_UNARY[op](k_sym * s))
                with np.errstate(all="ignore"):
                    columns.append(_NUMPY[op](k_num * col))
        degree = int(settings["poly_degree"])
        for total in range(degree + 1):
            for e in itertools.product(range(total + 1), repeat=len(symbols)):
                if sum(e) == total:
                    terms.append(sp.Mul(*[s ** k for s, k in zip(symbols, e)]))
                    columns.append(np.prod([X[:, i] ** k for i, k in enumerate(e)], axis=0)
                                   if total else np.ones(len(X)))
        return terms, columns

    @staticmethod
    def _omp(A, y, max_terms, exhaustive_limit):
        """One support per size k = 1..max_terms: the best subset of k terms when there are at most
        ``exhaustive_limit`` of them, else the previous support grown greedily (orthogonal matching
        pursuit) and improved by single swaps. Stops once a support fits ``y`` to round-off."""
        n = A.shape[1]
        floor = 1e-28 * max(1.0, float(y @ y))
        supports, support = [], []
        for k in range(1, min(max_terms, n) + 1):
            if math.comb(n, k) <= exhaustive_limit:
                support = min((list(s) for s in itertools.combinations(range(n), k)), key=lambda s: _sse(A, y, s))
            else:
                residual = y - _fit(A, y, support) if support else y
                scores = np.abs(A.T @ residual)
                scores[support] = -1.0
                support = _swaps(A, y, support + [int(np.argmax(scores))])
            supports.append(sorted(support))
            if _sse(A, y, support) <= floor:
                break
        return supports

    @staticmethod
    def _stlsq(A, y, max_terms, threshold):
        """Thresholds rising geometrically; each distinct support with at most max_terms terms is a member."""
        coef, *_ = np.linalg.lstsq(A, y, rcond=None)
        top = float(np.max(np.abs(coef))) or 1.0
        seen, supports = set(), []
        for level in np.geomspace(max(threshold, 1e-12), 1.0, 40):
            support = np.flatnonzero(np.abs(coef) > level * top)
            for _ in range(10):
                if support.size == 0:
                    break
                c, *_ = np.linalg.lstsq(A[:, support], y, rcond=None)
                small = np.abs(c) <= level * top
                if not small.any():
                    break
                support = support[~small]
            key = tuple(int(j) for j in support)
            if 0 < len(key) <= max_terms and key not in seen:
                seen.add(key)
                supports.append(list(key))
        return sorted(supports, key=len)


def _pareto(members):
    """Members sorted by size, each kept only if it fits better than every smaller one."""
    front = []
    for m in sorted(members, key=lambda m: (m.complexity, m.loss)):
        if not front or m.loss < front[-1].loss:
            front.append(m)
    return front


def _fit(A, y, support):
    coef, *_ = np.linalg.lstsq(A[:, support], y, rcond=None)
    return A[:, support] @ coef


def _sse(A, y, support) -> float:
    r = y - _fit(A, y, list(support))
    return float(r @ r)


def _swaps(A, y, support, rounds=10):
    """Replace one term at a time while that lowers the squared error."""
    best = _sse(A, y, support)
    for _ in range(rounds):
        improved = False
        for i in range(len(support)):
            for j in range(A.shape[1]):
                if j in support:
                    continue
                trial = support[:i] + [j] + support[i + 1:]
                err = _sse(A, y, trial)
                if err < best * (1 - 1e-12):
                    support, best, improved = trial, err, True
        if not improved:
            break
    return support
