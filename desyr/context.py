"""What a run carries between stages."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from desyr.points import PointSets
from desyr.problem import Problem
from desyr.progress import Progress


@dataclass
class RunContext:
    problem: Problem
    points: PointSets
    seed: int = 0
    teacher_values: np.ndarray | None = None      # (N_S, n_fields) teacher samples on points.search
    constraint_weight: float = 100.0
    cache_dir: Path = Path(".desyr-cache")
    retrain: bool = False
    progress: Progress = field(default_factory=Progress)
    timings: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def has_teacher(self) -> bool:
        return self.teacher_values is not None
