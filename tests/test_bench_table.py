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
