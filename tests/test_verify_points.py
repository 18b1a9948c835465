"""The verifier owns its points (issue 44, item 2): a floor the config cannot lower, a seed from fresh
entropy that the verdict records and ``--seed`` replays."""
import json

import numpy as np
import pytest

from desyr.cli.main import main
from desyr.model.points import interior_points, latin_hypercube
from desyr.testing import make_problem
from desyr.verify import make_request
from desyr.verify.verdict import CONSTRAINT_FLOOR, INTERIOR_FLOOR, STREAMS, decide

ONE_POINT = """[domain]
x = [0, 1]
[points]
verify = 1
constraint = 1
[[equations]]
lhs = "u_xx"
rhs = "-pi**2*sin(pi*x)"
[[constraints]]
operator = "u"
on = "boundary"
value = 0
"""


def _aimed(problem, seed: int) -> str:
    """sin(pi*x) plus a term that vanishes at the one point the config's count and ``seed`` once gave."""
    rng = np.random.default_rng([seed, STREAMS[0]])
    (x0,), = interior_points(problem, 1, rng, latin_hypercube)
    return f"sin(pi*x) + 1000*(x - {float(x0)!r})*x*(1 - x)*(x - 1/2)"


def test_a_formula_aimed_at_the_configs_one_point_is_not_exact():
    problem = make_problem(ONE_POINT)
    for seed in (0, None):            # a replay of the old seed 0, and fresh entropy
        answer = decide(make_request(problem, {"u": _aimed(problem, 0)}, None, seed))
        assert answer["verdict"] == "not_exact", answer["reason"]
        assert answer["points"]["interior"] >= INTERIOR_FLOOR and answer["points"]["asked"]["interior"] == 1
        assert min(answer["points"]["constraints"]) >= 2      # a point set keeps its points
    assert decide(make_request(problem, {"u": "sin(pi*x)"}))["verdict"] == "proved"


def test_the_floor_holds_on_faces_and_a_config_may_raise_it():
    problem = make_problem("[domain]\nx = [0, 1]\ny = [0, 1]\n[points]\nverify = 2500\nconstraint = 3\n"
                           "[[equations]]\nlhs = \"u_xx + u_yy\"\n[[constraints]]\non = \"x = 0\"\nvalue = \"sin(y)\"\n")
    answer = decide(make_request(problem, {"u": "exp(x)*sin(y)"}))
    assert answer["points"]["interior"] == 2500 and answer["points"]["constraints"] == [CONSTRAINT_FLOOR]


def test_the_seed_is_fresh_recorded_and_replayed():
    problem = make_problem(ONE_POINT)
    request = make_request(problem, {"u": "sin(3.1*x)"})
    first, second = decide(request), decide(request)
    assert first["seed_from"] == "entropy" and first["seed"] != second["seed"]
    again = decide(make_request(problem, {"u": "sin(3.1*x)"}, None, first["seed"]))
    assert again["seed_from"] == "request" and again["residuals"] == first["residuals"]


@pytest.mark.slow
def test_desyr_verify_prints_the_seed_that_replays_it(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text(ONE_POINT)
    assert main(["verify", str(path), "--candidate", "sin(3.1*x)", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert main(["verify", str(path), "--candidate", "sin(3.1*x)", "--seed", str(answer["seed"])]) == 0
    out = capsys.readouterr().out
    assert f"seed {answer['seed']} (replayed" in out and "the config asks for 1" in out
    assert f"{answer['residuals']['R_eq']}" in out


@pytest.mark.parametrize("seed", [-1, 2**32, True, "7"])
def test_a_seed_out_of_range_is_one_line(seed):
    from desyr.errors import ConfigError
    with pytest.raises(ConfigError, match="seed must be"):
        decide(make_request(make_problem(ONE_POINT), {"u": "x"}) | {"seed": seed})


@pytest.mark.slow
def test_a_runs_verdict_is_replayed_from_its_result(tmp_path, capsys):
    from desyr.api import refine
    from desyr.testing import SINE_POISSON_1D
    out = tmp_path / "o"
    refine(make_problem(SINE_POISSON_1D + "\n[refine.options]\nstarts = 1\n"), ["sin(3.1*x)"], out=out, plots=False)
    answer = json.loads((out / "result.json").read_text())["verification"]["answer"]
    assert answer["seed_from"] == "entropy" and answer["points"]["interior"] >= INTERIOR_FLOOR
    assert main(["verify", str(out), "--seed", str(answer["seed"]), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["residuals"] == answer["residuals"] and again["verdict"] == answer["verdict"]
