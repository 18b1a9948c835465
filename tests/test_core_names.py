"""The core names no plugin: defaults, gate sequences, escalation families, executors, the paper set
and study defaults all come through hooks or declarations, so a third-party component can stand in
for any built-in one. Every string constant in desyr/ (docstrings aside) is checked."""
import ast
from pathlib import Path

import desyr
from desyr.extension.registry import load_registry

CORE = Path(desyr.__file__).resolve().parent
#: (file, name) pairs not yet moved to a declaration; each must go, and the list may only shrink
NOT_YET: set[tuple[str, str]] = set()
#: built-in names that are also the core's own words (a candidate's complexity, a refit's convergence,
#: the config's [paper] table, the SymPy export format): as plain strings they are not a component;
#: compared with a component's ``.name`` they are
ORDINARY_WORDS = {"complexity", "convergence", "paper", "sympy"}


def builtin_names() -> set[str]:
    registry = load_registry()
    names = {n for role in ("teacher", "searcher", "refiner", "gate", "executor") for n in registry.names(role)}
    names |= {s.name for s in registry.problem_sets()} | {f"{s.name}:" for s in registry.problem_sets()}
    names.discard("")
    return names


def docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def offences(path: Path, names: set[str], root: Path = CORE.parent) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    rel = str(path.relative_to(root))
    found = [(rel, node.value) for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
             and node.value in names - ORDINARY_WORDS]
    return found + [(rel, name) for name in compared_with_a_name(tree) if name in names]


def compared_with_a_name(tree: ast.AST) -> list[str]:
    """String constants compared with some ``x.name`` (``g.name == "complexity"``)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and s.attr == "name" for s in sides):
                out += [s.value for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)]
    return out


def test_the_builtin_names_are_known():
    names = builtin_names()
    assert {"operon", "dictionary", "scipy", "serial", "processes", "paper"} <= names


def test_no_core_module_names_a_builtin_component():
    names = builtin_names()
    found = {o for path in sorted(CORE.rglob("*.py")) for o in offences(path, names)}
    assert found - NOT_YET == set(), sorted(found - NOT_YET)
    assert NOT_YET - found == set(), f"remove from NOT_YET: {sorted(NOT_YET - found)}"


def test_the_check_sees_a_name(tmp_path):
    bad = tmp_path / "m.py"
    bad.write_text('"""operon in a docstring is fine."""\nFAMILIES = ("dictionary", "operon")\n'
                   'x = {"complexity": 1}\nif g.name == "complexity":\n    pass\n')
    found = sorted(name for _, name in offences(bad, {"operon", "dictionary", "complexity"}, root=tmp_path))
    assert found == ["complexity", "dictionary", "operon"]
