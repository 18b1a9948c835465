"""No module imports another module's private (``_``-prefixed) name (issue 45, item 4).

A private name is a module's own business: a helper another module needs is public, in a module of its
own if need be.  The scan reads the source of ``desyr/``, ``plugins/`` and the scripts of ``bench/``:
``from m import _name`` and ``m._name`` where ``m`` is another module of the project (a name bound by
``import m`` or ``from p import m``).
There are none, in the core, in any plugin or in a bench script.
"""
from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "plugins":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    files = [*ROOT.glob("desyr/**/*.py"), *ROOT.glob("plugins/*/**/*.py")]
    modules = {_module_name(p): p for p in sorted(files) if "templates" not in p.parts}
    # the bench scripts, by file name: that is how they import each other (each is run from bench/)
    modules.update({p.stem: p for p in sorted(ROOT.glob("bench/*.py"))})
    return modules


def _source(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def crossings(path: Path, here: str, modules: dict[str, Path], root: Path = ROOT) -> Iterator[str]:
    """Each private name ``path`` (module ``here``) takes from another module of ``modules``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound: dict[str, str] = {}          # local name -> the project module it stands for
    rel = path.relative_to(root)
    attributes = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if _private(node.attr):
                attributes.append(node)
        elif isinstance(node, ast.ImportFrom):
            yield from _from_import(node, here, path.name == "__init__.py", modules, bound, rel)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
    for node in attributes:
        chain, value = [], node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in bound:
            target = ".".join([bound[value.id], *reversed(chain)])
            if target in modules and target != here:
                yield f"{rel}:{node.lineno}: {target}.{node.attr}"


def _from_import(node: ast.ImportFrom, here: str, is_package: bool, modules: dict[str, Path], bound: dict[str, str],
                 rel: Path) -> Iterator[str]:
    source = _source(node, here, is_package)
    if source not in modules:
        return
    for alias in node.names:
        if f"{source}.{alias.name}" in modules:
            bound[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif _private(alias.name) and source != here:
            yield f"{rel}:{node.lineno}: from {source} import {alias.name}"


@functools.cache
def all_crossings() -> list[str]:
    modules = _modules()
    return [c for name, path in modules.items() for c in crossings(path, name, modules)]


def test_no_private_name_crosses_a_module():
    found = all_crossings()
    assert found == [], "private names imported across modules (make them public, in a module of their own):\n" + \
        "\n".join(found)


def test_the_scan_finds_both_forms(tmp_path):
    """The check itself: ``from m import _x`` and ``m._x`` of another module are found, a module's own
    private names and dunders are not."""
    package = tmp_path / "plugins" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("_x = 1\n__all__ = []\n")
    (package / "b.py").write_text("from pkg.a import _x, __all__\nfrom pkg import a\nprint(a._x, _x)\n_y = 2\nprint(_y)\n")
    modules = {"pkg": package / "__init__.py", "pkg.a": package / "a.py", "pkg.b": package / "b.py"}
    found = list(crossings(package / "b.py", "pkg.b", modules, root=tmp_path))
    assert found == ["plugins/pkg/b.py:1: from pkg.a import _x", "plugins/pkg/b.py:3: pkg.a._x"]
