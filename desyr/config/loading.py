"""Loading problems: a config file, or a spec such as ``paper:burgers`` that a plugin answers.

Reading a config as data is :mod:`desyr.config.reading`, which the verifier uses alone; only
resolving a spec needs the plugins, so only this module may reach the registry.
"""
from __future__ import annotations

from pathlib import Path

from desyr.config.reading import (
    load_problem_file,
    problem_from_dict,
    problem_from_toml,
    read_toml,
    tomllib,
)
from desyr.model.problem import Problem

__all__ = ["load_problem", "load_problem_file", "problem_from_dict", "problem_from_toml",
           "read_toml", "tomllib"]


def load_problem(spec: str | Path, registry=None) -> Problem:
    """A file path, or a spec such as ``paper:burgers`` answered by a plugin's problem hook
    (the installed plugins are loaded when no registry is given)."""
    if Path(spec).is_file() or str(spec).endswith(".toml"):
        return load_problem_file(spec)
    if registry is None:
        from desyr.extension.registry import load_registry
        registry = load_registry()
    return registry.load_problem(str(spec))

