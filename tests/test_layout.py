"""The core's shape: no import cycles (lazy imports included), no heavy library at import, stage order."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

import desyr

CORE = Path(desyr.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(CORE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every desyr module -> the desyr modules it imports anywhere in its body (lazy ones too; not the
    imports under ``if TYPE_CHECKING:``, which never run)."""
    modules = {module_name(p): p for p in CORE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # Imports under `if TYPE_CHECKING:` never run; they are annotations, not dependencies.
        typing_only = {id(n) for block in ast.walk(tree)
                       if isinstance(block, ast.If) and getattr(block.test, "id", None) == "TYPE_CHECKING"
                       for n in ast.walk(block)}
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


@pytest.mark.slow
def test_no_import_cycles_including_lazy_imports():
    graph = import_graph()
    assert "desyr.api" in graph and "desyr.stages.search" in graph
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.slow
def test_the_coupled_path_and_the_stages_do_not_import_the_api():
    graph = import_graph()
    reach = {}

    def reachable(start):
        if start not in reach:
            reach[start] = set()
            for nxt in graph[start]:
                reach[start] |= {nxt} | reachable(nxt)
        return reach[start]

    for module in graph:
        if module.startswith(("desyr.coupled", "desyr.stages", "desyr.model", "desyr.extension.roles", "desyr.plugin")):
            assert "desyr.api" not in reachable(module), module


@pytest.mark.slow
def test_core_imports_no_heavy_library():
    code = ("import sys, desyr.api, desyr.cli.main, desyr.plugin, desyr.testing, desyr.exact; "
            "heavy = [m for m in ('torch', 'deepxde', 'pyoperon', 'gplearn', 'pysr', 'juliacall', 'sklearn', 'jax') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_stage_modules_exist_in_order():
    names = ["teach", "search", "pool", "refit", "select", "verify", "closed_form"]
    assert all((CORE / "stages" / f"{n}.py").is_file() for n in names)


@pytest.mark.slow
def test_the_verifier_reaches_no_plugin_machinery():
    """What runs in the verifier process (desyr.verify, except the run-side attach and command) reaches
    neither the registry nor the stages nor the api: its only inputs are the config text and expressions."""
    graph = import_graph()
    reach: dict[str, set[str]] = {}

    def reachable(start: str) -> set[str]:
        if start not in reach:
            reach[start] = set()
            for nxt in graph[start]:
                reach[start] |= {nxt} | reachable(nxt)
        return reach[start]

    inside = ["desyr.verify.__main__", "desyr.verify.verdict", "desyr.verify.proof", "desyr.verify.regularity"]
    forbidden = ("desyr.extension.registry", "desyr.api", "desyr.stages", "desyr.extension.roles", "desyr.plugin", "desyr.runtime.execution",
                 "desyr.runtime.store", "desyr.model.result", "desyr.verify.attach", "desyr.verify.command")
    for module in inside:
        bad = sorted(m for m in reachable(module) if m.startswith(forbidden))
        assert bad == [], (module, bad)
