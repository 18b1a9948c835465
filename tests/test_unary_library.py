"""The unary library: chosen from the problem's text when the config lists none, grown by escalation from
the teacher's values and the broad base, restricted by ``[search] unary``, added to by ``add_unary``."""
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import NO_SOLVERS

from desyr.config.spec import read_spec
from desyr.errors import ConfigError
from desyr.escalation import escalate, policy
from desyr.extension.registry import load_registry
from desyr.model.result import AttemptRecord, Residuals
from desyr.runtime.progress import Progress
from desyr.testing import make_problem
from desyr.unary.choice import start_library, text_functions
from desyr.unary.evidence import Finding, profile_shapes, read_evidence

HEAT = """
name = "heat_source"
time = "t"
[domain]
x = [0, 1]
t = [0, 1]
[[equations]]
lhs = "u_t - u_xx"
rhs = "{rhs}"
[[constraints]]
on = "x = 0"
value = "{left}"
[[constraints]]
on = "initial"
value = 0
[reference]
u = "{reference}"
[search]
plugin = "operon"
{search}
""" + NO_SOLVERS


def _heat(rhs: str = "0", left: str = "0", reference: str = "x*t", search: str = "") -> str:
    return HEAT.format(rhs=rhs, left=left, reference=reference, search=search)


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def _start(text, registry):
    spec = read_spec(make_problem(text), registry)
    return spec, start_library(spec, registry)


def test_the_library_starts_with_the_functions_the_problem_names(registry):
    text = _heat(rhs="exp(-x*t)*sin(pi*x) + log(1 + x)", left="atan(t)")
    assert text_functions(make_problem(text)) == ["sin", "exp", "log", "atan"]
    _, (spec, why) = _start(text, registry)
    assert spec.search.unary == ("sin", "cos", "exp", "log", "atan")       # cos: sin's pair
    assert "names sin, cos, exp, log, atan" in why
    # sqrt written as a power; a function of a number alone (exp(2)) names nothing
    assert text_functions(make_problem(_heat(rhs="(1 + x**2)**(-1/2) + exp(2)"))) == ["sqrt"]


def test_the_reference_never_leaks_into_the_library(registry):
    text = _heat(reference="atan(exp(x))*tanh(t) + log(1 + x**2)")
    _, (spec, why) = _start(text, registry)
    assert spec.search.unary == ()
    assert "names no function" in why


def test_a_given_unary_restricts_and_escalation_does_not_grow_it(registry):
    from desyr.escalation import _changes

    spec, (started, why) = _start(_heat(rhs="exp(-x*t)", search='unary = ["sin"]'), registry)
    assert started.search.unary == ("sin",) and "restricted" in why
    rule = policy(spec, 100.0)
    assert rule is not None and not rule.chosen
    changes = list(_changes(started, registry, rule.steps, rule.chosen))
    assert changes and all(c.step != "enrich_library" for c in changes)
    assert all(c.spec.search.unary == ("sin",) for c in changes)


def test_add_unary_adds_to_the_chosen_library(registry):
    spec, (started, why) = _start(_heat(rhs="exp(-x*t)", search='add_unary = ["tanh", "exp"]'), registry)
    assert started.search.unary == ("exp", "tanh") and "add_unary adds tanh, exp" in why
    rule = policy(spec, 100.0)
    assert rule is not None and rule.chosen


@pytest.mark.parametrize("search, words", [
    ('add_unary = ["expp"]', "expp"),
    ('unary = ["sinus"]', "sinus"),
    ('unary = ["sin"]\nadd_unary = ["exp"]', "not both"),
])
def test_bad_library_settings_are_one_line_errors(search, words):
    with pytest.raises(ConfigError) as caught:
        read_spec(make_problem(_heat(search=search)))
    message = str(caught.value)
    assert words in message and "\n" not in message


# ---------------------------------------------------------------- evidence in the teacher's values
X = np.linspace(-1.0, 1.0, 65)


@pytest.mark.parametrize("x, y, shape", [
    (X, np.tanh(5 * X), "saturation"),
    (6 * X, 4 * np.arctan(np.exp(6 * X)), "saturation"),
    (X, np.sin(np.pi * X), "oscillation"),
    (5 * X, 1 / (1 + (5 * X) ** 2), "power_law"),
    (3 * X, np.exp(-(3 * X) ** 2), "gaussian"),
    (X + 1, np.exp(-3 * (X + 1)), "exponential"),
])
def test_each_shape_is_seen_in_its_profile(x, y, shape):
    assert profile_shapes(x, y) == [shape]


@pytest.mark.parametrize("y", [2 * X + 1, X ** 2 + 0.3 * X, X ** 3 - 0.5 * X, np.tanh(X), np.log(X + 1.1)])
def test_plain_profiles_show_no_shape(y):
    assert profile_shapes(X, y) == []


def test_evidence_reads_lines_through_a_space_time_teacher():
    rng = np.random.default_rng(0)
    bounds = np.array([[-3.0, 3.0], [0.0, 1.0]])
    points = np.c_[rng.uniform(-3, 3, 400), rng.uniform(0, 1, 400)]

    def teacher(X):
        return (np.exp(-X[:, 0] ** 2) * np.exp(-2 * X[:, 1]))[:, None]

    found = read_evidence(teacher, bounds, points, ["x", "t"], ["u"])
    assert [f.shape for f in found] == ["gaussian", "exponential"]
    assert found[0].functions == ("exp", "square") and found[0].reason == "u has a Gaussian tail along x"
    assert "along t" in found[1].reason


# ---------------------------------------------------------------- the escalation order
def _not_exact(*_):
    residuals = Residuals(R_eq=1.0, R_con=1.0)
    return SimpleNamespace(exact=False, residuals=residuals, expression={"u": "x"}, candidates=[], stopped=[],
                           selected_id=None, provenance=SimpleNamespace(components={"searcher": "operon"})), "handle"


def test_escalation_spends_the_first_attempts_on_the_library_and_says_why(registry):
    spec, (started, why) = _start(_heat(rhs="exp(-x*t)"), registry)
    rule = policy(spec, 1e6)
    handles = []

    def evidence(handle):
        handles.append(handle)
        return [Finding("saturation", ("tanh", "atan"), "u saturates between two plateaus along x")]

    _, _, records, _ = escalate(started, rule, registry, Progress(verbose=False), _not_exact, first=2,
                                evidence=evidence, why_first=why)
    steps = [r.step for r in records]
    assert steps[:4] == ["first", "enrich_library", "enrich_library", "enrich_library"]
    assert steps.index("more_searches") > steps.index("other_searcher") > 3
    assert handles == ["handle"]          # read once, after the first attempt's teacher
    first, evident, tier1, tier2 = records[:4]
    assert first.reason == "the problem's text names exp"
    assert evident.reason == "the teacher's values: u saturates between two plateaus along x → tanh, atan"
    assert evident.change.startswith("unary ['exp'] → ['exp', 'tanh', 'atan']")
    assert tier1.change.startswith("unary ['exp', 'tanh', 'atan'] → ['exp', 'tanh', 'atan', 'log', 'sqrt']")
    assert "tier 1" in tier1.reason and "tier 2" in tier2.reason and "'sin', 'cos'" in tier2.change
    assert all(isinstance(r, AttemptRecord) and r.reason for r in records)


def _saturation(handle):
    return [Finding("saturation", ("tanh", "atan"), "u saturates between two plateaus along x")]


def test_a_shape_the_library_already_expresses_adds_nothing():
    from desyr.unary.choice import library_steps

    steps = list(library_steps(["exp", "tanh"], lambda: _saturation(None), lambda add: set()))
    assert [kind for kind, _, _ in steps] == ["base", "base", "base"]       # tanh is there: atan is not added
    assert all("atan" not in lib for _, lib, _ in steps[:1])
    steps = list(library_steps(["exp"], lambda: _saturation(None), lambda add: set()))
    assert steps[0][:2] == ("evidence", ["exp", "tanh", "atan"])


def test_a_library_the_text_names_gets_new_seeds_before_the_broad_base(registry):
    # the text names tanh and the teacher shows only a front: its library can express what it sees, so
    # escalation searches new seeds before adding functions nothing pointed to
    spec, (started, why) = _start(_heat(left="tanh(t)"), registry)
    _, _, records, _ = escalate(started, policy(spec, 1e6), registry, Progress(verbose=False), _not_exact,
                                first=2, evidence=_saturation, why_first=why)
    steps = [r.step for r in records]
    assert steps[:3] == ["first", "more_searches", "enrich_library"]
    assert "has a function for every shape" in records[1].reason and "tier 1" in records[2].reason
    assert records[1].change.startswith("K = ") and "seed_offset" in records[1].change
    # a library the text leaves empty goes to the base at once: new seeds of polynomials change nothing
    spec, (started, why) = _start(_heat(), registry)
    _, _, records, _ = escalate(started, policy(spec, 1e6), registry, Progress(verbose=False), _not_exact,
                                first=2, evidence=lambda handle: [], why_first=why)
    assert [r.step for r in records][:3] == ["first", "enrich_library", "enrich_library"]


def test_the_attempts_table_has_each_attempts_reason():
    from pathlib import Path

    from desyr.model.result import load_result
    from desyr.report.markdown import render_report

    fixture = Path(__file__).parent / "fixtures" / "study_bench" / "runs" / "tiny_sine-e67310d4d17f" / "seed0"
    result = load_result(fixture)
    result.attempts = [AttemptRecord(1, "enrich_library", "unary [] → ['tanh']", 1.0, False, 0.5, None,
                                     reason="u saturates between two plateaus along x")]
    report = render_report(result)
    assert "| change | why |" in report and "| u saturates between two plateaus along x |" in report
