"""docs/plugin-reference.md is generated from desyr.plugin and desyr.testing, and every public member of
both is documented (issue 37, item 7): a member without a docstring (or, for data, a ``#:`` comment) fails."""
from __future__ import annotations

import pytest

from desyr.cli.reference import PAGE, SURFACES, documentation, public_members, reference_page

MEMBERS = [(surface, name, value) for surface in SURFACES for name, value in public_members(surface)]


def test_the_reference_page_is_current():
    assert PAGE.read_text(encoding="utf-8") == reference_page(), "run `python -m desyr.cli.docgen`"


@pytest.mark.parametrize("surface, name, value", MEMBERS, ids=[f"{s}.{n}" for s, n, _ in MEMBERS])
def test_every_public_member_is_documented(surface, name, value):
    assert documentation(name, value).strip(), f"{surface}.{name} has no docstring (data: no #: comment)"
    assert f"### `{name}`" in PAGE.read_text(encoding="utf-8")


def test_an_undocumented_member_is_seen():
    class Bare:
        pass

    assert documentation("Bare", Bare) == "" and documentation("NO_SUCH_CONSTANT_ZZ", 3) == ""
    assert documentation("MAX_PARAMS", 16).startswith("the most free constants")
