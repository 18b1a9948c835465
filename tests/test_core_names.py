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
#: the config's [paper] table, the SymPy export format, SciPy as a lambdify module): as plain strings they are
#: not a component; compared with a component's ``.name`` they are
ORDINARY_WORDS = {"complexity", "convergence", "paper", "sympy", "scipy"}


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


# ------------------------------------------------------------ what plugins declare (issue 37, item 2)
def builtin_declarations():
    """The built-in plugins' flags, environment variables, executor options and config sections."""
    from desyr.config.settings import tables_of
    from desyr.extension.declared import cli_options

    registry = load_registry()
    options = [o for _, o in cli_options(registry)]
    texts = {o.flag for o in options} | {o.environment for o in options if o.environment}
    keys = {o.executor_option for o in options if o.executor_option}
    return texts, keys, set(tables_of(registry).sections)


#: (file, what) pairs not yet moved to a declaration; the list may only shrink
NOT_YET_DECLARED: set[tuple[str, str]] = set()

def declaration_offences(path: Path, texts: set[str], keys: set[str], sections: set[str], components: set[str],
                         root: Path = CORE.parent) -> set[tuple[str, str]]:
    """A flag or variable of a plugin inside any string, an executor option's name as a string, a
    plugin's section read from ``.sections``, a config text naming a component (``plugin = "x"``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    rel = str(path.relative_to(root))
    found: set[tuple[str, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found |= {(rel, t) for t in texts if t in node.value}
            found |= {(rel, node.value) for k in keys if node.value == k}
            found |= {(rel, f'plugin = "{c}"') for c in components if f'plugin = "{c}"' in node.value}
        if isinstance(node, ast.Subscript) and _is_sections(node.value) and _text(node.slice) in sections:
            found.add((rel, f"[{_text(node.slice)}]"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and _is_sections(node.func.value) and node.args and _text(node.args[0]) in sections:
            found.add((rel, f"[{_text(node.args[0])}]"))
    return found


def _is_sections(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr in ("sections", "SECTIONS")) or \
        (isinstance(node, ast.Name) and node.id in ("sections", "SECTIONS"))


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def test_the_builtin_declarations_are_known():
    texts, keys, sections = builtin_declarations()
    assert {"--scheduler", "--allow-callable", "DESYR_ALLOW_CALLABLE"} <= texts
    assert "scheduler" in keys and "paper" in sections


def test_no_core_module_names_a_plugins_option_variable_or_section():
    texts, keys, sections = builtin_declarations()
    components = builtin_names()
    found = {o for path in sorted(CORE.rglob("*.py"))
             for o in declaration_offences(path, texts, keys, sections, components)}
    assert found - NOT_YET_DECLARED == set(), sorted(found - NOT_YET_DECLARED)
    assert NOT_YET_DECLARED - found == set(), f"remove from NOT_YET_DECLARED: {sorted(NOT_YET_DECLARED - found)}"


def test_the_core_declares_no_plugin_section():
    from desyr.config.settings import SECTIONS

    assert not set(SECTIONS) & builtin_declarations()[2]


def test_the_declaration_check_sees_each_kind(tmp_path):
    bad = tmp_path / "m.py"
    bad.write_text('"""--scheduler in a docstring is fine."""\nHELP = "pass --scheduler ADDRESS"\n'
                   'opts = {"scheduler": 1}\nx = problem.sections.get("paper")\ny = sections["paper"]\n'
                   'env = "DESYR_ALLOW_CALLABLE"\ncfg = \'[search]\\nplugin = "operon"\\n\'\n')
    found = sorted(w for _, w in declaration_offences(bad, {"--scheduler", "DESYR_ALLOW_CALLABLE"}, {"scheduler"},
                                                      {"paper"}, {"operon"}, root=tmp_path))
    assert found == ["--scheduler", "DESYR_ALLOW_CALLABLE", "[paper]", 'plugin = "operon"', "scheduler"]
