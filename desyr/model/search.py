"""What crosses the searcher boundary: the task, front members and the typed search result."""
from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp


@dataclass
class SearchTask:
    """One seeded symbolic search on teacher samples for one field."""

    X: np.ndarray                 # (n, d) structure-search points X_S (read-only)
    y: np.ndarray                 # (n,) teacher values of the field (read-only)
    variables: Sequence[str]      # names of the columns of X, in order
    binary: Sequence[str]         # common vocabulary: + - * / ^
    unary: Sequence[str]          # common vocabulary: sin cos exp tanh log sqrt ...
    max_size: int                 # complexity bound C_max
    seed: int
    budget: Mapping[str, Any] = field(default_factory=dict)  # iterations, populations, time_limit
    field_name: str = "u"
    #: the geometry a searcher may build coordinates from (a similarity variable x/sqrt(t), a radius):
    #: which variable is time, and the centre of each disk, annulus, ball or cylinder of the domain, as
    #: spatial variable -> coordinate (a cylinder's in the plane across its axis)
    time: str | None = None
    centres: Sequence[Mapping[str, float]] = ()
    #: ``time.time()`` by which the search returns its best front so far (``--budget``); None: no wall.
    #: A search that runs on past it is stopped and left out of the pool (docs/plugins.md)
    deadline: float | None = None

    def seconds_left(self) -> float:
        """Seconds to ``deadline`` (infinite without one; never negative)."""
        return math.inf if self.deadline is None else max(self.deadline - time.time(), 0.0)


@dataclass
class ParetoMember:
    """One member of an empirical Pareto front."""

    expression: sp.Expr           # with sympy Float constants, in the problem's variables
    complexity: int               # raw search complexity (node count of the unsimplified tree)
    loss: float                   # teacher-fit MSE on X_S


@dataclass
class SearchResult:
    """What one seeded search returns: its empirical front and facts for the report.

    ``info`` holds JSON-safe facts (seconds, generations, dropped members, ...);
    anything else a searcher puts there is left out of ``result.json``.
    """

    front: list[ParetoMember]
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SolverAttempt:
    """One exact-solver call of an :class:`~desyr.extension.roles.ExactSearcher`, for the report."""

    solver: str
    seconds: float
    outcome: str            # "candidates: n", "no solution", "timeout", "not applicable", "skipped", "error: ..."
    detail: str = ""


@dataclass(frozen=True)
class Proposals:
    """What an exact searcher proposes from the equations alone: complete candidates (field ->
    expression, free constants as floats that Stage B refits), the solver of each, and every attempt."""

    candidates: tuple[Mapping[str, sp.Expr], ...] = ()
    origins: tuple[str, ...] = ()
    attempts: tuple[SolverAttempt, ...] = ()


def teacher_fit_mse(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray, y: np.ndarray) -> float:
    """Mean squared error of ``expr`` against ``y`` at the rows of ``X``; ``inf`` when not finite."""
    from desyr.symbolic.numeric import evaluate

    try:
        values = evaluate(expr, symbols, np.asarray(X, dtype=float))
    except Exception:  # an expression numpy cannot evaluate is unusable, not fatal
        return math.inf
    with np.errstate(all="ignore"):
        err = float(np.mean((values - np.asarray(y, dtype=float).ravel()) ** 2))
    return err if math.isfinite(err) else math.inf


def jsonable(info: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-safe part of a plugin's info mapping (numpy scalars and arrays converted)."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, np.ndarray):
            value = value.tolist()
        elif isinstance(value, (np.floating, np.integer, np.bool_)):
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            value = str(value)
        if isinstance(value, (str, int, float, bool, list, dict, type(None))):
            out[str(key)] = value
    return out
