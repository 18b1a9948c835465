"""Solver answers -> candidates that Stage B can refit.

Stage B refits a float constant only when it is not 0, not +-1, not an exponent
and not equal to another float of the tree (desyr.parameterize).  A solver's free
constants (``C1``, ``C2``...) and free rates therefore become distinct floats away
from those values; a constant that happened to start at 0 would vanish from the
tree before the refit could move it.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from desyr_sympy.shared.forms import outside_vocabulary

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

_CONSTANT = re.compile(r"C\d+")
#: golden-ratio steps give distinct values for every index, none near 0 or 1
_STEP = 0.6180339887498949


class Seeds:
    """Distinct starting values for free constants: 0.3..1.6, away from 1 and from each other."""

    def __init__(self) -> None:
        self.k = 0

    def next(self) -> float:
        while True:
            self.k += 1
            value = round(0.3 + 1.3 * ((self.k * _STEP) % 1.0), 6)
            if abs(value - 1.0) > 0.05:
                return value


def solver_constants(expr: sp.Expr) -> list[sp.Symbol]:
    """dsolve's integration constants C1, C2... in index order."""
    found = [s for s in expr.free_symbols if _CONSTANT.fullmatch(s.name) and not s.assumptions0.get("real")]
    return sorted(found, key=lambda s: int(s.name[1:]))


def free_constants(solution: Mapping[str, sp.Expr], seeds: Seeds | None = None) -> dict[str, sp.Expr]:
    """Replace every integration constant of a (possibly several-field) solution by one float.

    Shared constants get one value across fields: the fields stay a consistent
    starting point, and each field's parameterization still refits them separately.
    """
    seeds = seeds or Seeds()
    constants: list[sp.Symbol] = []
    for expr in solution.values():
        constants += [c for c in solver_constants(expr) if c not in constants]
    values = {c: sp.Float(seeds.next()) for c in constants}
    return {f: e.xreplace(values) for f, e in solution.items()}


def free_rate(value: sp.Expr, seeds: Seeds) -> sp.Expr:
    """An exact rate as a float the refit may move; a rate of +-1 starts 10 % off so it stays a parameter."""
    number = float(value)
    if abs(abs(number) - 1.0) < 1e-9:
        number *= 1.1
    return sp.Float(number) if number != 0 else sp.Float(seeds.next())


def usable(solution: Mapping[str, sp.Expr], variables: Iterable[sp.Symbol]) -> str:
    """Why a solution cannot be a candidate, or "" when it can."""
    allowed = set(variables)
    for field, expr in solution.items():
        bad = outside_vocabulary(expr)
        if bad:
            return f"{field} uses {', '.join(sorted(bad))}"
        extra = expr.free_symbols - allowed
        if extra:
            return f"{field} keeps unknown symbols {', '.join(sorted(map(str, extra)))}"
    return ""


class Pool:
    """Candidates in proposal order without duplicates, with the solver that gave each."""

    def __init__(self) -> None:
        self.candidates: list[dict[str, sp.Expr]] = []
        self.origins: list[str] = []
        self._keys: set[str] = set()

    def add(self, solution: Mapping[str, sp.Expr], origin: str) -> bool:
        key = repr(sorted((f, sp.srepr(e)) for f, e in solution.items()))
        if key in self._keys:
            return False
        self._keys.add(key)
        self.candidates.append(dict(solution))
        self.origins.append(origin)
        return True


#: points on each variable's range where a candidate must be real at its starting constants
_POINTS = 9
#: starting values tried for each constant, as multiples of its seed (the first that works is kept)
_MULTIPLES = (1.0, -1.0, 0.25, -0.25)
#: constants whose starting values are searched, at most (4**n variants)
MAX_SEARCHED = 4


def real_start(expr: sp.Expr, problem: Problem) -> sp.Expr:
    """``expr`` with its constants as starting floats that make it real and finite on the domain.

    Stage B screens out a candidate that is not finite where it starts, and a refit that starts
    across a pole rarely comes back: ``log(-C1*x - C2)`` at the usual positive seeds (:class:`Seeds`)
    is nowhere real on ``x > 0``, ``log(cos(C4*x + C1))`` with a phase of 1.1 crosses a zero.  Each
    constant tries its seed, its negative and a quarter of either; the first choice real on a grid
    of the domain's box is kept, else the seeds (Stage B's own choice)."""
    constants = solver_constants(expr)
    seeds = Seeds()
    base = [seeds.next() for _ in constants]
    grid = _grid(problem)
    searched = len(constants[:MAX_SEARCHED])
    try:
        # the expression and each denominator's factors: a factor that changes sign on the grid has a
        # pole between two of its points, which the values alone would not show
        numeric = sp.lambdify([*constants, *problem.symbols], [expr, *_denominators(expr)], modules="numpy")
    except (TypeError, ValueError, SyntaxError, NameError):
        return expr
    for multiples in itertools.product(_MULTIPLES, repeat=searched):
        values = [b * m for b, m in zip(base, multiples)] + base[searched:]
        if _real(numeric, values, grid):
            return expr.xreplace({c: sp.Float(v) for c, v in zip(constants, values)})
    return expr


def _grid(problem: Problem) -> list[np.ndarray]:
    axes = [np.linspace(float(lo), float(hi), _POINTS) for lo, hi in problem.bounds]
    return [a.ravel() for a in np.meshgrid(*axes)]


def _real(numeric: Callable[..., object], values: list[float], grid: list[np.ndarray]) -> bool:
    with np.errstate(all="ignore"):
        try:
            # real arithmetic: a log of a negative number is nan, never two imaginary parts that cancel
            value, *denominators = (np.broadcast_to(np.asarray(v, dtype=float), grid[0].shape)
                                    for v in numeric(*values, *grid))     # type: ignore[attr-defined]
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return False
    one_sign = all(np.all(d > 0) or np.all(d < 0) for d in denominators)
    return bool(np.all(np.isfinite(value)) and one_sign)


def _denominators(expr: sp.Expr) -> list[sp.Expr]:
    """The factors of every denominator in ``expr`` (``3*r - 1`` of ``(3*r - 1)**-2``)."""
    out: dict[sp.Expr, None] = {}
    for power in expr.atoms(sp.Pow):
        if power.exp.is_number and power.exp.is_negative:
            for factor in sp.Mul.make_args(power.base):
                inner = factor.base if isinstance(factor, sp.Pow) else factor
                if inner.free_symbols:
                    out[inner] = None
    return list(out)
