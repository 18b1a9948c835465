import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from desyr.symbolic.parameterize import MAX_PARAMS, constant_nodes, eligible_constants, parameterize

x, y = sp.symbols("x y", real=True)
finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@st.composite
def expressions(draw):
    """Random trees built the way search output looks: Float constants, sin/exp/tanh, powers."""
    n_terms = draw(st.integers(1, 6))
    terms = []
    for _ in range(n_terms):
        c = sp.Float(draw(finite))
        kind = draw(st.sampled_from(["lin", "sin", "exp", "pow", "tanh", "const"]))
        inner = sp.Float(draw(finite)) * draw(st.sampled_from([x, y]))
        terms.append({"lin": c * x, "sin": c * sp.sin(inner), "exp": c * sp.exp(inner),
                      "pow": c * x ** draw(st.sampled_from([2, 3, sp.Float(2.5)])),
                      "tanh": c * sp.tanh(inner + sp.Float(draw(finite))), "const": c}[kind])
    return sp.Add(*terms)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(expressions())
def test_parameterize_then_substitute_is_identity(expr):
    consts = [float(c) for c in constant_nodes(expr)]
    # Constants within the tie tolerance are merged on purpose; identity holds for the others.
    assume(all(abs(a - b) >= 1e-9 * max(1.0, abs(a)) or a == b for a in consts for b in consts))
    p = parameterize(expr)
    assert p.substitute() == expr
    assert len(p.symbols) == len(set(p.symbols)) <= MAX_PARAMS
    assert [abs(v) for v in p.values] == sorted((abs(v) for v in p.values), reverse=True)
    for v in p.values:
        assert abs(v) >= 1e-10 and abs(abs(v) - 1) >= 1e-10


@settings(max_examples=100, deadline=None)
@given(st.floats(min_value=1.5, max_value=100), st.floats(min_value=-0.4e-9, max_value=0.4e-9))
def test_near_duplicates_are_tied(c, nudge):
    other = c * (1 + nudge)
    expr = sp.Float(c) * sp.sin(sp.Float(other) * x) + sp.Float(3 * c + 7) * y
    p = parameterize(expr)
    assert len(p.symbols) == 2
    tied = p.symbols[[abs(v) for v in p.values].index(min(abs(v) for v in p.values))]
    assert p.expression.count(tied) == 2


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(min_value=2, max_value=1e4), min_size=17, max_size=30, unique=True))
def test_cap_keeps_the_largest(values):
    values = [v for i, v in enumerate(sorted(values)) if all(abs(v - w) > 1e-6 * v for w in sorted(values)[:i])]
    expr = sp.Add(*[sp.Float(v) * x ** k for k, v in enumerate(values, start=1)])
    p = parameterize(expr)
    assert len(p.symbols) == min(MAX_PARAMS, len(values))
    assert sorted(p.values, reverse=True) == sorted(values, reverse=True)[:MAX_PARAMS]
    assert p.substitute() == expr


def test_rules_on_examples():
    e = sp.Float(2.5) * x ** sp.Float(2.5) + sp.Float(1e-12) * sp.sin(y) + sp.Float(1.0) * sp.exp(x) + sp.Integer(3) * y
    assert eligible_constants(e) == [2.5]          # exponent, tiny, one, integer are all structure
    p = parameterize(sp.Float(-1.0) * sp.exp(sp.Float(-2.0) * x))
    assert p.values == [-2.0]
    assert parameterize(sp.sin(sp.pi * x)).symbols == []
