"""A wrong config fails before SymPy is imported (issue 37, item 8): the outline and the core's sections
are checked on the parsed TOML (desyr.config.outline), with the full reader's own one-line errors."""
from __future__ import annotations

import subprocess
import sys

import pytest

from desyr.config.outline import precheck
from desyr.errors import ConfigError

GOOD = 'name = "w"\n[domain]\nx = [0, 1]\n[[equations]]\nlhs = "u_xx"\n'
PROBE = ("import sys\nfrom desyr.cli.main import main\nrcs = [main(['run', p]) for p in sys.argv[1:]]\n"
         "print(rcs, sorted(m for m in ('sympy', 'numpy', 'scipy') if m in sys.modules))")
WRONG = [
    ('[problem]\nname = "bad"\n', "missing [domain] table"),
    (GOOD + "[search]\nruns = \"two\"\n", "option 'runs' must be int"),
    (GOOD + "[points]\nrefine = -3\n", "[points]"),
    ("oops = 3\n" + GOOD, "unknown top-level key(s) oops"),
    (GOOD + "[search]\nbinary = [\"%\"]\n", "binary"),
    ("title = 3\n", "title must be a string"),
]


def test_a_wrong_config_fails_without_sympy(tmp_path):
    paths = []
    for i, (text, _) in enumerate(WRONG):
        paths.append(tmp_path / f"bad{i}.toml")
        paths[-1].write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE, *map(str, paths)], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.split("\n")[0] == f"{[2] * len(WRONG)} []", done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == len(WRONG) and all(says in line for line, (_, says) in zip(lines, WRONG))


def test_the_full_reader_gives_the_same_line():
    from desyr.config.reading import problem_from_toml

    text = GOOD + "[search]\nruns = \"two\"\n"
    with pytest.raises(ConfigError) as early:
        precheck(__import__("tomllib").loads(text), "c.toml")
    with pytest.raises(ConfigError) as full:
        problem_from_toml(text, "c.toml")
    assert str(early.value) == str(full.value)


def test_a_config_that_needs_a_plugin_is_left_to_the_full_reader():
    import tomllib

    # a component's options table, or a section the core does not know: the plugins decide
    precheck(tomllib.loads(GOOD + "[search]\nruns = \"two\"\n[search.options]\nx = 1\n"), "c.toml")
    precheck(tomllib.loads(GOOD + "[search]\nruns = \"two\"\n[mine]\nk = 1\n"), "c.toml")
    precheck(tomllib.loads(GOOD), "c.toml")
