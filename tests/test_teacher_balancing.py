"""The deepxde teacher's automatic parts: loss balancing, early stopping and architecture escalation."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from desyr_deepxde.balancing import WEIGHT_RANGE, Patience
from desyr_deepxde.plugin import DeepXDETeacher

from desyr.config.loading import load_problem_file
from desyr.extension.roles import ComponentError
from desyr.model.context import RunContext
from desyr.model.points import make_point_sets

ROOT = Path(__file__).resolve().parents[1]
SINE = ROOT / "plugins" / "desyr_paper" / "problems" / "05_sine_poisson_1d.toml"
TINY = {"layers": [16, 16], "interior_points": 64, "boundary_points": 2, "adam_steps": 200, "lbfgs_steps": 100,
        "checkpoint_every": 50}


def _train(tmp_path, **options):
    problem = load_problem_file(SINE)
    ctx = RunContext(problem, make_point_sets(problem), cache_dir=tmp_path)
    return problem, ctx, DeepXDETeacher(**{**TINY, **options}).prepare(problem, ctx)


def test_patience_stops_only_after_a_plateau():
    p = Patience(steps=200, min_gain=0.01)
    assert not p.exhausted(0, 1.0)
    assert not p.exhausted(100, 0.5)          # improved
    assert not p.exhausted(200, 0.499)        # less than 1 %: no improvement, but only 100 steps
    assert p.exhausted(300, 0.498)            # 200 steps without a 1 % gain
    p.restart(300)                            # a new phase gets its own patience
    assert not p.exhausted(400, 0.498)
    assert not Patience(steps=0).exhausted(10**6, 1.0)   # 0: never


def test_new_options_are_checked():
    with pytest.raises(ComponentError, match="balance"):
        DeepXDETeacher(balance="magic")
    with pytest.raises(ComponentError, match="architecture"):
        DeepXDETeacher(architecture="resnet")
    with pytest.raises(ComponentError, match="even first hidden width"):
        DeepXDETeacher(architecture="msffn", layers=[15, 16])
    assert DeepXDETeacher().settings["balance"] == "annealing"
    assert DeepXDETeacher().larger_budget() == {"budget_scale": 2.0}


@pytest.mark.slow
def test_annealing_moves_constraint_weights_and_records_them(tmp_path):
    _, _, model = _train(tmp_path)
    info = model.info()
    assert info["balance"] == "annealing" and info["architecture"] == "fnn" and not info["escalated"]
    weights = info["loss_weights_final"]
    assert weights[0] == 1.0 and len(weights) == 2
    lo, hi = WEIGHT_RANGE
    assert lo <= weights[1] <= hi and weights[1] != 1.0     # the boundary term was re-weighted


@pytest.mark.slow
def test_hand_set_weights_win(tmp_path):
    _, _, model = _train(tmp_path, loss_weights=[1.0, 7.0])
    info = model.info()
    assert info["balance"] == "hand-set loss_weights" and info["loss_weights_final"] == [1.0, 7.0]


@pytest.mark.slow
def test_stall_escalates_to_msffn_and_the_cache_reloads_it(tmp_path):
    # stall_ratio 1e-12: no network reaches it, so the auto architecture always escalates
    problem, ctx, model = _train(tmp_path, stall_ratio=1e-12)
    info = model.info()
    assert info["escalated"] and [(n["architecture"], n["activation"]) for n in info["networks"]] == [
        ("fnn", "tanh"), ("fnn", "sin"), ("msffn", "tanh")]
    best = min(info["networks"], key=lambda n: n["S_val_selected"])
    assert info["architecture"] == best["architecture"]
    assert info["S_val_selected"] == pytest.approx(best["S_val_selected"])
    X = np.linspace(0, 1, 7)[:, None]
    again = DeepXDETeacher(**{**TINY, "stall_ratio": 1e-12}).prepare(problem, ctx)
    assert again.info()["cached"] and np.array_equal(again.predict(X), model.predict(X))


@pytest.mark.slow
def test_fixed_msffn_trains(tmp_path):
    _, _, model = _train(tmp_path, architecture="msffn", fourier_sigmas=[1.0, 4.0])
    info = model.info()
    assert info["architecture"] == "msffn" and not info["escalated"]
    assert info["S_val_selected"] < info["S_val_initial"]


def test_msffn_with_one_hidden_layer():
    import torch
    from desyr_deepxde.networks import make_net

    net = make_net("msffn", [8], 2, 3, "tanh", "Glorot normal", [1.0, 10.0])
    assert net(torch.rand(5, 2, dtype=next(net.parameters()).dtype)).shape == (5, 3)


WIDE = """
name = "wide"
time = "t"
[domain]
x = [0, 10]
t = [0, 3]
[[equations]]
lhs = "u_t - u_xx"
rhs = "5e-5"
[[constraints]]
on = "t = 0"
value = 0
"""


def test_input_scaling_maps_the_domain_box_onto_the_unit_box():
    import torch
    from desyr_deepxde.networks import build_net, input_bounds, scales_inputs

    from desyr.testing import make_problem

    problem = make_problem(WIDE)
    bounds = input_bounds(problem)
    assert bounds == [(0.0, 10.0), (0.0, 3.0)]                 # space first, then time, as the network sees them
    assert scales_inputs("auto", bounds) and scales_inputs("always", [(0.0, 1.0)])
    assert not scales_inputs("auto", [(0.0, 1.0), (-1.0, 1.0)]) and not scales_inputs("never", bounds)
    settings = DeepXDETeacher(layers=[8]).settings
    net = build_net(problem, settings, 2)
    corners = torch.tensor([[0.0, 0.0], [10.0, 3.0], [5.0, 1.5]], dtype=torch.get_default_dtype())
    assert torch.allclose(net._input_transform(corners), torch.tensor([[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]]))
    assert build_net(problem, {**settings, "input_scaling": "never"}, 2)._input_transform is None
    with pytest.raises(ComponentError, match="input_scaling"):
        DeepXDETeacher(input_scaling="sometimes")


def test_tiny_sources_are_rescaled_and_others_left_alone():
    import torch
    from desyr_deepxde.residuals import PinnResiduals, equation_scales

    from desyr.testing import SINE_POISSON_1D, make_problem

    X = torch.rand(50, 2, dtype=torch.float64) * torch.tensor([10.0, 3.0], dtype=torch.float64)
    wide = make_problem(WIDE)
    assert equation_scales(PinnResiduals(wide, ["x", "t"]), X) == [pytest.approx(5e-5)]
    homogeneous = make_problem(WIDE.replace('rhs = "5e-5"', 'rhs = "0"'))
    assert equation_scales(PinnResiduals(homogeneous, ["x", "t"]), X) == [1.0]
    sine = make_problem(SINE_POISSON_1D)             # source pi^2 sin(pi x): RMS about 7, so no rescaling
    assert equation_scales(PinnResiduals(sine, ["x"]), torch.rand(50, 1, dtype=torch.float64)) == [1.0]
