"""The core's shape: no heavy library at import, stage order, what the verifier reaches (import circles and
floors, TYPE_CHECKING imports and plugins included: tests/test_parts.py)."""
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
    names = ["exact_search", "teach", "search", "pool", "measure", "refit", "select", "run_residuals", "closed_form"]
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


STAGE_ORDER = ["exact_search", "teach", "search", "pool", "measure", "refit", "select", "run_residuals", "closed_form"]


def test_no_stage_imports_a_later_stage():
    """Stage B never reaches into Stage C (what both need lives in a stage-neutral module)."""
    graph = import_graph()
    for i, stage in enumerate(STAGE_ORDER):
        later = {f"desyr.stages.{s}" for s in STAGE_ORDER[i + 1:]}
        assert not graph[f"desyr.stages.{stage}"] & later, (stage, sorted(graph[f"desyr.stages.{stage}"] & later))


def test_plugins_import_desyr_only_through_the_plugin_surface():
    """Built-in plugins are written as a third party would write them: ``desyr.plugin`` is the whole
    surface (so what they need is exported, documented and kept stable)."""
    plugins = CORE.parent / "plugins"
    offending = []
    for path in sorted(plugins.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            offending += [f"{path.relative_to(plugins)}:{node.lineno} {n}" for n in names
                          if (n == "desyr" or n.startswith("desyr.")) and n != "desyr.plugin"]
    assert offending == []


def _calls_in_order(function: ast.FunctionDef | ast.If, names: set[str]) -> list[str]:
    """The calls of ``names`` in ``function``, in source order (nested calls after their callers)."""
    calls = [n for n in ast.walk(function) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id in names]
    return [c.func.id for c in sorted(calls, key=lambda c: (c.lineno, c.col_offset))]  # type: ignore[attr-defined]


def _api_function(name: str) -> ast.FunctionDef:
    tree = ast.parse("".join((CORE / "api" / m).read_text(encoding="utf-8") for m in ("pipeline.py", "ends.py")))
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


SHARED_STAGES = ["teach", "search_fields", "pool_searches"]
ONE_FIELD = ["pooled_candidates", "refine_pool", "run_gates"]
SEVERAL_FIELDS = ["screening_context", "coupled_groups", "refine_pool", "run_gates", "refit_winner"]


def test_run_shows_every_stage_in_order_for_one_field_and_for_several():
    """``_run`` trains the teacher, each ``_search_round`` (a round's seed waves) calls the searches and
    ``_select`` Stages B and C, for a coupled problem as for one field (no hidden B/C)."""
    body, rounds, select = _api_function("_run"), _api_function("_search_round"), _api_function("_select")
    branch = next(n for n in ast.walk(select) if isinstance(n, ast.If) and "fields" in ast.unparse(n.test))
    names = set(SHARED_STAGES + ONE_FIELD + SEVERAL_FIELDS + ["_select", "finish", "_search_round"])
    assert _calls_in_order(body, names) == SHARED_STAGES[:1] + ["_search_round"]
    assert _calls_in_order(rounds, names) == SHARED_STAGES[1:] + ["_select"]
    one = _calls_in_order(ast.Module(body=branch.body, type_ignores=[]), names)    # type: ignore[arg-type]
    several = _calls_in_order(ast.Module(body=branch.orelse, type_ignores=[]), names)  # type: ignore[arg-type]
    assert one == ONE_FIELD, one
    assert several == SEVERAL_FIELDS, several
    assert _calls_in_order(select, names)[-1] == "finish"
    finish = _calls_in_order(_api_function("finish"), {"verify_selection", "identify", "attach_verdict"})
    assert finish == ["verify_selection", "identify", "attach_verdict"]


def test_no_stage_assigns_to_a_run_context():
    """Stages return their outcomes; none writes into the (frozen) context they are given."""
    offenders = []
    for folder in ("stages", "coupled"):
        for path in sorted((CORE / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
                for target in targets:
                    for part in ast.walk(target):
                        if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and \
                                part.value.id in ("ctx", "context", "sctx", "rctx"):
                            offenders.append(f"{path.name}:{part.lineno}: {ast.unparse(part)} =")
    assert offenders == []


#: module names two files share, each a pair that says the same thing from two sides (the model's search
#: records and the search stage; the verifier's conditions and the symbolic ones); the list may only shrink
SHARED_NAMES = {"conditions", "regions", "search", "unknowns", "cli"}


def test_file_names_say_what_they_hold():
    """No new module name shared by two files (there were three ``solve.py``), and none named like a
    package beside it (``stages/verify.py`` beside ``verify/``) (issue 37)."""
    modules = [p for p in CORE.rglob("*.py") if p.stem not in ("__init__", "__main__")]
    packages = {p.name for p in CORE.rglob("*") if p.is_dir() and (p / "__init__.py").is_file()}
    stems = [p.stem for p in modules]
    shared = {s for s in stems if stems.count(s) > 1} | ({s for s in stems} & packages)
    assert shared <= SHARED_NAMES, sorted(shared - SHARED_NAMES)
    assert SHARED_NAMES <= shared, f"remove from SHARED_NAMES: {sorted(SHARED_NAMES - shared)}"
