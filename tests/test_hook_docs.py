"""docs/hooks.md is generated from desyr/extension/hookspecs.py and documents every hook
(in the style of datasette's test_docs: a hook without documentation fails)."""
from __future__ import annotations

import re

import pytest

from desyr.cli.docgen import HOOKS_PAGE, hook_names, hooks_page
from desyr.extension import hookspecs


def test_the_hook_page_is_current():
    assert HOOKS_PAGE.read_text(encoding="utf-8") == hooks_page(), "run `python -m desyr.cli.docgen`"


@pytest.mark.parametrize("name", hook_names())
def test_every_hook_is_documented(name):
    assert (getattr(hookspecs, name).__doc__ or "").strip(), f"hookspecs.{name} has no docstring"
    headings = re.findall(r"^## `(\w+)`$", HOOKS_PAGE.read_text(encoding="utf-8"), re.M)
    assert name in headings


def test_every_hook_is_found():
    assert {"desyr_register_executors", "desyr_load_problem"} <= set(hook_names())
    assert "first result" in hooks_page().split("## `desyr_load_problem`")[1]
