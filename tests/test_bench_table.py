"""The bench table's exact-form and symbolic-match columns."""
from desyr.bench.table import exact_forms


def result(expr, match):
    return {"exact_form": {"expressions": {"u": expr}, "symbolic_match": match}}


def test_exact_form_of_the_first_seed_and_matches_over_seeds():
    assert exact_forms([result("sin(pi*x)", True), result("sin(pi*x)", False)]) == ("`sin(pi*x)`", "1/2")


def test_without_reference_or_exact_form():
    assert exact_forms([result("x", None)]) == ("`x`", "–")
    assert exact_forms([{}]) == ("–", "–")


def test_several_fields_are_joined():
    r = {"exact_form": {"expressions": {"u": "a", "v": "b"}, "symbolic_match": True}}
    assert exact_forms([r]) == ("`u = a; v = b`", "1/1")


# ------------------------------------------------- columns a plugin adds (hook desyr_bench_columns)
CONFIG = """
name = "tiny"
title = "Tiny"
[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx"
[[constraints]]
on = ["x = 0", "x = 1"]
value = 0
"""


class ColumnPlugin:
    from desyr.plugin import hookimpl

    @hookimpl
    def desyr_bench_columns(self):
        from desyr.plugin import BenchColumn

        return [BenchColumn("key", lambda p: "K-" + p.name, lead=True), BenchColumn("n", lambda p: 0.5),
                BenchColumn("broken", lambda p: 1 / 0)]


def render(tmp_path, plugins):
    from desyr.bench.page import render_page
    from desyr.bench.table import render_markdown
    from desyr.extension.registry import load_registry

    spec = tmp_path / "tiny.toml"
    spec.write_text(CONFIG, encoding="utf-8")
    registry = load_registry(extra_plugins=plugins, entry_points=False)
    rows = [{"spec": str(spec), "seed": 0, "result": {}}]
    return (render_markdown(rows, [str(spec)], registry, "desyr bench"),
            render_page(rows, [str(spec)], registry, "desyr bench", tmp_path, {}))


def test_a_plugins_columns_are_drawn(tmp_path):
    markdown, page = render(tmp_path, [ColumnPlugin()])
    header = next(line for line in markdown.splitlines() if line.startswith("| key"))
    assert header.split(" | ")[:2] == ["| key", "problem"] and "| n | broken | exact form" in header
    row = next(line for line in markdown.splitlines() if line.startswith("| K-tiny"))
    assert row.split(" | ")[1] == "Tiny" and "| 0.5 | – |" in row      # a column that raises prints a dash
    assert ">key<" in page and ">K-tiny<" in page


def test_without_a_plugin_the_table_has_no_plugin_column(tmp_path):
    markdown, page = render(tmp_path, [])
    header = next(line for line in markdown.splitlines() if line.startswith("| problem"))
    assert "ID" not in header and "paper" not in header and ">ID<" not in page


# ------------------------------------------------- the columns of a series answer (result.json's series)
def test_series_cells_give_terms_bound_and_where_it_holds():
    from desyr.bench.table import series_cells

    field = {"terms": 7, "tail_bound": 3e-13, "capped": False, "bound_holds": "the whole domain"}
    capped = {"terms": 2000, "tail_bound": None, "capped": True, "bound_holds": "0.001 <= t <= 1"}
    assert series_cells([{"series": {"fields": {"u": field}}}]) == ["7", "3.00e-13", "the whole domain"]
    assert series_cells([{"series": {"fields": {"u": capped}}}]) == ["2000 (cap)", "none", "0.001 <= t <= 1"]
    assert series_cells([{}, {"series": None}]) == ["–", "–", "–"]
    seeds = [{"series": {"fields": {"u": dict(field, terms=k)}}} for k in (5, 7, 9)]
    assert series_cells(seeds)[0] == "7 [5, 9]"
