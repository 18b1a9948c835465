"""The package's problem library: ``oot:<name>`` specs read from ``desyr_oot/data/<name>.toml``."""
from __future__ import annotations

from importlib import resources

from desyr.plugin import ConfigError
from desyr.testing import make_problem

PREFIX = "oot:"


def _library() -> dict[str, str]:
    folder = resources.files("desyr_oot") / "data"
    return {f.name[:-5]: f.read_text(encoding="utf-8") for f in folder.iterdir() if f.name.endswith(".toml")}


def load(spec: str):
    if not spec.startswith(PREFIX):
        return None
    library = _library()
    name = spec[len(PREFIX):]
    if name not in library:
        raise ConfigError(f"unknown problem {spec!r}; available: {', '.join(PREFIX + n for n in sorted(library))}")
    return make_problem(library[name], source=spec)


def listing() -> list[tuple[str, str]]:
    rows = []
    for name, text in sorted(_library().items()):
        title = make_problem(text, source=PREFIX + name).title
        rows.append((PREFIX + name, title))
    return rows
