"""Candidates for the oracle (issue 35): a grammar of perturbations of a problem's true solution.

Each draw is (category, printed formulas, exact form or None).  The categories are the attacks
the verifier must survive: the parser's functions, spikes, kinks, branch cuts, names the proofs use
for their own symbols, complex constants, wrong unknowns, and the truth itself (Proved expected).
"""
from __future__ import annotations

import sympy as sp
from hypothesis import strategies as st

from tests.oracle import Problem, read
from tests.oracle_exact import CATEGORIES as EXACT_CATEGORIES
from tests.oracle_exact import terms
from tests.oracle_scale import KINDS, scale_candidates

FUNCTIONS = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "asin", "acos", "atan", "abs")
CATEGORIES = ("truth", "function", "spike", "kink", "branch", "collision", "complex", "unknown", "shape",
              *EXACT_CATEGORIES, *KINDS)
#: problems with a thin or tiny boundary feature, drawn in the category "shape" only
THIN = ("pinhole", "slit")
SIZES = ("1", "1/10**3", "1/10**9", "1/10**12")


def _names(p: Problem) -> list[str]:
    return [*p.ranges, *p.parameters]


@st.composite
def _affine(draw, p: Problem) -> str:
    """A small affine combination of one or two of the problem's names, with rational coefficients."""
    names = draw(st.lists(st.sampled_from(_names(p)), min_size=1, max_size=2, unique=True))
    terms = [f"{draw(st.sampled_from(['1', '2', '-1', '3/7', '1/2']))}*{n}" for n in names]
    return " + ".join(terms) + f" - {draw(st.sampled_from(['0', '1/3', '1/2', '3/10']))}"


@st.composite
def _term(draw, p: Problem, category: str) -> str:
    size = draw(st.sampled_from(SIZES))
    a = draw(_affine(p))
    if category == "function":
        return f"{size}*{draw(st.sampled_from(FUNCTIONS))}({a})"
    if category == "spike":
        k, v = draw(st.sampled_from([2, 4, 8, 12])), draw(st.sampled_from(_names(p)))
        centre = draw(st.sampled_from(["1/2", "3/10", "1/3"]))
        return f"{draw(st.sampled_from(['1000', '1', '1/10**9']))}*exp(-10**{k}*({v} - {centre})**2)"
    if category == "kink":
        return draw(st.sampled_from([f"{size}*abs({a})", f"{size}*({a})*abs({a})", f"{size}*sqrt(({a})**2)"]))
    if category == "branch":
        return f"{size}*{draw(st.sampled_from(['sqrt', 'log', 'asin', 'acos']))}({a})"
    if category == "collision":
        n = draw(st.sampled_from(p.names or tuple(_names(p))))
        space = [v for v in p.ranges if v != p.time] or [n]
        x, y = (space * 2)[:2]
        return draw(st.sampled_from([f"{size}*cos({n})", f"{size}*sin({n})*{x}", f"{size}*({y}*cos({n}) - {x}*sin({n}))",
                                     f"{size}*{n}", f"{size}*exp({n})*{y}"]))
    if category == "complex":
        return draw(st.sampled_from([f"{size}*sqrt(-1)*({a})", f"{size}*log(-1)", f"sqrt(-1)*{size}",
                                     f"{size}*sqrt(-({a})**2 - 1)", f"{size}*E**(sqrt(-1)*pi)*({a})"]))
    raise AssertionError(category)


def _floats(text: str, p: Problem) -> str:
    """The formula as a run prints it: every constant a float (17 digits)."""
    return str(sp.N(read(p, text), 17))


@st.composite
def candidates(draw, p: Problem, category: str) -> tuple[dict[str, str], dict[str, str] | None]:
    """(printed, exact form or None) for ``p`` in ``category``."""
    base = dict(p.truth) or {f: "0" for f in p.fields}
    base.update({u: base.get(u, "1/2") for u in p.unknowns})
    form = dict(base)
    if category == "unknown":
        for u in p.unknowns:
            form[u] = draw(st.sampled_from(["1/5", "1/2", f"{base[u]} + 1/10**9", f"{base[u]} + 1/10**3"]))
    elif category in EXACT_CATEGORIES:
        form["u"] = draw(terms(p, category))
    elif category in KINDS:
        form = draw(scale_candidates(p))
    elif category == "shape":
        f = draw(st.sampled_from(p.fields))
        form[f] = draw(st.sampled_from(["0", "1/10**9", "x/10**12", "1/10**3*x*y"]))
    elif category != "truth":
        f = draw(st.sampled_from(p.fields))
        term = draw(_term(p, category))
        form[f] = term if draw(st.booleans()) and category != "collision" else f"({base[f]}) + {term}"
    mode = draw(st.sampled_from(["plain", "floats", "spiky"] if category == "spike" else ["plain", "floats"]))
    if mode == "plain":
        return form, None
    if mode == "spiky":      # the printed formula carries a spike its exact form does not
        f = draw(st.sampled_from(p.fields))
        k, v = draw(st.sampled_from([8, 12])), draw(st.sampled_from(_names(p)))
        spiky = {**form, f: f"{form[f]} + 1000*exp(-10**{k}*({v} - 1/2)**2)"}
        return spiky, form
    try:
        return {k: _floats(v, p) for k, v in form.items()}, form
    except (TypeError, ValueError, sp.SympifyError):
        return form, None
