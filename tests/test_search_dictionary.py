"""The `dictionary` searcher: sparse sums of separable terms, supports chosen by a beam search of orthogonal least squares."""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from desyr_dictionary.basis import build_dictionary, nice_length
from desyr_dictionary.plugin import DictionarySearcher

from desyr.extension.roles import ComponentError, ParetoMember, SearchTask

x, y_, t, z = (sp.Symbol(n, real=True) for n in ("x", "y", "t", "z"))
BINARY = ["+", "-", "*", "/"]


def sin_cos_poly(X):
    return 1.5 * np.sin(np.pi * X[:, 0]) * np.cos(2 * np.pi * X[:, 1]) - 0.5 * X[:, 0] ** 3 + 2


def decay_sine(X):
    return np.exp(-X[:, 1]) * np.sin(np.pi * X[:, 0])


def klein_gordon(X):
    """The paper's Klein-Gordon solution: its x**3*t**3 term has total degree 6."""
    return X[:, 0] * np.cos(5 * np.pi * X[:, 1]) + X[:, 0] ** 3 * X[:, 1] ** 3


def task(f, variables, unary, n=400, seed=1, low=0.0, binary=BINARY, noise=0.0, **kw):
    X = np.random.default_rng(0).uniform(low, 1.0, (n, len(variables)))
    values = f(X)
    if noise:     # a teacher with relative L2 error ``noise``
        values = values + noise * np.sqrt(np.mean(values ** 2)) * np.random.default_rng(7).standard_normal(n)
    return SearchTask(X, values, variables, binary, unary, 20, seed=seed, **kw)


def support(expr) -> frozenset:
    """The terms of ``expr`` without their coefficients: powers, and each function with its frequency or
    rate in quarters of pi and its phase (so a refitted 15.70796*t reads as 5*pi*t)."""
    out = set()
    for term in sp.Add.make_args(expr):
        parts = []
        for f in sp.Mul.make_args(term.as_coeff_Mul()[1]):
            if isinstance(f, sp.Function):
                (s,) = f.args[0].free_symbols
                w, phase = float(f.args[0].coeff(s)), float(f.args[0].subs(s, 0))
                parts.append((type(f).__name__, s.name, round(4 * w / np.pi) / 4, round(phase, 1)))
            elif f != 1:
                base, e = f.as_base_exp()
                parts.append((str(base), int(e)))
        out.add(tuple(sorted(parts)))
    return frozenset(out)


def best(result) -> ParetoMember:
    return min(result.front, key=lambda m: m.loss)


def rel_l2_on_fresh_points(expr, symbols, f, d):
    X = np.random.default_rng(99).uniform(0.0, 1.0, (1000, d))
    got = sp.lambdify(symbols, expr, "numpy")(*X.T)
    want = f(X)
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


@pytest.mark.slow
@pytest.mark.parametrize("unary", [["sin", "cos"], ["sin"], ["cos", "log"]])
def test_recovers_a_sparse_trig_polynomial(unary):
    result = DictionarySearcher().search(task(sin_cos_poly, ["x", "y"], unary))
    m = best(result)
    assert rel_l2_on_fresh_points(m.expression, [x, y_], sin_cos_poly, 2) < 1e-8
    assert len(sp.Add.make_args(m.expression)) == 3          # the product, the cubic, the constant
    assert m.expression.free_symbols == {x, y_}
    assert m.expression.atoms(sp.Float) and not m.expression.atoms(sp.NumberSymbol)   # constants are Floats
    assert {type(f).__name__ for f in m.expression.atoms(sp.Function)} <= set(unary)
    # a real front: complexity up, loss down, complexity = node count
    comps, losses = [p.complexity for p in result.front], [p.loss for p in result.front]
    assert comps == sorted(set(comps)) and losses == sorted(losses, reverse=True)
    assert m.complexity == sum(1 for _ in sp.preorder_traversal(m.expression))
    assert result.info["support"] == 3 and result.info["relative_residual"] < 1e-12


@pytest.mark.slow
def test_recovers_a_decaying_sine():
    result = DictionarySearcher().search(task(decay_sine, ["x", "t"], ["sin", "exp"]))
    m = best(result)
    assert rel_l2_on_fresh_points(m.expression, [x, t], decay_sine, 2) < 1e-8
    assert len(sp.Add.make_args(m.expression)) == 1
    assert m.expression.has(sp.exp) and m.expression.has(sp.sin)


def test_off_grid_frequency_is_refined():
    f = lambda X: 0.7 * np.sin(3.0 * X[:, 0]) + 0.1     # noqa: E731  3 is not on the grid k*pi
    m = best(DictionarySearcher().search(task(f, ["x"], ["sin"])))
    assert rel_l2_on_fresh_points(m.expression, [x], f, 1) < 1e-8
    (arg,) = [s.args[0] for s in m.expression.atoms(sp.sin)]
    assert float(arg.coeff(x)) == pytest.approx(3.0, rel=1e-9)


@pytest.mark.slow
def test_a_field_outside_the_span_is_rejected():
    runge = lambda X: 1 / (1 + 25 * X[:, 0] ** 2)     # noqa: E731
    result = DictionarySearcher().search(task(runge, ["x"], ["sin"], low=-1.0))
    assert result.front == []
    assert "relative residual" in result.info["rejected"] and "accept_tolerance" in result.info["rejected"]
    assert result.info["relative_residual"] > 1e-2
    # the same fit is accepted under a looser tolerance
    assert DictionarySearcher(accept_tolerance=0.5).search(task(runge, ["x"], ["sin"], low=-1.0)).front


@pytest.mark.slow
def test_same_seed_same_front_and_seeds_differ_on_subsamples():
    rough = lambda X: np.sin(3.3 * X[:, 0]) * np.exp(X[:, 1] ** 2)   # noqa: E731  not in the span exactly
    s = DictionarySearcher(max_rows=200, accept_tolerance=1.0, max_terms=3)

    def front(seed):
        r = s.search(task(rough, ["x", "t"], ["sin", "exp"], n=600, seed=seed))
        assert r.info["rows"] == 200
        return [(m.complexity, m.loss, sp.srepr(m.expression)) for m in r.front]

    assert front(3) == front(3)
    assert front(3) != front(4)


def test_the_dictionary_cap_keeps_the_cheapest_terms_first():
    X = np.random.default_rng(0).uniform(0, 1, (200, 2))
    ops = frozenset({"sin", "exp"})
    small = build_dictionary(X, decay_sine(X), ["x", "t"], ops, 3, 8, [-1.0, 1.0], 2, 50, total_degree=6)
    large = build_dictionary(X, decay_sine(X), ["x", "t"], ops, 3, 8, [-1.0, 1.0], 2, 4000, total_degree=6)
    assert len(small.terms) == 50 and small.terms == large.terms[:50]
    assert small.terms[0].powers == (0, 0) and small.terms[0].factors == (None, None)   # the intercept
    # degree caps each variable's power, total_degree the term's
    assert max(max(term.powers) for term in large.terms) == 3
    assert max(sum(term.powers) for term in large.terms) == 6
    assert ((3, 3), (None, None)) in [(term.powers, term.factors) for term in large.terms]
    again = build_dictionary(X, decay_sine(X), ["x", "t"], ops, 3, 8, [-1.0, 1.0], 2, 4000, total_degree=6)
    assert again.terms == large.terms and again.params == large.params         # deterministic
    old = build_dictionary(X, decay_sine(X), ["x", "t"], ops, 3, 8, [-1.0, 1.0], 2, 500, total_degree=3)
    assert all(sum(term.powers) <= 3 for term in old.terms)
    single = build_dictionary(X, decay_sine(X), ["x", "t"], ops, 3, 8, [-1.0, 1.0], 2, 500, products=False)
    assert all(sum(bool(k or f) for k, f in zip(term.powers, term.factors)) <= 1 for term in single.terms)


@pytest.mark.slow
def test_klein_gordon_needs_total_degree_six():
    result = DictionarySearcher().search(task(klein_gordon, ["x", "t"], ["cos"], n=500))
    m = best(result)
    assert rel_l2_on_fresh_points(m.expression, [x, t], klein_gordon, 2) < 1e-8
    assert len(sp.Add.make_args(m.expression)) == 2 and not m.expression.has(sp.sin)
    assert support(m.expression) == KLEIN_GORDON
    # with the old cap (total degree 3) the x**3*t**3 term is missing and the field is rejected
    capped = DictionarySearcher(total_degree=3).search(task(klein_gordon, ["x", "t"], ["cos"], n=500))
    assert capped.front == [] or rel_l2_on_fresh_points(best(capped).expression, [x, t], klein_gordon, 2) > 1e-6


@pytest.mark.slow
def test_three_variables():
    f = lambda X: np.sin(np.pi * X[:, 0]) * np.sin(np.pi * X[:, 1]) * np.sin(np.pi * X[:, 2])    # noqa: E731
    result = DictionarySearcher().search(task(f, ["x", "y", "z"], ["sin"], n=1000))
    m = best(result)
    assert rel_l2_on_fresh_points(m.expression, [x, y_, z], f, 3) < 1e-8
    assert len(sp.Add.make_args(m.expression)) == 1


def burgers(X):
    """The paper's Burgers front on [-1, 1] x [0, 1]: not a short sum of separable terms."""
    return 0.5 - 0.5 * np.tanh(5 * X[:, 0] - 2.5 * X[:, 1])


@pytest.mark.slow
@pytest.mark.parametrize("unary", [["tanh"], ["sin", "cos", "exp"]])
def test_the_burgers_front_is_rejected(unary):
    result = DictionarySearcher().search(task(burgers, ["x", "t"], unary, n=1000, low=-1.0))
    assert result.front == [] and result.info["relative_residual"] > 1e-2
    assert "accept_tolerance" in result.info["rejected"]


KLEIN_GORDON = frozenset({(("cos", "t", 5.0, 0.0), ("x", 1)), (("t", 3), ("x", 3))})
SIN_COS_POLY = frozenset({(("cos", "y", 2.0, 0.0), ("sin", "x", 1.0, 0.0)), (("x", 3),), ()})


@pytest.mark.parametrize("f, variables, unary, terms", [
    (sin_cos_poly, ["x", "y"], ["sin", "cos"], SIN_COS_POLY),
    (klein_gordon, ["x", "t"], ["cos"], KLEIN_GORDON)])
@pytest.mark.slow
@pytest.mark.parametrize("n", [500, 2000])
def test_a_noisy_teacher_keeps_the_exact_support_on_the_front(f, variables, unary, terms, n):
    """Teacher values with relative L2 error 1e-3 (a good PINN): some member has exactly the right terms
    (with coefficients and frequencies off by about the noise), for the physics refit to make exact."""
    result = DictionarySearcher().search(task(f, variables, unary, n=n, noise=1e-3))
    assert terms in [support(m.expression) for m in result.front]
    assert 1e-4 < result.info["relative_residual"] < 1e-2


def test_nice_lengths():
    assert nice_length(0.996) == 1.0 and nice_length(1.99) == 2.0
    assert nice_length(3.13) == pytest.approx(np.pi) and nice_length(0.7) == 0.7
    assert nice_length(0.0) is None


@pytest.mark.slow
def test_budget_keys_are_ignored_or_applied():
    tk = task(sin_cos_poly, ["x", "y"], ["sin", "cos"],
              budget={"iterations": 5, "populations": 3, "time_limit": 10.0})
    assert sorted(DictionarySearcher().search(tk).info["ignored_budget"]) == ["iterations", "populations",
                                                                            "time_limit"]
    one = DictionarySearcher().search(task(sin_cos_poly, ["x", "y"], ["sin", "cos"], budget={"max_terms": 1}))
    assert all(len(sp.Add.make_args(m.expression)) <= 2 for m in one.front) or one.front == []
    with pytest.raises(ComponentError, match="budget key 'bogus'"):
        DictionarySearcher().search(task(sin_cos_poly, ["x", "y"], ["sin"], budget={"bogus": 1}))
    with pytest.raises(ComponentError, match="max_terms"):
        DictionarySearcher().search(task(sin_cos_poly, ["x", "y"], ["sin"], budget={"max_terms": 0}))


def test_any_operator_list_is_accepted():
    searcher = DictionarySearcher()
    for binary in (["+", "*"], ["*"], ["+"], ["-"], [], ["max", "^"]):
        searcher.check_operators(binary, ["sin", "log", "tanh", "erf"])     # never an error
    result = searcher.search(task(decay_sine, ["x", "t"], ["log", "sin", "sqrt", "exp", "tanh"]))
    assert result.info["unused_operators"] == ["sqrt", "tanh"]      # log: a factor and an outer function
    assert not any(m.expression.has(sp.tanh, sp.sqrt) for m in result.front)
    assert not best(result).expression.has(sp.log)


@pytest.mark.slow
def test_without_plus_a_member_is_one_term():
    scaled = lambda X: 2 * decay_sine(X)          # noqa: E731
    result = DictionarySearcher().search(task(scaled, ["x", "t"], ["sin", "exp"], binary=["*", "-"]))
    assert result.front and all(not isinstance(m.expression, sp.Add) for m in result.front)   # no sum, no intercept
    assert rel_l2_on_fresh_points(best(result).expression, [x, t], scaled, 2) < 1e-8
    # a field that needs a sum is rejected, not approximated by one
    shifted = DictionarySearcher().search(task(lambda X: decay_sine(X) + 1, ["x", "t"], ["sin", "exp"], binary=["*"]))
    assert shifted.front == [] and "accept_tolerance" in shifted.info["rejected"]


@pytest.mark.slow
def test_without_times_a_term_is_one_factor():
    additive = lambda X: np.sin(np.pi * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 1     # noqa: E731
    result = DictionarySearcher().search(task(additive, ["x", "y"], ["sin"], binary=["+", "-"]))
    m = best(result)
    assert rel_l2_on_fresh_points(m.expression, [x, y_], additive, 2) < 1e-8
    for member in result.front:           # each term: one variable, a power or a function of it, not both
        for term in sp.Add.make_args(member.expression):
            body = term.as_coeff_Mul()[1]
            assert len(body.free_symbols) <= 1 and len(sp.Mul.make_args(body)) == 1
    # a product of two variables' factors is outside that span
    product = DictionarySearcher().search(task(decay_sine, ["x", "t"], ["sin", "exp"], binary=["+"]))
    assert product.front == [] and "rejected" in product.info


def test_polynomial_only_without_known_unary():
    poly = lambda X: 2 * X[:, 0] ** 2 - X[:, 0] * X[:, 1] + 0.25   # noqa: E731
    result = DictionarySearcher().search(task(poly, ["x", "y"], []))
    assert rel_l2_on_fresh_points(best(result).expression, [x, y_], poly, 2) < 1e-10
    assert result.info["frequencies"] == {} and result.info["unused_operators"] == []


def test_options_are_checked():
    assert DictionarySearcher.default is False
    with pytest.raises(ComponentError, match="degree"):
        DictionarySearcher(degree=-1)
    with pytest.raises(ComponentError, match="does not know option"):
        DictionarySearcher(generations=3)


def test_through_the_core_checks_and_the_registry():
    from desyr.extension.registry import load_registry
    from desyr.testing import make_problem, make_task, run_searcher

    registry = load_registry()
    info = registry.info("searcher", "dictionary")
    assert info.cls is DictionarySearcher and info.origin.startswith("desyr ")
    assert registry.default("searcher") != "dictionary"
    searcher = registry.create("searcher", "dictionary", {"max_terms": 3})
    problem = make_problem()
    result = run_searcher(searcher, problem, make_task(problem, unary=["sin"], binary=["+", "*"]))
    m = best(result)
    assert m.loss < 1e-25 and len(sp.Add.make_args(m.expression)) == 1 and m.expression.has(sp.sin)
    assert result.info["seed"] == 0 and result.info["columns"] > 0


def runge_teacher(X):
    """A teacher field that is not a sparse sum of the dictionary's terms."""
    return 1 / (1 + 25 * (X[:, 0] - 0.5) ** 2)


@pytest.mark.parametrize("function, found", [("helpers:rough_sine", True),
                                             ("test_search_dictionary:runge_teacher", False)])
@pytest.mark.slow
def test_whole_run_with_the_dictionary_searcher(tmp_path, function, found):
    from helpers import SINE_1D, write_config

    from desyr.api import run
    from desyr.config.loading import load_problem_file
    from desyr.report.markdown import render_report
    from desyr.runtime.progress import Progress

    text = SINE_1D + f"""
[teacher]
plugin = "callable"
[teacher.options]
function = "{function}"
[search]
plugin = "dictionary"
binary = ["+", "*"]
unary = ["sin", "tanh"]
runs = 2
[search.options]
accept_tolerance = 1e-6
"""
    problem = load_problem_file(write_config(tmp_path, text))
    result = run(problem, progress=Progress(verbose=False), cache_dir=tmp_path / "cache", plots=False)
    d = result.to_dict()
    infos = [r["info"] for r in d["search"]["runs"]]
    assert all(i["unused_operators"] == ["tanh"] for i in infos)
    if found:     # the rough teacher's sine is refitted from the physics alone
        assert d["converged"] and d["errors"]["rel_l2"] <= 1e-10
    else:         # every search rejected the field: an empty pool, and the run still finishes
        assert all("rejected" in i and r["front"] == [] for i, r in zip(infos, d["search"]["runs"]))
        assert d["candidates"] == [] and not d["converged"]
        report = render_report(result)      # the report says why: an empty pool, each search's reason
        assert "(the search pool was empty)" in report and "every candidate was removed" not in report
        assert "dictionary: rejected — the best of" in report


def test_omp_path_from_scikit_learn_proposes_supports():
    from desyr_dictionary.select import omp_path

    rng = np.random.default_rng(0)
    A = rng.normal(size=(200, 12))
    A /= np.linalg.norm(A, axis=0)
    y = 2.0 * A[:, 3] + 0.5 * A[:, 7]
    assert omp_path(A, y, 3)[:2] == [[3], [3, 7]]


@pytest.mark.slow
@pytest.mark.parametrize("degree", [4, 5, 6])
def test_one_variable_polynomials_up_to_the_total_degree(degree):
    """SSDE's Nguyen-2..4 (x + x**2 + ... + x**degree, on [-1, 1], their operator set): with the old
    per-variable cap of 3 they came back as sums of exponentials and sines."""
    f = lambda X: sum(X[:, 0] ** k for k in range(1, degree + 1))     # noqa: E731
    ssde = ["sin", "cos", "log", "exp"]
    result = DictionarySearcher().search(task(f, ["x"], ssde, low=-1.0))
    m = best(result)
    assert sp.expand(m.expression).free_symbols == {x}
    assert support(m.expression) == frozenset((("x", k),) for k in range(1, degree + 1))
    assert rel_l2_on_fresh_points(m.expression, [x], f, 1) < 1e-8
    capped = DictionarySearcher(degree=3).search(task(f, ["x"], ssde, low=-1.0))
    assert not capped.front or support(best(capped).expression) != support(m.expression)

