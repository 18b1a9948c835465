"""Solver answers -> candidates that Stage B can refit.

Stage B refits a float constant only when it is not 0, not +-1, not an exponent
and not equal to another float of the tree (desyr.parameterize).  A solver's free
constants (``C1``, ``C2``...) and free rates therefore become distinct floats away
from those values; a constant that happened to start at 0 would vanish from the
tree before the refit could move it.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import sympy as sp

from desyr_sympy.forms import outside_vocabulary

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
