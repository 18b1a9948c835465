"""The ``desyr_cli`` pytest fixture: the command line run in a temporary directory, like ``pytester``.

Use it from a plugin's tests with ``pytest_plugins = ["desyr.testing"]`` in ``conftest.py``::

    def test_my_gate_runs(desyr_cli):
        desyr_cli.register(my_plugin)                    # as if installed
        config = desyr_cli.write("p.toml", CONFIG)
        result = desyr_cli.run("run", config, "--out", "out", "--quiet")
        assert result.ret == 0, result.stderr
        assert "max_complexity" in result.json("out/result.json")["gates"]

The CLI runs in this process (so the registered modules need no installation), with the
temporary directory as the working directory and DeSyR's environment variables cleared.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from desyr.extension.registry import plugins_in_process


@dataclass(frozen=True)
class CliResult:
    """One finished CLI call: its exit code and what it printed."""

    ret: int
    stdout: str
    stderr: str
    path: Path

    def json(self, relative: str | None = None) -> Any:
        """The JSON the call printed (``--json``), or the JSON file ``relative`` to the directory."""
        text = (self.path / relative).read_text(encoding="utf-8") if relative else self.stdout
        return json.loads(text)


@dataclass
class DesyrCli:
    """A temporary working directory and the in-process plugins of one test."""

    path: Path
    capsys: pytest.CaptureFixture[str]
    plugins: list[Any] = field(default_factory=list)

    def register(self, *plugins: Any) -> None:
        """Make plugin modules (or objects) part of every registry the CLI loads, as if installed."""
        self.plugins.extend(plugins)

    def write(self, name: str, text: str) -> Path:
        """A file in the directory (a config, say); returns its path."""
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def run(self, *args: str | Path) -> CliResult:
        """``desyr ARGS...`` in the directory; argparse's own exits are caught as exit codes."""
        from desyr.cli.main import main

        self.capsys.readouterr()                      # what the test printed before is not ours
        with plugins_in_process(*self.plugins):
            try:
                ret = main([str(a) for a in args])
            except SystemExit as exc:                 # --help, a usage error
                ret = exc.code if isinstance(exc.code, int) else 2
        out, err = self.capsys.readouterr()
        return CliResult(ret, out, err, self.path)


@pytest.fixture
def desyr_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
              ) -> Iterator[DesyrCli]:
    """Run ``desyr`` in a temporary directory with an isolated environment (see :class:`DesyrCli`)."""
    for name in [n for n in os.environ if n.startswith("DESYR_")]:   # not the developer's settings
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    yield DesyrCli(tmp_path, capsys)
