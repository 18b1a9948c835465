"""The deepxde teacher's budget from the problem and its stop on an S_val plateau (issue 36, cost)."""
from __future__ import annotations

from pathlib import Path

import pytest
from desyr_deepxde.balancing import Patience
from desyr_deepxde.plugin import DeepXDETeacher
from desyr_deepxde.sizing import derived, resolve

from desyr.config.loading import load_problem_file
from desyr.model.context import RunContext
from desyr.model.points import make_point_sets

ROOT = Path(__file__).resolve().parents[1]
SINE = ROOT / "plugins" / "desyr_paper" / "problems" / "05_sine_poisson_1d.toml"


def test_the_budget_follows_the_inputs_and_the_fields():
    assert derived(2, 1) == {"interior_points": 1000, "adam_steps": 1000, "lbfgs_steps": 1000}   # as before
    assert derived(1, 1)["interior_points"] == 500
    assert derived(3, 1)["interior_points"] == 1500
    assert derived(2, 3) == {"interior_points": 2000, "adam_steps": 1000, "lbfgs_steps": 1500}


def test_set_options_win_and_budget_scale_doubles_set_and_derived_ones():
    defaults = DeepXDETeacher().settings
    assert defaults["interior_points"] is None and defaults["lbfgs_steps"] is None
    plain = resolve(defaults, 1, 1)
    assert (plain["interior_points"], plain["adam_steps"], plain["boundary_points"]) == (500, 1000, 100)
    assert "budget_scale" not in plain                 # folded into the numbers the cache key is taken on
    assert resolve({**defaults, "interior_points": 64, "lbfgs_steps": 0}, 1, 1)["interior_points"] == 64
    larger = resolve({**defaults, **DeepXDETeacher().larger_budget()}, 2, 3)
    assert (larger["interior_points"], larger["adam_steps"], larger["lbfgs_steps"], larger["boundary_points"]) \
        == (4000, 2000, 3000, 200)
    given = DeepXDETeacher(adam_steps=300, lbfgs_steps=0, initial_points=20)
    scaled = resolve({**given.settings, **given.larger_budget()}, 2, 1)
    assert (scaled["adam_steps"], scaled["lbfgs_steps"], scaled["initial_points"]) == (600, 0, 40)


def test_the_default_window_is_a_quarter_of_each_phase():
    p = Patience(None, min_gain=0.01, every=50)
    p.restart(0, 1000)                      # a 1000-step phase: a 250-step window
    assert not p.exhausted(0, 1.0) and not p.exhausted(100, 0.5)
    assert not p.exhausted(300, 0.499)      # 200 steps without a 1 % gain
    assert p.exhausted(350, 0.499)          # 250
    p.restart(350, 200)                     # a short phase: at least two checkpoints
    assert not p.exhausted(400, 0.499) and p.exhausted(450, 0.499)
    coarse = Patience(None, min_gain=0.5, every=50)
    coarse.restart(0, 400)
    assert not coarse.exhausted(0, 1.0)
    assert coarse.exhausted(100, 0.6)       # a 40 % gain is a plateau when 50 % is asked


@pytest.mark.slow
def test_a_plateau_stops_training_early_and_the_same_seed_stops_at_the_same_step(tmp_path):
    problem = load_problem_file(SINE)
    options = {"layers": [8, 8], "interior_points": 64, "boundary_points": 2, "adam_steps": 2000,
               "lbfgs_steps": 0, "checkpoint_every": 50, "plateau_gain": 0.5, "architecture": "fnn",
               "activation": "tanh"}

    def train(folder: str) -> dict:
        ctx = RunContext(problem, make_point_sets(problem), cache_dir=tmp_path / folder)
        return DeepXDETeacher(**options).prepare(problem, ctx).info()

    first, again = train("a"), train("b")
    assert first["networks"][0]["steps"] < 2000          # stopped on the plateau, not at the step budget
    assert first["history"] == again["history"] and first["settings"]["interior_points"] == 64
    assert first["settings"]["patience"] is None and "budget_scale" not in first["settings"]


def test_a_score_at_stop_below_stops_the_phase_even_while_it_still_improves():
    p = Patience(None, min_gain=0.01, every=100, stop_below=1e-5)
    p.restart(0, 2000)
    assert not p.exhausted(0, 1.0) and not p.exhausted(100, 4e-5)
    assert p.exhausted(200, 9e-6)                       # a 4x gain, but accurate enough
    assert not Patience(None, stop_below=0.0).exhausted(0, 1e-12)    # 0: never
    assert DeepXDETeacher().settings["stop_below"] == 1e-5
