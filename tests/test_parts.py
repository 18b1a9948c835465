"""The parts of the house and the rules between them (``docs/architecture/parts.json``), its floors
(``docs/architecture/floors.json``), and its circles, held against the real import graph of ``desyr/`` and
``plugins/``.

Every import counts: at module level, lazy ones inside functions, and those under ``if TYPE_CHECKING:``.
An annotation that names ``Problem`` ties a module to the data model as much as a call does (a change
of ``Problem`` breaks it), and a circle closed through one is still a circle. A "never" rule ``[A, B]``
is broken by one direct import of a module of part B from a module of part A; an import from one room
(a folder or file a floor lists) to another must go down to a lower floor; no files import each other
in a circle.
"""
from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
PARTS_FILE = ROOT / "docs" / "architecture" / "parts.json"
FLOORS_FILE = ROOT / "docs" / "architecture" / "floors.json"
SHARED_COPY = ROOT.parent / "shared" / "architecture" / "parts.json"
SOURCES = ("desyr", "plugins")


class Edge(NamedTuple):
    source: str          # the importing file, relative to the repository root
    line: int
    target: str          # the imported module's file, relative to the repository root
    name: str            # the import as written
    typing_only: bool


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for desyr and for each plugin package (importable as ``desyr_x``)."""
    found: dict[str, Path] = {}
    for top, base in (("desyr", ROOT), ("plugins", ROOT / "plugins")):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _typing_only_nodes(tree: ast.AST) -> set[int]:
    blocks = [b for b in ast.walk(tree) if isinstance(b, ast.If) and ast.unparse(b.test) in
              ("TYPE_CHECKING", "typing.TYPE_CHECKING")]
    return {id(n) for block in blocks for statement in block.body for n in ast.walk(statement)}


def _imported(node: ast.Import | ast.ImportFrom, package: str) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
        return
    base = node.module or ""
    if node.level:
        kept = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(kept + ([base] if base else []))
    yield from (f"{base}.{a.name}" for a in node.names)


def import_edges() -> list[Edge]:
    """Every import of a desyr or plugin module by a desyr or plugin module, anywhere in its body."""
    modules = module_files()
    edges = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = _typing_only_nodes(tree)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for written in _imported(node, package):
                target = written
                while target and target not in modules:     # `from pkg import name` names a module or a member
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.append(Edge(str(path.relative_to(ROOT)), node.lineno, str(modules[target].relative_to(ROOT)),
                                      written, id(node) in typing_only))
    return edges


def load_parts(path: Path = PARTS_FILE) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def part_of(file: str, parts: dict) -> str | None:
    """The part whose folder (or file) holds ``file``; the longest match wins; None outside every part."""
    best: tuple[int, str | None] = (0, None)
    for part, spec in parts["parts"].items():
        for place in spec["is"]:
            if (file == place or (place.endswith("/") and file.startswith(place))) and len(place) > best[0]:
                best = (len(place), part)
    return best[1]


def broken_rules(parts: dict, edges: list[Edge]) -> dict[tuple[str, str], list[str]]:
    """Each broken "never" rule -> the imports that break it (``file:line name``)."""
    never = {(a, b) for a, b, *_ in parts["never"]}
    broken: dict[tuple[str, str], list[str]] = {}
    for edge in edges:
        pair = (part_of(edge.source, parts), part_of(edge.target, parts))
        if pair in never:
            kind = " (TYPE_CHECKING)" if edge.typing_only else ""
            broken.setdefault(pair, []).append(f"{edge.source}:{edge.line} {edge.name}{kind}")  # type: ignore[arg-type]
    return broken


@pytest.fixture(scope="module")
def edges() -> list[Edge]:
    return import_edges()


def circles(edges: list[Edge]) -> list[list[str]]:
    """Every set of two or more files that import each other in a circle (strongly connected; Tarjan)."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def circle_report(circle: list[str], edges: list[Edge]) -> str:
    """A circle's files and the imports that tie them (``file:line name``)."""
    inside = [f"    {e.source}:{e.line} {e.name}{' (TYPE_CHECKING)' if e.typing_only else ''}"
              for e in edges if e.source in circle and e.target in circle]
    return f"{len(circle)} files: {', '.join(circle)}\n" + "\n".join(inside)


def load_floors(path: Path = FLOORS_FILE) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["floors"]


def room_of(file: str, floors: list[dict]) -> tuple[int, str] | None:
    """The floor (1 the ground) and the room (the place a floor lists; the longest match) of ``file``."""
    best: tuple[int, int, str] | None = None
    for number, floor in enumerate(floors, 1):
        for place in floor["is"]:
            if (file == place or (place.endswith("/") and file.startswith(place))) and \
                    (best is None or len(place) > best[0]):
                best = (len(place), number, place)
    return None if best is None else (best[1], best[2])


def upward_imports(floors: list[dict], edges: list[Edge]) -> list[str]:
    """Each import from one room to another that does not go down to a lower floor (``file:line name``)."""
    out = []
    for edge in edges:
        here, there = room_of(edge.source, floors), room_of(edge.target, floors)
        if here is None or there is None or here[1] == there[1] or here[0] > there[0]:
            continue
        kind = " (TYPE_CHECKING)" if edge.typing_only else ""
        out.append(f"{edge.source}:{edge.line} {edge.name}{kind}: floor {here[0]} ({here[1]}) imports floor "
                   f"{there[0]} ({there[1]})")
    return out


@pytest.mark.slow
def test_no_import_circle_anywhere(edges):
    """No files of ``desyr/`` or ``plugins/`` import each other in a circle, through lazy or TYPE_CHECKING
    imports included (issue 45, item 4)."""
    found = circles(edges)
    assert found == [], "import circles:\n" + "\n".join(circle_report(c, edges) for c in found)


@pytest.mark.slow
def test_no_import_runs_up_the_floors(edges):
    """Each import between two rooms goes down: a room uses only the floors below it (issue 45, item 4)."""
    up = upward_imports(load_floors(), edges)
    assert up == [], "imports that run up the floors (docs/architecture/floors.json):\n" + "\n".join(up)


def test_the_floors_file_places_every_file():
    """Every place a floor lists exists and is on one floor, and every module of ``desyr/`` and ``plugins/``
    is in a room (a new folder or top-level module must be given its floor)."""
    floors = load_floors()
    places = [place for floor in floors for place in floor["is"]]
    assert len(places) == len(set(places)), "a place is on two floors"
    assert all((ROOT / place).exists() for place in places), [p for p in places if not (ROOT / p).exists()]
    homeless = [str(p.relative_to(ROOT)) for top in SOURCES for p in sorted((ROOT / top).rglob("*.py"))
                if room_of(str(p.relative_to(ROOT)), floors) is None]
    assert homeless == []


def test_the_circle_and_floor_checks_fail_where_they_should():
    """A circle closed through a TYPE_CHECKING import is found, naming its files and imports; an import up a
    floor fails naming ``file:line``, one down or inside a room does not."""
    ring = [Edge("desyr/a/x.py", 3, "desyr/a/y.py", "desyr.a.y.f", False),
            Edge("desyr/a/y.py", 9, "desyr/a/z.py", "desyr.a.z", False),
            Edge("desyr/a/z.py", 2, "desyr/a/x.py", "desyr.a.x.T", True),
            Edge("desyr/a/z.py", 4, "desyr/b/w.py", "desyr.b.w", False)]
    assert circles(ring) == [["desyr/a/x.py", "desyr/a/y.py", "desyr/a/z.py"]]
    assert "desyr/a/z.py:2 desyr.a.x.T (TYPE_CHECKING)" in circle_report(circles(ring)[0], ring)
    assert circles(ring[:2]) == []
    floors = [{"is": ["desyr/b/"]}, {"is": ["desyr/a/", "desyr/c.py"]}]
    assert upward_imports(floors, ring) == []                   # inside a room, and down from floor 2 to 1
    up = [Edge("desyr/b/w.py", 7, "desyr/c.py", "desyr.c.g", False),
          Edge("desyr/a/x.py", 5, "desyr/c.py", "desyr.c", True)]
    assert upward_imports(floors, up) == [
        "desyr/b/w.py:7 desyr.c.g: floor 1 (desyr/b/) imports floor 2 (desyr/c.py)",
        "desyr/a/x.py:5 desyr.c (TYPE_CHECKING): floor 2 (desyr/a/) imports floor 2 (desyr/c.py)"]


@pytest.mark.slow
def test_no_never_rule_is_broken(edges):
    broken = broken_rules(load_parts(), edges)
    message = "\n".join(f"{a} -> {b}: {', '.join(where)}" for (a, b), where in sorted(broken.items()))
    assert broken == {}, message


def test_the_parts_file_describes_the_tree():
    """Every part's place exists, every rule names known parts, and every package of desyr/ and
    plugins/ belongs to a part (a new folder must be placed, not forgotten)."""
    parts = load_parts()
    names = set(parts["parts"])
    for part, spec in parts["parts"].items():
        for place in spec["is"]:
            assert (ROOT / place).exists(), (part, place)
    for rule in parts["never"] + parts["arrows"]:
        assert set(rule[:2]) <= names, rule
    for folder in [p for top in SOURCES for p in (ROOT / top).iterdir() if (p / "__init__.py").is_file()]:
        assert part_of(f"{folder.relative_to(ROOT)}/x.py", parts) is not None, folder


def test_every_rule_can_fail():
    """The check sees each kind of import: lazy, TYPE_CHECKING, relative, and from a plugin."""
    parts = {"parts": {"Model": {"is": ["desyr/model/"]}, "Runtime": {"is": ["desyr/runtime/"]},
                       "Plugins": {"is": ["plugins/"]}, "Stages": {"is": ["desyr/stages/"]}},
             "never": [["Model", "Runtime", ""], ["Plugins", "Stages", ""]]}
    edges = [Edge("desyr/model/a.py", 3, "desyr/runtime/progress.py", "desyr.runtime.progress", True),
             Edge("plugins/desyr_x/b.py", 5, "desyr/stages/pool.py", "desyr.stages.pool", False),
             Edge("desyr/runtime/c.py", 1, "desyr/model/problem.py", "desyr.model.problem", False)]
    broken = broken_rules(parts, edges)
    assert sorted(broken) == [("Model", "Runtime"), ("Plugins", "Stages")]
    assert broken["Model", "Runtime"] == ["desyr/model/a.py:3 desyr.runtime.progress (TYPE_CHECKING)"]


@pytest.mark.slow
def test_the_graph_holds_lazy_relative_and_typing_imports(edges):
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import c\n"
                     "def f():\n    from ..d import e\n")
    assert len(_typing_only_nodes(tree)) > 0
    written = [w for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for w in _imported(node, "desyr.x")]
    assert written == ["typing.TYPE_CHECKING", "desyr.x.b.c", "desyr.d.e"]
    # the real graph: a lazy import inside a function and a plugin's import are both there
    assert any(e.source.startswith("plugins/") and e.target == "desyr/plugin.py" for e in edges)
    assert any(e.typing_only for e in edges)


def test_the_shared_copy_is_reported_when_it_differs():
    """The maintained copy lives in the repository (CI has no ../shared); a difference from the shared
    architecture file is shown, never a failure by itself."""
    if not SHARED_COPY.is_file():
        pytest.skip("no ../shared/architecture/parts.json beside this checkout")
    if load_parts(SHARED_COPY) != load_parts():
        pytest.skip(f"docs/architecture/parts.json differs from {SHARED_COPY}: bring the rules in step")


def test_a_hand_built_context_reports_on_stderr_without_the_runtime(capsys):
    """``RunContext.progress`` is a protocol the model names; a context built by hand still writes the
    stage lines a run writes (the runtime's ``Progress`` is passed by the run)."""
    import sys

    from desyr.model.context import Reporter, RunContext, StderrLines
    from desyr.runtime.progress import Progress

    ctx = RunContext(None, None)  # type: ignore[arg-type]
    assert isinstance(ctx.progress, StderrLines)
    ctx.progress.message("stage B: refit 1 candidate(s)")
    ctx.progress.warning("careful")
    ctx.progress.bar("refit", 1, 2)
    assert capsys.readouterr().err == "[desyr] stage B: refit 1 candidate(s)\ndesyr: warning: careful\n"
    reporter: Reporter = Progress(stream=sys.stderr)       # the runtime's Progress fills the protocol
    assert callable(reporter.bar)


STORED_RESULT = ROOT / "tests" / "fixtures" / "study_bench" / "runs" / "tiny_sine-e67310d4d17f" / "seed0"


def test_a_result_shows_the_views_it_was_given_whatever_was_imported(tmp_path):
    """The data model draws nothing and holds no registry of views: a result shows itself with the views
    whoever made it gave (``desyr.api``'s results: the report's), so the same file read by the data
    model alone shows no HTML before and after ``desyr.api`` is imported; the views never reach the file."""
    import json

    from desyr.errors import ConfigError
    from desyr.model.result import Result, load_result

    bare = load_result(STORED_RESULT)
    assert bare.views is None and bare._repr_html_() is None and bare._repr_latex_() is None
    with pytest.raises(ConfigError, match="desyr.api.load_result"):
        bare.candidates_table()

    import desyr.api
    from desyr.report.notebook import NOTEBOOK_VIEWS

    assert load_result(STORED_RESULT)._repr_latex_() is None          # importing the api changed nothing here
    shown = desyr.api.load_result(STORED_RESULT)
    assert shown.views is NOTEBOOK_VIEWS and shown == bare              # views are not part of the data
    assert shown._repr_latex_() == "$$ u = \\sin{\\left(\\pi x \\right)} $$"
    assert "views" not in shown.to_dict()
    data = json.loads(shown.to_json())
    data["views"] = {"html": "x"}                                        # a file cannot give a result views
    assert Result.from_dict(data).views is None
