"""The plugin template (templates/desyr-plugin-template) installs, registers and passes its own tests.

This is the check that keeps the template in step with the plugin API: it is
pip-installed into a temporary ``--target`` as a user would install it, listed by
``desyr plugins``, and its own test suite runs in a fresh interpreter against the
installed copy.
"""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import pip_install

from desyr.cli.main import main

TEMPLATE = Path(__file__).resolve().parent.parent / "templates" / "desyr-plugin-template"
PACKAGE = "desyr_myplugin"
ORIGIN = "desyr-myplugin 0.1.0"


@pytest.fixture(scope="session")
def template_site(tmp_path_factory) -> Path:
    return pip_install(TEMPLATE, tmp_path_factory.mktemp("template"))


@pytest.fixture
def installed(template_site, monkeypatch):
    monkeypatch.syspath_prepend(str(template_site))
    yield template_site
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def test_template_has_the_documented_layout():
    for part in ("pyproject.toml", "README.md", f"{PACKAGE}/__init__.py", f"{PACKAGE}/plugin.py",
                 "tests/test_plugin.py"):
        assert (TEMPLATE / part).is_file(), part
    readme = (TEMPLATE / "README.md").read_text(encoding="utf-8")
    for step in ("pip install -e", "pytest", "python -m build", "twine upload"):
        assert step in readme, step


def test_template_plugin_imports_only_the_plugin_surface():
    tree = ast.parse((TEMPLATE / PACKAGE / "plugin.py").read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert {m for m in modules if m and m.split(".")[0] == "desyr"} == {"desyr.plugin"}


@pytest.mark.slow
def test_desyr_plugins_lists_the_template_gate(installed, capsys):
    assert main(["plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {(r["role"], r["name"], r["entry_point"]) for r in data["components"] if r["origin"] == ORIGIN}
    assert rows == {("gate", "max_complexity", "myplugin"), ("executor", "in_order", "myplugin")}
    (row,) = [r for r in data["components"] if r["origin"] == ORIGIN and r["role"] == "gate"]
    assert row["options"]["limit"] == {"default": 20, "type": "int", "range": "[1, inf)",
                                       "doc": "largest complexity kept"}
    assert row["default"] is False and not data["failures"]


@pytest.mark.slow
def test_template_tests_pass_against_the_installed_copy(template_site, tmp_path):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([str(template_site)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.run([sys.executable, "-m", "pytest", str(TEMPLATE / "tests"), "-q", "-rs",
                           "-p", "no:cacheprovider"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    # the plain tests, plus one item per conformance check of each component (parametrize_with_checks)
    passed = re.search(r"(\d+) passed", output)
    assert passed is not None and int(passed.group(1)) >= 17 and "skipped" not in output, output
