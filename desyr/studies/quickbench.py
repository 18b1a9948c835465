"""The tiny bench a quick study runs when it reads archived runs and no ``--bench`` is given.

A plugin offers it (hook ``desyr_study_bench``: its configs, the environment its runs need and a
note); this module runs it with the real ``desyr bench`` in ``<out>``.  The configs are copied to
``<out>/configs`` so the studies can reload them wherever the folder is moved.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from desyr.errors import ConfigError

if TYPE_CHECKING:
    from desyr.extension.contributed import StudyBench
    from desyr.extension.registry import Registry


def make_quick_bench(registry: Registry, out: str | Path, seeds: int = 2, quiet: bool = True) -> tuple[Path, str]:
    """Run (or resume) the plugin's tiny bench in ``out``; returns ``out`` and the plugin's note."""
    from desyr.bench.suite import bench
    from desyr.extension.declared import study_bench
    from desyr.runtime.progress import Progress

    offered = study_bench(registry)
    if offered is None:
        raise ConfigError("no installed plugin offers a tiny bench for --quick (hook desyr_study_bench); "
                          "give --bench DIR")
    out = Path(out)
    paths = write_configs(offered, out / "configs")
    with environment(offered.environment):     # the plugin's consent, for its own configs' runs only
        bench(registry, paths, False, seeds, out, 600.0, Progress(verbose=not quiet),
              f"desyr study (tiny bench, {seeds} seeds)")
    return out, offered.note


def write_configs(offered: StudyBench, folder: Path) -> list[str]:
    """The configs as files (rewritten only when changed, so a resumed bench keeps its runs)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in offered.configs.items():
        if not name.isidentifier():
            raise ConfigError(f"tiny bench config name {name!r} is not a plain name")
        path = folder / f"{name}.toml"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


@contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` set in ``os.environ`` for the block, the old values back after it."""
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in before.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
