"""What a run carries between stages, and the typed facts each stage records for the result."""
from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from desyr.model.constants import METHOD, MethodConstants
from desyr.model.points import PointSets
from desyr.model.problem import Problem


class Reporter(Protocol):
    """Where a stage's lines go. The data model names what it calls, and the run supplies it
    (``desyr.runtime.progress.Progress``: live bars on a terminal, tqdm in a notebook)."""

    def message(self, text: str) -> None: ...

    def warning(self, text: str) -> None: ...

    def bar(self, label: str, done: int, total: int, **fields: object) -> None: ...


class StderrLines:
    """The reporter of a context built by hand: the same stage lines on stderr as a run's, no live bars
    (a run passes the runtime's ``Progress``)."""

    def message(self, text: str) -> None:
        print(f"[desyr] {text}", file=sys.stderr, flush=True)

    def warning(self, text: str) -> None:
        print(f"desyr: warning: {text}", file=sys.stderr, flush=True)

    def bar(self, label: str, done: int, total: int, **fields: object) -> None:
        """No live bar outside a run."""


@dataclass
class TeacherInfo:
    """Stage A, teacher: which plugin, and the JSON-safe facts its model reports."""

    plugin: str
    facts: dict[str, Any] = field(default_factory=dict)   # training time, S_val history, cache key, ...

    @property
    def selected_step(self) -> int | None:
        step = self.facts.get("selected_step")
        return step if isinstance(step, int) else None


@dataclass
class SearchRun:
    """One seeded search: its front and what the searcher reported."""

    field: str
    seed: int
    front_size: int
    kept: int
    seconds: float
    front: list[dict[str, Any]]
    # `field` is an attribute name here, so the dataclasses helper is spelled out
    dropped: list[str] = dataclasses.field(default_factory=list)   # members the core rejected, with reasons
    info: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclass
class SearchInfo:
    """Stage A, search: the plugin, settings, every run, and the pool sizes."""

    plugin: str
    seeds: list[int]
    binary: list[str]
    unary: list[str]
    max_size: int
    runs: list[SearchRun] = field(default_factory=list)
    pool_size_per_field: dict[str, int] = field(default_factory=dict)
    pool_size: int = 0
    skipped_seeds: list[int] = field(default_factory=list)   # not searched: an earlier wave was verified exact


@dataclass(frozen=True)
class CoupledInfo:
    """The coupled stage: augmentation, shortlists, group ranking and screening."""

    settings: dict[str, Any]
    augmentation: dict[str, Any]
    shortlists: dict[str, Any]
    groups: int
    screened: int
    screening_seconds: float


@dataclass(frozen=True)
class RunContext:
    """What a teacher and a gate are given about the run: the problem, its point sets, the seed, the
    teacher's values on the search points and the method constants. Components read it; it is frozen,
    so a component cannot change the run it is part of. The core derives a new context
    (:func:`dataclasses.replace`) when a later stage needs more, e.g. the teacher's values."""

    problem: Problem
    points: PointSets
    seed: int = 0
    teacher_values: np.ndarray | None = None      # (N_S, n_fields) teacher samples on points.search
    method: MethodConstants = METHOD
    cache_dir: Path = Path(".desyr-cache")
    retrain: bool = False
    progress: Reporter = field(default_factory=StderrLines)
    # desyr.runtime.execution.Units: where units run and the run store (Any: the model does not import the executors)
    units: Any = None
    #: ``time.time()`` by which the component's stage should return its best so far (``--budget``);
    #: None: no wall. A teacher that trains in steps checks it between them (docs/escalation.md).
    deadline: float | None = None
    #: the teacher's estimates of the problem's unknown coefficients (``[unknowns]``), where it trained them
    unknown_estimates: Mapping[str, float] = field(default_factory=dict)
    #: ``time.time()`` by which the whole run returns (``--budget``; None: no wall). A call that runs past
    #: its ``deadline`` is stopped, at the latest a moment after the wall (docs/escalation.md)
    wall: float | None = None

    def seconds_left(self) -> float:
        """Seconds to ``deadline`` (infinite without one; never negative)."""
        return math.inf if self.deadline is None else max(self.deadline - time.time(), 0.0)

    @property
    def has_teacher(self) -> bool:
        return self.teacher_values is not None

    @property
    def constraint_weight(self) -> float:
        return self.method.constraint_weight
