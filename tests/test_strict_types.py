"""mypy is strict on the core and on every plugin (issue 37, item 7): the config turns strict on for the
whole tree, no override relaxes a module, and ./dev runs it on desyr and plugins."""
from pathlib import Path

import desyr
from desyr.config.loading import tomllib

ROOT = Path(desyr.__file__).resolve().parent.parent
#: per-module settings that are not a relaxation: the third-party gaps and the hook specifications' bodies
ALLOWED_OVERRIDES = {"ignore_missing_imports", "disable_error_code", "module"}


def test_mypy_config_is_strict_for_the_whole_tree():
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert mypy.get("strict") is True
    assert set(mypy["files"]) == {"desyr", "plugins"}
    for override in mypy.get("overrides", []):
        assert set(override) <= ALLOWED_OVERRIDES, override
        if "disable_error_code" in override:       # only the hook specifications' empty bodies
            assert override["module"] == "desyr.extension.hookspecs" and override["disable_error_code"] == ["empty-body"]
        if override.get("ignore_missing_imports"):  # third-party gaps, never our own modules
            modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
            assert not [m for m in modules if m.startswith("desyr")], modules


def test_dev_runs_strict_mypy_on_the_core_and_the_plugins():
    lines = [line.split("#")[0].split() for line in (ROOT / "dev").read_text(encoding="utf-8").splitlines()]
    runs = [words for words in lines if words[:1] == ['"$VENV/bin/mypy"']]
    assert runs, "./dev runs no mypy"
    assert all({"--strict", "desyr", "plugins"} <= set(words) for words in runs), runs
