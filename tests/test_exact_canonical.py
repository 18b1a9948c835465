"""Canonical rewrites (desyr.exact.canonical): merges, sign normalisation, checked refusals."""
import sympy as sp
from test_exact_identify import checked

from desyr.exact import exact_form
from desyr.exact.canonical import REWRITES, collect_terms, merge_constant_factors, normalize_signs
from desyr.symbolic.expressions import complexity, expression_text

x, t = sp.symbols("x t", real=True)

PARABOLA = {"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx", "rhs": -2}],
            "constraints": [{"on": ["x = 0", "x = 1"], "value": 0}], "reference": {"u": "x - x**2"}}
WAVE = {"domain": {"x": [0, 1], "t": [0, 1]}, "time": "t", "equations": [{"lhs": "u_tt - 4*u_xx"}],
        "constraints": [{"on": "boundary", "value": "reference"}, {"on": "t = 0", "value": "reference"}],
        "reference": {"u": "sin(x - 2*t)"}}


def test_travelling_wave_sign_is_normalised():
    assert expression_text(normalize_signs(-sp.sin(-x + 2 * t), [x, t])) == "sin(x - 2*t)"
    assert expression_text(normalize_signs(sp.cos(2 * t - x), [x, t])) == "cos(x - 2*t)"
    # no gain in minus signs: left as sympy has it
    half = sp.Rational(1, 2) + sp.tanh(sp.Rational(5, 2) * t - 5 * x) / 2
    assert normalize_signs(half, [x, t]) == half


def test_redundant_constant_factors_are_merged():
    c, d = 3.7, 1 / 3.7
    expr = sp.Float(c) * x * (sp.Float(d) - sp.Float(d) * x)
    merged = merge_constant_factors(expr)
    assert len(merged.atoms(sp.Float)) < len(expr.atoms(sp.Float))
    assert merge_constant_factors(sp.Float(2.5) * sp.sin(x)) == sp.Float(2.5) * sp.sin(x)   # nothing to merge


def test_collect_terms_picks_the_shortest():
    expr = x * (t ** 3 * x ** 2 + sp.cos(5 * sp.pi * t))
    out = collect_terms(expr)
    assert complexity(out) <= complexity(expr) and sp.expand(out - expr) == 0


def test_end_to_end_product_with_redundant_constants():
    problem, check = checked(PARABOLA)
    c, d = 3.7, 1 / 3.7
    numeric = {"u": sp.Float(c) * problem.symbols[0] * (sp.Float(d) - sp.Float(d) * problem.symbols[0])}
    form = exact_form(problem, numeric, check)
    u = form.expressions["u"]
    assert not u.has(sp.Float) and sp.expand(u - (problem.symbols[0] - problem.symbols[0] ** 2)) == 0
    assert form.complexity <= complexity(numeric["u"])
    assert [r.name for r in form.rewrites if r.accepted][:1] == ["merge_constant_factors"]


def test_end_to_end_travelling_wave():
    problem, check = checked(WAVE)
    xs, ts = problem.symbols
    form = exact_form(problem, {"u": -sp.sin(-xs + 2.0 * ts)}, check)
    assert expression_text(form.expressions["u"]) == "sin(x - 2*t)"
    assert any(r.name == "normalize_signs" and r.accepted for r in form.rewrites)


def test_a_rewrite_that_changes_residuals_is_refused():
    """A bogus 'rewrite' dropping the last term must be refused by the residual check; the
    genuine rewrites in the same list are still applied one at a time."""
    problem, check = checked(PARABOLA)
    drop_last = ("drop_last_term", lambda e, v: sp.Add(*sp.Add.make_args(e)[:-1]) if e.is_Add else e)
    numeric = {"u": problem.parse("x*(1.0 - x)")}
    form = exact_form(problem, numeric, check, rewrites=REWRITES + (drop_last,))
    bogus = [r for r in form.rewrites if r.name == "drop_last_term"]
    assert bogus and not any(r.accepted for r in bogus)
    assert bogus[0].reason == "residuals change beyond round-off"
    xs = problem.symbols[0]
    assert sp.expand(form.expressions["u"] - (xs - xs ** 2)) == 0
