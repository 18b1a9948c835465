"""The ``deepxde`` teacher: S_val checkpoint selection, residuals from the
problem definition, caching, and never touching the reference."""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest
from desyr_deepxde.plugin import DeepXDETeacher
from desyr_deepxde.selection import select_checkpoint, validation_scales, validation_score

from desyr.config.loading import load_problem_file, problem_from_dict, read_toml
from desyr.extension.roles import ComponentError
from desyr.model.context import RunContext
from desyr.model.points import make_point_sets

ROOT = Path(__file__).resolve().parents[1]
SINE = ROOT / "plugins" / "desyr_paper" / "problems" / "05_sine_poisson_1d.toml"
FAST = {"adam_steps": 300, "lbfgs_steps": 300, "checkpoint_every": 50}


def rel_l2_sine(model, X):
    ref = np.sin(np.pi * X[:, 0])
    return float(np.linalg.norm(model.predict(X)[:, 0] - ref) / np.linalg.norm(ref))


# ------------------------------------------------------------------ pure parts
def test_select_checkpoint_synthetic():
    history = [(0, 9.0, 1.0), (100, 2.0, 0.3), (200, 1.0, 0.05), (300, 0.5, 0.08), (400, 0.1, math.nan),
               (500, 0.05, 0.05)]
    assert select_checkpoint(history) == 2            # argmin, earliest of ties, NaN never wins
    assert select_checkpoint([(0, 1.0, math.inf), (10, 1.0, math.nan)]) == 0
    with pytest.raises(ValueError):
        select_checkpoint([])


def test_validation_score_formula():
    b = validation_scales([4.0, 1e-6, 2.0])
    assert list(b) == [4.0, 1.0, 2.0]                  # b_i = max(v_i(theta0), 1)
    assert validation_score([4.0, 1e-6, 2.0], b) == pytest.approx(math.sqrt((1 + 1e-12 + 1) / 3))
    assert validation_score([0.4, 0.0, 0.0], b) == pytest.approx(math.sqrt(0.01 / 3))
    assert validation_score([math.nan, 0, 0], b) == math.inf


def test_options_are_checked():
    with pytest.raises(ComponentError, match="does not know option"):
        DeepXDETeacher(hidden=[10])
    with pytest.raises(ComponentError, match="layers"):
        DeepXDETeacher(layers=[])
    with pytest.raises(ComponentError, match="adam_steps"):
        DeepXDETeacher(adam_steps=-1)
    with pytest.raises(ComponentError, match="loss_weights"):
        DeepXDETeacher(loss_weights="big")
    assert DeepXDETeacher(lr=1).settings["lr"] == 1.0


def test_sympy_to_torch_constants_and_powers():
    import sympy as sp
    import torch
    from desyr_deepxde.residuals import torch_function
    x, u = sp.symbols("x u", real=True)
    expr = sp.Float(0.05) * u**2 + sp.sqrt(2) * sp.sin(sp.pi * x) - sp.exp(1) * sp.tanh(x) + sp.Rational(1, 3)
    f = torch_function([x, u], expr)
    X = torch.linspace(0, 1, 7, dtype=torch.float64).reshape(-1, 1)
    U = X**3
    want = sp.lambdify([x, u], expr, "numpy")(X.numpy(), U.numpy())
    assert np.allclose(f(X, U).numpy(), want, rtol=1e-12)
    const = torch_function([x, u], sp.Integer(3))(X, U)
    assert const.shape == X.shape and torch.all(const == 3)


def test_jets_mixed_and_higher_order_with_time_first():
    """Jets by repeated dde.grad.jacobian on a known function; the problem lists t
    before x, so the network input order (x, t) differs from the problem order."""
    import deepxde as dde
    import torch
    from desyr_deepxde.residuals import PinnResiduals, autograd_derivative, dde_derivative
    from desyr_deepxde.training import _geometry
    problem = problem_from_dict({
        "domain": {"t": [0, 1], "x": [0, 2]}, "time": "t", "fields": ["u", "v"],
        "equations": [{"lhs": "u_xt + v_xxx"}, {"lhs": "u_t - x*v_x"}],
        "constraints": [{"on": "x = 0", "operator": "u_x", "value": "cos(t)"}],
    })
    geom, net_vars = _geometry(problem)
    assert net_vars == ["x", "t"] and isinstance(geom, dde.geometry.GeometryXTime)
    res = PinnResiduals(problem, net_vars)
    Xn = torch.rand(20, 2, dtype=torch.float64, requires_grad=True)   # columns (x, t)
    x, t = Xn[:, 0:1], Xn[:, 1:2]
    y = torch.cat([torch.sin(x) * t**2, x**4 * t], dim=1)
    for d in (dde_derivative, autograd_derivative):
        r1, r2 = res.equation_residuals(Xn, y, d)
        want1 = torch.cos(x) * 2 * t + 24 * x * t             # u_xt + v_xxx
        want2 = torch.sin(x) * 2 * t - x * 4 * x**3 * t       # u_t - x v_x
        assert torch.allclose(r1, want1) and torch.allclose(r2, want2)
        op = res.constraint_operator(0, Xn, y, d)
        assert torch.allclose(op, torch.cos(x) * t**2)
        dde.grad.clear()


# -------------------------------------------------------------- real training
@pytest.fixture(scope="module")
def sine_run(tmp_path_factory):
    problem = load_problem_file(SINE)
    points = make_point_sets(problem)
    cache = tmp_path_factory.mktemp("cache")
    options = {**problem.sections["teacher"]["options"], **FAST}
    ctx = RunContext(problem, points, cache_dir=cache)
    t0 = time.perf_counter()
    model = DeepXDETeacher(**options).prepare(problem, ctx)
    return problem, points, cache, options, model, time.perf_counter() - t0


@pytest.mark.slow
def test_training_lowers_sval_and_selects_argmin(sine_run):
    problem, points, _, _, model, _ = sine_run
    info = model.info()
    assert info["cached"] is False and info["train_seconds"] > 0
    history = info["history"]
    assert history[0][0] == 0 and len(history) >= 3
    assert history[-1][0] <= FAST["adam_steps"] + FAST["lbfgs_steps"]
    assert [h[0] for h in history] == sorted({h[0] for h in history})
    scores = [h[2] for h in history]
    assert info["S_val_selected"] < info["S_val_initial"]
    assert info["S_val_selected"] == min(scores)
    assert info["selected_index"] == select_checkpoint(history) == int(np.argmin(scores))
    assert info["selected_step"] == history[info["selected_index"]][0]
    # the kept network is the selected checkpoint: recomputing S_val gives its score
    from desyr_deepxde.fitting import _Validator
    from desyr_deepxde.residuals import PinnResiduals
    ctx = RunContext(problem, points)
    validator = _Validator(PinnResiduals(problem, ["x"]), problem, ctx, [0], model.dtype)
    again = validation_score(validator.components(model.net), info["scales"])
    assert again == pytest.approx(info["S_val_selected"], rel=1e-3, abs=1e-12)


@pytest.mark.slow
def test_teacher_accuracy(sine_run):
    _, points, _, _, model, _ = sine_run
    pred = model.predict(points.verify)
    assert pred.shape == (len(points.verify), 1) and pred.dtype == np.float64
    assert rel_l2_sine(model, points.verify) < 1e-2


@pytest.mark.slow
def test_cached_rerun_does_not_train(sine_run):
    problem, points, cache, options, model, first_seconds = sine_run
    ctx = RunContext(problem, points, cache_dir=cache)
    t0 = time.perf_counter()
    again = DeepXDETeacher(**options).prepare(problem, ctx)
    seconds = time.perf_counter() - t0
    info = again.info()
    assert info["cached"] is True
    assert seconds < max(1.0, first_seconds / 2)
    assert np.array_equal(again.predict(points.verify), model.predict(points.verify))
    assert info["selected_step"] == model.info()["selected_step"]
    assert info["history"] == model.info()["history"]
    # a different seed is a different cache entry
    other = DeepXDETeacher(**{**options, "adam_steps": 20, "lbfgs_steps": 0, "seed": 5}).prepare(problem, ctx)
    assert other.info()["cached"] is False


@pytest.mark.slow
def test_a_larger_teacher_starts_from_the_smaller_ones_network(sine_run):
    problem, points, cache, options, model, _ = sine_run
    smaller = model.info()
    larger = DeepXDETeacher(**{**options, "budget_scale": 2.0}).prepare(problem, RunContext(problem, points,
                                                                                            cache_dir=cache))
    info = larger.info()
    assert info["warm_start"] == {"from_cache_key": smaller["cache_key"], "S_val": smaller["S_val_selected"]}
    # straight to L-BFGS from the smaller network, on the smaller's S_val scales: it starts where that one ended
    assert info["scales"] == smaller["scales"]
    assert info["history"][0][2] == pytest.approx(smaller["S_val_selected"], rel=1e-3)
    assert info["S_val_selected"] <= info["history"][0][2]
    assert info["history"][-1][0] <= 2 * options["lbfgs_steps"]
    # cached like any teacher: asked again, it is read back
    again = DeepXDETeacher(**{**options, "budget_scale": 2.0}).prepare(problem, RunContext(problem, points,
                                                                                           cache_dir=cache))
    assert again.info()["cached"] is True and again.info()["cache_key"] == info["cache_key"]
    # the next larger one finds it, though its key names the network it started from
    largest = DeepXDETeacher(**{**options, "budget_scale": 4.0}).prepare(
        problem, RunContext(problem, points, cache_dir=cache))
    assert largest.info()["warm_start"]["from_cache_key"] == info["cache_key"]


def test_a_fit_short_of_the_search_level_says_which_part_holds_it_up():
    from desyr_deepxde.diagnosis import SEARCH_LEVEL, component_names, fit_note

    names = component_names(1, ["u = 0 on x = 0", ""], ["u"])
    assert names == ["the equation", "constraint 1 (u = 0 on x = 0)", "constraint 2", "the observations of u"]
    info = {"S_val_selected": 0.019, "components_selected": [0.02, 0.5, 0.01, 0.0], "scales": [1.0, 10.0, 1.0, 1.0],
            "networks": [{"S_val_selected": 0.019, "steps": 700}], "stopped_at_deadline": False}
    note = fit_note(info, names, planned=2000)
    assert note is not None and "S_val 0.019" in note and "constraint 1 (u = 0 on x = 0)" in note
    assert "plateau" in note
    assert "deadline" in fit_note({**info, "stopped_at_deadline": True}, names, planned=2000)
    assert "whole step budget" in fit_note({**info, "networks": [{"S_val_selected": 0.019, "steps": 2000}]},
                                           names, planned=2000)
    assert fit_note({**info, "S_val_selected": SEARCH_LEVEL}, names, planned=2000) is None


@pytest.mark.slow
def test_retrain_ignores_cache(sine_run):
    problem, points, cache, options, _, _ = sine_run
    ctx = RunContext(problem, points, cache_dir=cache, retrain=True)
    tiny = {**options, "adam_steps": 30, "lbfgs_steps": 0}
    DeepXDETeacher(**tiny).prepare(problem, RunContext(problem, points, cache_dir=cache))
    assert DeepXDETeacher(**tiny).prepare(problem, ctx).info()["cached"] is False


@pytest.mark.slow
def test_problem_without_reference_trains(tmp_path):
    data = read_toml(SINE)
    data.pop("reference")
    problem = problem_from_dict(data)
    assert problem.reference is None
    ctx = RunContext(problem, make_point_sets(problem), cache_dir=tmp_path)
    model = DeepXDETeacher(**{**data["teacher"]["options"], **FAST}).prepare(problem, ctx)
    assert model.info()["S_val_selected"] < model.info()["S_val_initial"]
    assert rel_l2_sine(model, ctx.points.verify) < 1e-2


@pytest.mark.slow
def test_reference_is_never_read(tmp_path, monkeypatch):
    problem = load_problem_file(SINE)
    points = make_point_sets(problem)

    class Forbidden(type(problem)):
        @property
        def reference(self):
            raise AssertionError("the teacher read problem.reference")

        @reference.setter
        def reference(self, value):
            pass

        def evaluate_reference(self, X):
            raise AssertionError("the teacher evaluated the reference")

    object.__setattr__(problem, "__class__", Forbidden)      # the problem is frozen
    with pytest.raises(AssertionError):
        problem.reference
    ctx = RunContext(problem, points, cache_dir=tmp_path)
    model = DeepXDETeacher(layers=[20, 20], adam_steps=100, lbfgs_steps=50, interior_points=128,
                           boundary_points=2, checkpoint_every=50).prepare(problem, ctx)
    assert model.predict(points.verify).shape == (len(points.verify), 1)


@pytest.mark.slow
def test_time_dependent_multifield_float64_smoke(tmp_path):
    problem = problem_from_dict({
        "domain": {"t": [0, 1], "x": [0, 1]}, "time": "t", "fields": ["u", "v"],
        "equations": [{"lhs": "u_t - 0.1*u_xx"}, {"lhs": "v_x - u"}],
        "constraints": [
            {"on": "initial", "operator": "u", "value": "sin(pi*x)"},
            {"on": "boundary", "operator": "u", "value": 0},
            {"on": "x = 0", "operator": "v_x", "value": 0},
            {"on": "t = 0, x = 0", "operator": "v", "value": 1},
        ],
        "points": {"validate": 200, "refine": 50, "verify": 50, "search": 50, "constraint": 20},
    })
    ctx = RunContext(problem, make_point_sets(problem), cache_dir=tmp_path)
    model = DeepXDETeacher(layers=[16, 16], adam_steps=40, lbfgs_steps=20, interior_points=100,
                           boundary_points=20, initial_points=30, checkpoint_every=20, float64=True,
                           loss_weights=[1, 1, 10, 1, 1, 1]).prepare(problem, ctx)
    pred = model.predict(ctx.points.verify)
    assert pred.shape == (50, 2) and np.all(np.isfinite(pred))
    assert model.dtype.is_floating_point and str(model.dtype) == "torch.float64"
    import torch
    assert torch.get_default_dtype() == torch.float32          # restored after training
    info = model.info()
    assert info["history"][-1][0] <= 40 + 20                    # the L-BFGS budget is not overshot
    assert len(info["scales"]) == 2 + 4 and info["network_inputs"] == ["x", "t"]
    with pytest.raises(ComponentError, match="loss_weights needs 6"):
        DeepXDETeacher(loss_weights=[1, 1], adam_steps=1).prepare(problem, ctx)


@pytest.mark.slow
def test_a_deadline_stops_training_keeps_the_best_checkpoint_and_is_not_cached(tmp_path):
    problem = load_problem_file(SINE)
    options = {**read_toml(SINE)["teacher"]["options"], "adam_steps": 200_000, "lbfgs_steps": 1000,
               "checkpoint_every": 50}
    ctx = RunContext(problem, make_point_sets(problem), cache_dir=tmp_path, deadline=time.time() + 3.0)
    t0 = time.perf_counter()
    model = DeepXDETeacher(**options).prepare(problem, ctx)
    seconds = time.perf_counter() - t0
    info = model.info()
    assert info["stopped_at_deadline"] is True and seconds < 30
    assert info["history"][-1][0] < 200_000 and len(info["networks"]) == 1     # no L-BFGS, no second network
    assert info["S_val_selected"] == min(h[2] for h in info["history"])
    assert not list((tmp_path / "deepxde").glob("*.pt"))                       # a cut-short teacher is no entry


@pytest.mark.slow
def test_a_failing_lbfgs_line_search_keeps_adams_best_checkpoint(tmp_path, monkeypatch):
    """Lagaris' NLODE2 (log(u) near u = 0) made torch's strong-Wolfe search step past float range;
    the whole run ended there. The teacher now keeps its best checkpoint and says why."""
    import torch

    problem = load_problem_file(SINE)
    ctx = RunContext(problem, make_point_sets(problem), cache_dir=tmp_path)

    def overflow(self, closure=None):
        raise RuntimeError("value cannot be converted to type float without overflow")

    monkeypatch.setattr(torch.optim.LBFGS, "step", overflow)
    model = DeepXDETeacher(layers=[20, 20], adam_steps=100, lbfgs_steps=50, interior_points=128,
                           boundary_points=2, checkpoint_every=50).prepare(problem, ctx)
    info = model.info()
    failures = info["lbfgs_failures"]          # one per network the ladder tried
    assert failures and set(failures) == {"value cannot be converted to type float without overflow"}
    assert info["selected_step"] <= 100 and info["S_val_selected"] < info["S_val_initial"]
    assert model.predict(ctx.points.verify).shape == (len(ctx.points.verify), 1)


@pytest.mark.slow
def test_equations_undefined_at_every_checkpoint_are_one_clear_error(tmp_path):
    """Lagaris' NLODE2 has log(u): the network starts near u = 0, its S_val is NaN at every
    checkpoint, and its weights used to reach predict() as NaN (a confusing second error)."""
    problem = problem_from_dict({
        "domain": {"x": [1, 2]},
        "equations": [{"lhs": "u_x**2 + log(u) - cos(x)**2 - 2*cos(x) - 1 - log(x + sin(x))"}],
        "constraints": [{"on": "x = 1", "value": "1 + sin(1)"}],
    })
    ctx = RunContext(problem, make_point_sets(problem), cache_dir=tmp_path)
    with pytest.raises(ComponentError, match="S_val was never finite"):
        DeepXDETeacher(layers=[20, 20], adam_steps=60, lbfgs_steps=0, interior_points=64,
                       checkpoint_every=30, architecture="fnn", activation="tanh").prepare(problem, ctx)
