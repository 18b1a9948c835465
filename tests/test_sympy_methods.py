"""The SymPy searcher as a package of exact methods (issue 45, item 3): one base class, one module per
method, one ordered list that every name table, the help text and the docs' table are built from, and
a new method that is one file plus one list entry (docs/solvers.md, "Writing an exact method")."""
from __future__ import annotations

import ast
import importlib
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import desyr_sympy.methods as methods_package
import pytest
from desyr_sympy import METHODS, ExactMethod
from desyr_sympy.plugin import SOLVER_NAMES, SympySearcher
from desyr_sympy.propose import REDUCTIONS

PACKAGE = Path(methods_package.__file__).resolve().parents[1]
SOLVERS_DOC = Path(__file__).resolve().parents[1] / "docs" / "solvers.md"

def _method_modules() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules(methods_package.__path__))


def test_each_module_of_methods_defines_one_method_named_after_it_and_listed_once():
    for name in _method_modules():
        module = importlib.import_module(f"desyr_sympy.methods.{name}")
        defined = [v for v in vars(module).values()
                   if isinstance(v, type) and issubclass(v, ExactMethod) and v.__module__ == module.__name__]
        assert len(defined) == 1, f"methods/{name}.py defines {len(defined)} exact methods"
        assert defined[0].name == name, f"methods/{name}.py defines the method {defined[0].name}"
        assert sum(type(m) is defined[0] for m in METHODS) == 1, f"{name} is not in METHODS exactly once"
    assert len(METHODS) == len(_method_modules())


def test_the_list_is_ordered_by_kind_and_each_method_describes_itself():
    """What the order must hold, not a copy of it (a new method is one file plus one entry): names once
    each, the methods that settle first (they run alone), the plain calls before the reductions; one
    line of summary, and table cells without a line break or a bar."""
    names = [m.name for m in METHODS]
    assert len(set(names)) == len(names)
    kinds = [(not m.settles, m.reduction) for m in METHODS]
    assert kinds == sorted(kinds), "settling methods first, then the plain calls, then the reductions"
    for m in METHODS:
        assert m.name.isidentifier() and m.summary.strip(), m.name
        for text in (m.summary, m.problems, m.proposes):
            assert "\n" not in text and "|" not in text, m.name
    for m in METHODS:       # one child call answering another: only a method of the list, tried before it
        other = m.answers_too(_OneField())
        assert not other or names.index(other) < names.index(m.name), m.name


class _OneField:
    fields = ("u",)


def test_every_name_table_and_the_help_text_come_from_the_list():
    names = tuple(m.name for m in METHODS)
    options = SympySearcher.options
    assert SOLVER_NAMES == names == options["solvers"].choices
    assert REDUCTIONS == {m.name for m in METHODS if m.reduction}
    assert _words(options["solvers"].doc) >= set(names)
    assert _words(options["reductions"].doc) & set(names) == REDUCTIONS
    rows = [line.split("`")[1] for line in SympySearcher.doc_tables["methods"].splitlines()[2:]]
    assert tuple(rows) == names


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text))


def test_the_docs_show_every_method_in_the_generated_tables():
    """The summary table and the detailed ones are generated from the list (``python -m desyr.cli.docgen``;
    tests/test_docs.py holds them current), so a new method needs no hand-written row."""
    text = SOLVERS_DOC.read_text(encoding="utf-8")
    for key in ("methods", "plain", "reductions"):
        assert f"<!-- table: searcher sympy {key} -->" in text
    tables = SympySearcher.doc_tables
    for m in METHODS:
        assert text.count(f"| `{m.name}` |") == 2, m.name
        detailed = tables["reductions" if m.reduction else "plain"]
        assert f"| `{m.name}` | {m.problems or m.summary} |" in detailed, m.name


def test_shared_helpers_import_no_method_and_methods_import_no_searcher():
    """The package's layers: ``shared/`` below ``methods/`` below the searcher (``propose``, ``running``,
    ``plugin``); ``method.py``, the base, imports nothing of the package."""
    above = {"shared": ("desyr_sympy.methods", "desyr_sympy.propose", "desyr_sympy.running", "desyr_sympy.plugin"),
             "methods": ("desyr_sympy.propose", "desyr_sympy.running", "desyr_sympy.plugin")}
    for folder, forbidden in above.items():
        for path in sorted((PACKAGE / folder).glob("*.py")):
            found = _imports(path)
            assert not [m for m in found if m.startswith(forbidden)], f"{folder}/{path.name} imports {found}"
    assert not [m for m in _imports(PACKAGE / "method.py") if m.startswith("desyr_sympy")]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + \
        [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]


# ------------------------------------------------------------------ a new method: one file, one entry
def _documented_method() -> str:
    """The example of docs/solvers.md, "Writing an exact method": the test runs what the page shows."""
    section = SOLVERS_DOC.read_text(encoding="utf-8").split("## Writing an exact method", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


RUN = '''\
import json
from desyr.config.loading import load_problem
from desyr.config.spec import read_spec
from desyr.extension.registry import load_registry
from desyr.stages.exact_search import exact_searchers, propose_candidates

registry = load_registry()
problem = load_problem({problem!r}, registry)
spec = read_spec(problem, registry)
found = propose_candidates(exact_searchers(registry, spec.solvers), problem, spec.solvers.time_limit)
sympy = registry.get("searcher", "sympy")
print(json.dumps({{
    "module": __import__("desyr_sympy").__file__,
    "candidates": [[c.searcher, {{f: str(e) for f, e in c.search_expressions.items()}}] for c in found.pool],
    "records": [[r.solver, r.outcome] for r in found.records],
    "choices": list(sympy.options["solvers"].choices),
    "help": sympy.options["solvers"].doc,
    "table": sympy.doc_tables["methods"],
    "plain": sympy.doc_tables["plain"],
}}))
'''

PROBLEM = '''\
name = "flat"
[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx"
[[constraints]]
on = ["x = 0", "x = 1"]
value = "2"
[solvers.options.sympy]
solvers = ["constant"]
'''


@pytest.mark.slow
def test_a_method_written_here_is_one_file_plus_one_list_entry(tmp_path):
    """A copy of the package gets ``methods/constant.py`` (the docs' example) and one entry in ``METHODS``
    (and its import), nothing else: the
    method is then a choice of ``[solvers.options.sympy] solvers``, listed in the help text and the docs'
    table, asked, recorded in the attempts, and its candidate proposed."""
    copy = tmp_path / "desyr_sympy"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "methods" / "constant.py").write_text(_documented_method(), encoding="utf-8")
    listing = copy / "methods" / "__init__.py"
    text = listing.read_text(encoding="utf-8")
    text = text.replace("from desyr_sympy.method import ExactMethod\n",
                        "from desyr_sympy.method import ExactMethod\nfrom desyr_sympy.methods.constant import Constant\n")
    text = text.replace("METHODS: tuple[ExactMethod, ...] = (\n", "METHODS: tuple[ExactMethod, ...] = (\n    Constant(),\n")
    assert text.count("Constant") == 2
    listing.write_text(text, encoding="utf-8")
    (tmp_path / "flat.toml").write_text(PROBLEM, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", RUN.format(problem=str(tmp_path / "flat.toml"))], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["module"].startswith(str(copy))
    assert out["choices"][0] == "constant" and "constant" in out["help"]
    assert "| `constant` | plain | a field constant everywhere" in out["table"]
    assert "| `constant` | one field | a constant, its value free for Stage B |" in out["plain"]
    assert out["records"] == [["constant", "candidates: 1"]]
    (searcher, expressions), = out["candidates"]
    assert searcher == "sympy:constant" and re.fullmatch(r"\d+\.\d+", expressions["u"]), expressions
