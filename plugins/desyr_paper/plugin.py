"""The paper's benchmark configurations, reachable as ``paper:<name>`` or ``paper:<id>``."""
from __future__ import annotations

from importlib import resources

from desyr.plugin import hookimpl

PREFIX = "paper:"


def _library() -> dict[str, object]:
    """file stem -> resource, e.g. '13_burgers'."""
    folder = resources.files("desyr_paper") / "problems"
    return {f.name[:-5]: f for f in folder.iterdir() if f.name.endswith(".toml")}


def _lookup(key: str):
    key = key.lower().replace("-", "_")
    for stem, res in sorted(_library().items()):
        ident, _, name = stem.partition("_")
        if key in (stem, name, ident, ident.lstrip("0")):
            return stem, res
    return None


@hookimpl
def desyr_load_problem(spec):
    if not spec.startswith(PREFIX):
        return None
    from desyr.errors import ConfigError
    from desyr.plugin import problem_from_toml

    found = _lookup(spec[len(PREFIX):])
    if found is None:
        names = ", ".join(PREFIX + s.partition("_")[2] for s in sorted(_library()))
        raise ConfigError(f"unknown bundled problem {spec!r}; available: {names}")
    stem, res = found
    return problem_from_toml(res.read_text(encoding="utf-8"), source=f"{PREFIX}{stem.partition('_')[2]}")


@hookimpl
def desyr_problem_library():
    from desyr.model.loading import tomllib

    rows = []
    for stem, res in sorted(_library().items()):
        data = tomllib.loads(res.read_text(encoding="utf-8"))
        rows.append((f"{PREFIX}{stem.partition('_')[2]}", f"[{stem.partition('_')[0]}] {data.get('title', stem)}"))
    return rows
