"""The option tables in docs/ are generated from the declared specs and must be current."""
from desyr.cli.docgen import DOCS, render, stale_docs
from desyr.extension.registry import load_registry


def test_generated_option_tables_are_current():
    assert stale_docs() == [], "run `python -m desyr.cli.docgen` to regenerate the option tables"


def test_every_section_and_builtin_component_table_is_in_the_docs():
    text = "".join(p.read_text(encoding="utf-8") for p in DOCS.glob("*.md"))
    for marker in ("section points", "section search", "section selection", "section coupled", "refiner scipy",
                   "teacher deepxde", "searcher operon", "searcher gplearn", "searcher pysr"):
        assert f"<!-- options: {marker} -->" in text, marker


def test_render_replaces_a_block():
    text = "x\n<!-- options: section paper -->\nold\n<!-- /options -->\ny"
    new = render(text, load_registry())
    assert "old" not in new and "| `refined_rel_l2` |" in new and new.endswith("<!-- /options -->\ny")
