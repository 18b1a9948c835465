"""The second bundled set, ``examples:``: new problems written with default settings.

Each file loads, leaves the teacher to its defaults (no [teacher] table), and its
reference solves every equation and constraint; ``desyr problems`` lists them all.
"""
from dataclasses import replace
from importlib import resources

import pytest

from desyr.cli.main import main
from desyr.config.loading import load_problem, tomllib
from desyr.model.points import make_point_sets
from desyr.model.residuals import verify


def _examples():
    folder = resources.files("desyr_paper") / "examples"
    return sorted(f for f in folder.iterdir() if f.name.endswith(".toml"))


NAMES = [f.name[:-5].partition("_")[2] for f in _examples()]


def test_the_set_has_the_required_size():
    assert len(NAMES) >= 11 and len(set(NAMES)) == len(NAMES)


@pytest.mark.parametrize("res", _examples(), ids=lambda f: f.name[:-5])
def test_example_loads_with_default_teacher_and_its_reference_is_exact(registry, res):
    raw = tomllib.loads(res.read_text(encoding="utf-8"))
    assert "teacher" not in raw and "paper" not in raw, "the examples use the default teacher"
    assert res.read_text(encoding="utf-8").startswith("#"), "each file starts with a header comment"
    assert set(raw["search"]["options"]) <= {"generations"} and raw["search"]["options"]["generations"] <= 100

    problem = load_problem(f"examples:{res.name[:-5].partition('_')[2]}", registry)
    assert problem.reference and set(problem.reference) == set(problem.fields)
    problem = replace(problem, points={**problem.points, "verify": 300},
                      constraints=tuple(replace(c, n_points=min(c.n_points, 60)) for c in problem.constraints))
    v = verify(problem, problem.reference, make_point_sets(problem, 0))
    assert max(v.R_eq_per_equation) < 1e-10, (res.name, v)
    assert max(v.R_con_per_constraint) < 1e-10, (res.name, v)


def test_examples_are_reachable_by_id_and_listed(registry, capsys):
    assert load_problem("examples:1", registry).name == load_problem(f"examples:{NAMES[0]}", registry).name
    assert main(["problems"]) == 0
    listed = capsys.readouterr().out
    for name in NAMES:
        assert f"examples:{name} " in listed
    assert "paper:burgers " in listed
