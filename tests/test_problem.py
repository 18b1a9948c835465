from dataclasses import replace

import numpy as np
import pytest
import sympy as sp
from helpers import SINE_1D, write_config

from desyr.config.loading import load_problem_file, problem_from_dict
from desyr.errors import ConfigError
from desyr.model.points import make_point_sets


def test_load_sine(tmp_path):
    p = load_problem_file(write_config(tmp_path, SINE_1D))
    assert p.variable_names == ["x"] and p.fields == ("u",)
    assert [j.name for j in p.jets()] == ["u", "u_xx"]
    assert len(p.constraints) == 1 and len(p.constraints[0].faces) == 2


def test_a_problem_is_frozen_all_the_way_down(tmp_path):
    """What the run hands to components is the problem it verifies against: no component can change it."""
    import copy
    import dataclasses
    import pickle

    p = load_problem_file(write_config(tmp_path, SINE_1D + '[search]\nunary = ["sin"]\n'))
    for name, value in (("title", "changed"), ("reference", None), ("points", {}), ("sections", {})):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(p, name, value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.equations[0].lhs = sp.Integer(0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.constraints[0].value = sp.Integer(0)
    with pytest.raises(TypeError):
        p.points["verify"] = 1
    with pytest.raises(TypeError):
        p.sections["selection"]["exact_tolerance"] = 1.0
    with pytest.raises(TypeError):
        p.reference["u"] = sp.Integer(0)
    assert isinstance(p.sections["search"]["unary"], tuple)
    for sequence in (p.variables, p.fields, p.equations, p.constraints, p.constraints[0].faces):
        assert isinstance(sequence, tuple)
    # it still travels to worker processes, and deep-copies (the vocabulary compares by identity)
    for other in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert dataclasses.replace(other, vocabulary=p.vocabulary) == p


def test_a_problem_built_from_lists_keeps_tuples(tmp_path):
    """Code that built a Problem with lists (before it was frozen) keeps working."""
    import dataclasses

    p = load_problem_file(write_config(tmp_path, SINE_1D))
    built = dataclasses.replace(p, variables=list(p.variables), fields=list(p.fields),
                                equations=list(p.equations), constraints=list(p.constraints),
                                points=dict(p.points), reference=dict(p.reference))
    assert built == p and isinstance(built.fields, tuple) and built.fields + ("v",) == ("u", "v")
    assert built.constraints[0] == dataclasses.replace(p.constraints[0], faces=list(p.constraints[0].faces))


@pytest.mark.parametrize("text, fragment", [
    ("name = 'x'\n[domain\n", "malformed TOML"),
    ("[[equations]]\nlhs = 'u_xx'\n", "missing \\[domain\\]"),
    ("[domain]\nx=[0,1]\n[[equations]]\nlhs = 'u_yy'\n", "unknown name 'u_yy'"),
    # what a new user writes first: the hint says what to write instead
    ("[domain]\nt=[0,1]\n[[equations]]\nlhs = 'u_x + u'\n", "variables of the domain \\(t\\): u_t, u_tt"),
    ("[domain]\nt=[0,1]\n[[equations]]\nlhs = 'u_t + u = 0'\n", "right side goes in rhs"),
    ("[domain]\nt=[0,1]\n[[equations]]\nlhs = \"u' + u\"\n", "no primes"),
    ("[domain]\nt=[0,1]\n[[equations]]\nlhs = \"u'' + 1\"\n", "no primes"),     # u'' is a string literal
    ("[domain]\nt=[0,1]\n[[equations]]\nlhs = 'u_t'\n[[constraints]]\noperator='u(0)'\non='t = 0'\nvalue=1\n",
     "place goes in on"),
    ("[domain]\nx=[0,1]\n[[equations]]\nlhs = 'u_xx'\nrhs = 'from_reference'\n", 'rhs = "from_reference" needs'),
    ("[domain]\nx=[0,1]\n[[equations]]\nlhs = 'w_xx'\n", "unknown name 'w_xx'"),
    ("[domain]\nx=[0,1]\n[[equations]]\nlhs = 'u_xx + foo(x)'\n", "function 'foo' is not allowed"),
    ("[domain]\nx=[1,0]\n[[equations]]\nlhs = 'u_xx'\n", "lo < hi"),
    ("[domain]\nx=[0,1]\n[[equations]]\nlhs = 'u_xx'\n[[constraints]]\non='y = 0'\nvalue=0\n", "unknown variable 'y'"),
    ("[domain]\nx=[0,1]\n[[equations]]\nlhs = 'u_xx'\n[[constraints]]\non='x = 2'\nvalue=0\n", "outside the domain"),
    ("[domain]\nx=[0,1]\n[[equations]]\nlhs = 'u_xx'\nrhs='from_reference'\n", "needs a \\[reference\\]"),
    ("[domain]\nx=[0,1]\nbogus=1\n[[equations]]\nlhs = 'u_xx'\n", "invalid variable name|lo < hi"),
])
def test_config_errors(tmp_path, text, fragment):
    with pytest.raises(ConfigError, match=fragment):
        load_problem_file(write_config(tmp_path, text))


@pytest.mark.slow
def test_manufactured_forcing_and_reference_constraints():
    p = problem_from_dict({
        "domain": {"x": [0, 1], "t": [0, 1]}, "time": "t",
        "equations": [{"lhs": "u_tt - u_xx + u**3", "rhs": "from_reference"}],
        "constraints": [{"on": "boundary", "value": "reference"},
                        {"on": "t = 0", "operator": "u_t", "value": "reference"}],
        "reference": {"u": "x*cos(5*pi*t) + x**3*t**3"},
    })
    x, t = p.symbols
    ref = x * sp.cos(5 * sp.pi * t) + x**3 * t**3
    expected = sp.diff(ref, t, 2) - sp.diff(ref, x, 2) + ref**3
    assert sp.simplify(p.equations[0].forcing - expected) == 0
    assert sp.simplify(p.constraints[1].value - sp.diff(ref, t)) == 0
    assert [f.describe() for f in p.constraints[0].faces] == ["x = 0", "x = 1"]
    # the manufactured problem is satisfied exactly by its reference
    assert sp.simplify(p.apply(p.equations[0].residual, {"u": ref})) == 0


def test_point_sets_are_seeded_disjoint_and_on_their_sets(tmp_path):
    p = problem_from_dict({"domain": {"x": [-1, 1], "t": [0, 1]}, "time": "t",
                           "equations": [{"lhs": "u_t - u_xx"}],
                           "constraints": [{"on": "boundary", "value": 0, "points": 50},
                                           {"on": "t = 0", "value": "sin(pi*x)", "points": 40},
                                           {"on": "x = 0, t = 0.5", "value": 0}],
                           "points": {"refine": 400, "verify": 300, "search": 200, "validate": 100}})
    a, b = make_point_sets(p, seed=3), make_point_sets(p, seed=3)
    sets = [a.search, a.refine, a.verify, a.validate]
    for s1, s2 in zip(sets, [b.search, b.refine, b.verify, b.validate]):
        assert np.array_equal(s1, s2)
    allpts = np.vstack(sets)
    assert len(np.unique(allpts.round(14), axis=0)) == len(allpts)
    assert np.all((allpts >= p.bounds[:, 0]) & (allpts <= p.bounds[:, 1]))
    boundary, initial, point = a.constraints
    assert len(boundary) == 50 and set(np.unique(boundary[:, 0])) == {-1.0, 1.0}
    assert len(initial) == 40 and np.all(initial[:, 1] == 0)
    assert point.tolist() == [[0.0, 0.5]]
    assert not np.array_equal(make_point_sets(p, seed=4).refine, a.refine)


def test_point_set_disjointness_is_enforced(monkeypatch):
    """Force identical draws: the redraw step must still make the sets disjoint."""
    import desyr.model.points as points

    p = problem_from_dict({"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx"}],
                           "points": {"refine": 20, "verify": 20, "search": 20, "validate": 20}})
    calls = {"n": 0}
    original = points._sample

    def same_first(problem, n, rng, uniform):
        calls["n"] += 1
        if calls["n"] <= 4:
            return np.linspace(0, 1, n)[:, None].copy()
        return original(problem, n, rng, uniform)

    monkeypatch.setattr(points, "_sample", same_first)
    s = points.make_point_sets(p, seed=0)
    allpts = np.vstack([s.search, s.refine, s.verify, s.validate])
    assert len(np.unique(allpts)) == len(allpts)


def _bundled_names():
    from importlib import resources
    return sorted(p.name[:-5] for p in (resources.files("desyr_paper") / "problems").iterdir() if p.name.endswith(".toml"))


@pytest.mark.slow
@pytest.mark.parametrize("stem", _bundled_names())
def test_every_bundled_reference_solves_its_problem(registry, stem):
    """The paper configs are transcribed correctly: the reference has zero residual (the
    misspecified variant shares 01's definition) and IDs are unique."""
    from desyr.config.loading import load_problem
    from desyr.model.points import make_point_sets
    from desyr.model.residuals import verify

    problem = load_problem(f"paper:{stem.split('_', 1)[1]}", registry)
    problem = replace(problem, points={**problem.points, "verify": 300},
                      constraints=tuple(replace(c, n_points=min(c.n_points, 50)) for c in problem.constraints))
    v = verify(problem, problem.reference, make_point_sets(problem, 0))
    assert v.R_eq < 1e-9 and v.R_con < 1e-9, (stem, v)


@pytest.mark.slow
def test_bundled_library_has_every_paper_configuration(registry):
    from desyr.config.loading import load_problem
    ids = sorted(str(load_problem(f"paper:{s.split('_', 1)[1]}", registry).sections["paper"]["id"])
                 for s in _bundled_names() if not s.startswith("01m"))
    assert ids == ["01", "02", "03", "04", "05", "06", "07a", "07b", "08", "09a", "09b", "09c",
                   "10", "11", "12", "13", "14", "15"]
