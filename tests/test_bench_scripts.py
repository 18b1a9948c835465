"""Every script under ``bench/`` still imports: docs/benchmarks.md and docs/scaling.md tell users to run
them, and a script left behind by a renamed or removed name fails only when someone runs it.

Each script is imported as a module (its ``main`` not run): the import must print nothing (no work at
the top level) and leave ``main`` to call (a helper that other scripts import, run by none, has none).
The imports a script makes inside its functions (kept there so that importing it stays cheap, e.g. a
teacher's torch) are checked without running them: each name taken from DeSyR's core is looked up in
its module (the core imports no torch, JAX or Julia, tests/test_core_names.py), and each name taken
from a plugin package is found among the top-level definitions of that module's source, which is
read, not run.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SCRIPTS = sorted(BENCH.glob("*.py"))
#: the project's own top-level packages: the core and each plugin package
PLUGINS = {p.name for p in (ROOT / "plugins").iterdir() if (p / "__init__.py").is_file()}


def test_there_are_scripts_to_check():
    assert len(SCRIPTS) >= 10, SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_script_imports_and_runs_nothing_until_main(script, monkeypatch, capsys):
    monkeypatch.setattr(sys, "path", list(sys.path))      # a script that puts bench/ on the path leaves no trace
    before = set(sys.modules)
    spec = importlib.util.spec_from_file_location(f"bench_script_{script.stem}", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    finally:
        for name in set(sys.modules) - before:       # the sibling scripts it imported (bench/ is not a package)
            if Path(getattr(sys.modules[name], "__file__", None) or "/").resolve().parent == BENCH:
                del sys.modules[name]
    out, err = capsys.readouterr()
    assert (out, err) == ("", ""), f"{script.name} works when imported: move it under main()"
    if script.stem not in helpers():
        assert callable(getattr(module, "main", None)), f"{script.name} has no main() to run"


def helpers() -> set[str]:
    """The modules of bench/ that other scripts import and that are not run themselves (no ``__main__``)."""
    imported = {a.name for s in SCRIPTS for n in ast.walk(ast.parse(s.read_text(encoding="utf-8")))
                if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for s in SCRIPTS for n in ast.walk(ast.parse(s.read_text(encoding="utf-8")))
                 if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    return {s.stem for s in SCRIPTS if s.stem in imported and '"__main__"' not in s.read_text(encoding="utf-8")}


def deferred_imports(script: Path) -> Iterator[tuple[int, str, list[str]]]:
    """``(line, module, names)`` of each import of a project module inside a function of ``script``."""
    for func in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found = node.module, [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                found = node.names[0].name, []
            else:
                continue
            if found[0].split(".")[0] in {"desyr", *PLUGINS}:
                yield node.lineno, *found


def top_level_names(path: Path) -> set[str]:
    """What a module's source defines or imports at its top level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def missing(module: str, names: list[str]) -> list[str]:
    """The names ``from module import names`` would not find (the module itself when it is not there)."""
    if module.split(".")[0] == "desyr":
        try:
            loaded = importlib.import_module(module)
        except ImportError as exc:
            return [f"{module} ({exc})"]
        return [n for n in names if not hasattr(loaded, n) and not is_module(f"{module}.{n}")]
    if not is_module(module):                         # a plugin: its parent packages load, the module is only read
        return [module]
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    defined = top_level_names(Path(spec.origin))
    return [n for n in names if n not in defined and not is_module(f"{module}.{n}")]


def is_module(name: str) -> bool:
    """Whether ``name`` is a module (found, not run; its parent packages are imported)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:       # a parent that is a module, not a package
        return False


@pytest.mark.parametrize("script", [s for s in SCRIPTS if any(deferred_imports(s))], ids=lambda p: p.name)
def test_the_imports_inside_its_functions_find_their_names(script):
    broken = [f"{script.name}:{line}: from {module} import {', '.join(names)}: {', '.join(gone)} not found"
              for line, module, names in deferred_imports(script) if (gone := missing(module, names))]
    assert broken == []


def test_the_deferred_check_finds_a_removed_name(tmp_path):
    """The check itself: a name the core no longer has, a plugin module's missing name and a missing
    plugin module are reported; names that exist (a plugin's, read from its source) are not."""
    plugin = sorted(PLUGINS)[0]
    script = tmp_path / "old.py"
    script.write_text("def main():\n"
                      "    from desyr.stages.search import search_fields, search_settings\n"
                      f"    from {plugin} import no_such_name\n"
                      f"    from {plugin}.no_such_module import x\n"
                      "    from desyr.plugin import load_registry\n")
    found = {line: missing(module, names) for line, module, names in deferred_imports(script)}
    assert found == {2: ["search_settings"], 3: ["no_such_name"], 4: [f"{plugin}.no_such_module"], 5: []}
