"""The worked examples of docs/inverse.md and docs/parametric.md run as written and print what the
pages show (each line of the page's output block appears in the run's output)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _blocks(name: str) -> tuple[str, list[str]]:
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    config = text.split(f"<!-- example: {name} -->\n```toml\n", 1)[1].split("```", 1)[0]
    shown = text.split(f"<!-- output: {name} -->\n```\n", 1)[1].split("```", 1)[0]
    return config, [line for line in shown.splitlines() if line and not line.startswith("$ ")]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["inverse", "parametric"])
def test_the_worked_example_prints_what_the_page_shows(name, tmp_path):
    config, lines = _blocks(name)
    (tmp_path / f"{name}.toml").write_text(config)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "desyr", "run", f"{name}.toml", "--out", "out", "--no-plots"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    for line in lines:
        assert line in done.stdout.splitlines(), (line, done.stdout)
