"""Reading problem configs: TOML files, or specs resolved by plugins (``paper:burgers``)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from desyr.errors import ConfigError
from desyr.problem import Problem, problem_from_dict


def read_toml(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: malformed TOML: {exc}") from None


def load_problem_file(path: str | Path) -> Problem:
    return problem_from_dict(read_toml(path), source=str(path))


def load_problem(spec: str | Path, registry=None) -> Problem:
    """A file path, or a spec such as ``paper:burgers`` answered by a plugin hook."""
    if Path(spec).is_file() or registry is None:
        return load_problem_file(spec)
    return registry.load_problem(str(spec))
