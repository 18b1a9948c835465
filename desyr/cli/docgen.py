"""Option tables in ``docs/`` generated from the declared specs, so the docs cannot drift.

A doc marks each generated table with a pair of comments::

    <!-- options: section search -->
    ...generated...
    <!-- /options -->

``section NAME`` renders :data:`desyr.config.settings.SECTIONS` ``[NAME]``; ``ROLE NAME``
(e.g. ``refiner scipy``) renders an installed component's options.  Run
``python -m desyr.cli.docgen`` to rewrite the tables; ``tests/test_docs.py`` fails when
a doc is out of date.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from desyr.config.settings import SECTIONS
from desyr.extension.options import markdown_table
from desyr.extension.registry import Registry, load_registry

DOCS = Path(__file__).resolve().parents[2] / "docs"
_BLOCK = re.compile(r"(<!-- options: (\w+) ([\w:]+) -->\n)(.*?)(<!-- /options -->)", re.S)


def table(kind: str, name: str, registry: Registry) -> str:
    if kind == "section":
        return markdown_table(SECTIONS[name])
    return markdown_table(registry.get(kind, name).options)


def render(text: str, registry: Registry) -> str:
    """``text`` with every marked block replaced by its generated table."""
    return _BLOCK.sub(lambda m: f"{m.group(1)}{table(m.group(2), m.group(3), registry)}\n{m.group(5)}", text)


def stale_docs(docs: Path = DOCS, registry: Registry | None = None) -> list[Path]:
    registry = registry or load_registry()
    return [p for p in sorted(docs.glob("*.md")) if render(p.read_text(encoding="utf-8"), registry) != p.read_text(encoding="utf-8")]


def main() -> int:
    registry = load_registry()
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        new = render(text, registry)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"updated {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
