"""What a verification request holds: the config text, expression text, an exact form, a seed."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desyr.model.problem import Problem

REQUEST_SCHEMA = "desyr.verify-request/1"


def config_of(problem: Problem) -> dict[str, str]:
    """The problem as the verifier reads it: its config text (never the Python object)."""
    if not problem.config_text:
        raise ValueError(f"problem {problem.name!r} carries no config text; load it with desyr's loaders")
    return {"format": problem.config_format, "text": problem.config_text, "source": _source(problem)}


def _source(problem: Problem) -> str:
    """The config's path as the verifier, which runs in another folder, can find it: absolute where
    the config reads a data file relative to its own folder (``[observations] file``)."""
    obs = problem.observations
    if obs is not None and obs.origin.startswith("file") and Path(problem.source).is_file():
        return str(Path(problem.source).resolve())
    return problem.source


def make_request(problem: Problem, expressions: Mapping[str, str],
                 exact_expressions: Mapping[str, str] | None = None, seed: int | None = None) -> dict[str, Any]:
    """A request; ``seed`` replays the points of an earlier verdict (its ``seed``), and without one the
    verifier draws them from fresh entropy and records the seed in its answer."""
    return {"schema": REQUEST_SCHEMA, "config": config_of(problem),
            "expressions": {str(k): str(v) for k, v in expressions.items()},
            "exact_expressions": None if exact_expressions is None
            else {str(k): str(v) for k, v in exact_expressions.items()},
            "seed": None if seed is None else int(seed)}
