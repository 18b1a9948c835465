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
    """The JSON-safe part of a plugin's info mapping (numpy scalars and arrays converted, at any depth;
    a non-finite float as its text); an entry that holds anything else is left out (:func:`unsafe_keys`
    names them)."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        safe = _json_safe(value)
        if safe is not _UNSAFE:
            out[str(key)] = safe
    return out


def unsafe_keys(info: Mapping[str, Any]) -> list[str]:
    """The keys of ``info`` that :func:`jsonable` leaves out, each with the type that is not JSON-safe."""
    return [f"{key!s} ({_first_unsafe(value)})" for key, value in info.items() if _json_safe(value) is _UNSAFE]


_UNSAFE = object()
#: how deep an info value may nest before it is left out (a self-referencing list has no bottom)
_MAX_DEPTH = 32


def _json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-safe data, or :data:`_UNSAFE`."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, (np.floating, np.integer, np.bool_)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if depth >= _MAX_DEPTH:
        return _UNSAFE
    if isinstance(value, (list, tuple)):
        items = [_json_safe(v, depth + 1) for v in value]
        return _UNSAFE if any(v is _UNSAFE for v in items) else items
    if isinstance(value, dict) and all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in value):
        parts = {str(k): _json_safe(v, depth + 1) for k, v in value.items()}     # JSON's keys are text
        return _UNSAFE if any(v is _UNSAFE for v in parts.values()) else parts
    return _UNSAFE


def _first_unsafe(value: Any, depth: int = 0) -> str:
    """The type of the first part of ``value`` that is not JSON-safe."""
    if depth < _MAX_DEPTH and isinstance(value, (list, tuple, dict)):
        for part in (value.values() if isinstance(value, dict) else value):
            if _json_safe(part, depth + 1) is _UNSAFE:
                return _first_unsafe(part, depth + 1)
    return type(value).__name__
