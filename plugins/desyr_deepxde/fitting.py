"""Training the teacher's networks: the S_val validator and checkpoints, the training data,
and the ladder of networks tried until one does not stall (``docs/teachers.md``)."""
from __future__ import annotations

import contextlib
import copy
import io
import math
import time
from typing import Any, Protocol

import numpy as np
import torch

from desyr.plugin import ComponentError, Constraint, Face, Problem, RunContext, constraint_points, integral_rule
from desyr_deepxde.backend import DeepXDECallback, DeepXDENet, dde
from desyr_deepxde.balancing import LossBalancer, Patience
from desyr_deepxde.conditions import IntegralCondition, NetSlot, PeriodicCondition, constraint_error
from desyr_deepxde.diagnosis import component_names, fit_note
from desyr_deepxde.networks import Settings, build_net, network_ladder
from desyr_deepxde.radial import ENOUGH, RADIAL, problem_rotation
from desyr_deepxde.residuals import (
    PinnResiduals,
    autograd_derivative,
    constraint_values,
    dde_derivative,
    equation_scales,
)
from desyr_deepxde.selection import select_checkpoint, validation_scales, validation_score
from desyr_deepxde.warm import WarmStart


class _Progress(Protocol):
    """The run's progress reporter (``context.progress``)."""

    def message(self, text: str) -> None: ...
    def bar(self, label: str, done: int, total: int, **fields: object) -> None: ...


def _is_initial(problem: Problem, constraint: Constraint) -> bool:
    if problem.time is None:
        return False
    lo = next(v.lo for v in problem.variables if v.name == problem.time)
    return bool(constraint.faces) and all(isinstance(f, Face) and dict(f.fixed).get(problem.time) == lo
                                          and len(f.fixed) == 1 for f in constraint.faces)

class _Validator:
    """v_i(theta): per-equation interior residual MSE on the validation points,
    then each constraint residual MSE on its prescribed points."""

    def __init__(self, residuals: PinnResiduals, problem: Problem, context: RunContext, perm: list[int],
                 dtype: torch.dtype) -> None:
        self.residuals = residuals
        self.X = torch.as_tensor(np.asarray(context.points.validate)[:, perm], dtype=dtype)
        self.C = [torch.as_tensor(np.asarray(P)[:, perm], dtype=dtype) for P in context.points.constraints]
        self.G = [torch.as_tensor(constraint_values(problem, i, np.asarray(P)), dtype=dtype)
                  for i, P in enumerate(context.points.constraints)]
        if len(self.C) != len(problem.constraints):
            raise ComponentError("teacher 'deepxde': context.points.constraints does not match the problem's constraints")
        reductions = tuple(getattr(context.points, "reductions", ())) or (None,) * len(self.C)
        self.reductions: list[torch.Tensor | None] = [None if R is None else torch.as_tensor(np.array(R), dtype=dtype) for R in reductions]
        self.shifts = [torch.as_tensor(np.asarray(c.shift)[perm], dtype=dtype) if c.kind == "periodic" else None
                       for c in problem.constraints]
        # an inverse problem's checkpoint must fit the data too: the physics alone holds for a
        # wrong coefficient with the field that goes with it (u = 0 solves the heat equation)
        obs = problem.observations
        self.observed: list[tuple[int, torch.Tensor]] = [] if obs is None else [
            (problem.fields.index(f), torch.as_tensor(np.array(obs.column(f)).reshape(-1, 1), dtype=dtype))
            for f in obs.fields]
        self.X_obs = None if obs is None else torch.as_tensor(np.asarray(obs.X)[:, perm], dtype=dtype)

    def components(self, net: torch.nn.Module) -> list[float]:
        out: list[float] = []
        x = self.X.clone().requires_grad_(True)
        for r in self.residuals.equation_residuals(x, net(x), autograd_derivative):
            out.append(float(torch.mean(r.detach() ** 2)))
        for i, (P, g) in enumerate(zip(self.C, self.G)):
            x = P.clone().requires_grad_(True)
            error = constraint_error(self.residuals, i, x, net(x), autograd_derivative, g, net,
                                     self.shifts[i], self.reductions[i])
            out.append(float(torch.mean(error.detach() ** 2)))
        if self.observed:
            with torch.no_grad():
                y = net(self.X_obs)
            out += [float(torch.mean((y[:, k:k + 1] - v) ** 2)) for k, v in self.observed]
        return out


class _Checkpoints(DeepXDECallback):
    """Records (step, loss, S_val) every ``every`` steps and keeps the best state."""

    def __init__(self, validator: _Validator, every: int, total: int, progress: _Progress, patience: Patience,
                 scales: np.ndarray | None = None, deadline: float | None = None) -> None:
        super().__init__()
        self.validator, self.every, self.total, self.progress = validator, every, total, progress
        self.patience = patience
        self.deadline = deadline          # time.time() of the run's budget wall for the teacher, or None
        self.out_of_time = False
        self.lbfgs_failure: str | None = None
        self.history: list[tuple[int, float, float]] = []
        self.components: list[list[float]] = []
        self.scales = scales     # shared between architectures, so their S_val compare
        self.best_state: dict[str, torch.Tensor] | None = None
        self.best_unknowns: dict[str, float] = {}
        self.best_score = math.inf
        self.phase = "adam"
        self.phase_end = 0

    def record(self) -> None:
        net = self.model.net
        step = int(self.model.train_state.step)
        if self.history and self.history[-1][0] == step:
            return
        loss_train = self.model.train_state.loss_train
        loss = float(np.sum(loss_train)) if loss_train is not None else math.nan
        v = self.validator.components(net)
        if self.scales is None:
            self.scales = validation_scales(v)
        score = validation_score(list(v), list(self.scales))
        self.history.append((step, loss, score))
        self.components.append(v)
        if math.isfinite(score) and score < self.best_score:
            self.best_score = score
            self.best_state = copy.deepcopy({k: t.detach().clone() for k, t in net.state_dict().items()})
            self.best_unknowns = self.validator.residuals.unknown_values()
        self.progress.bar(f"teacher {self.phase}", min(step, self.total), self.total, loss=loss, S_val=score)
        if self.patience.exhausted(step, score):
            self.model.stop_training = True
        if self.deadline is not None and time.time() >= self.deadline:
            self.out_of_time = self.model.stop_training = True

    def start_phase(self, phase: str, steps: int) -> None:
        step = int(self.model.train_state.step) if self.model is not None else 0
        self.phase, self.phase_end = phase, step + steps
        self.patience.restart(step, steps)

    def on_train_begin(self) -> None:
        if not self.history:
            self.record()

    def on_epoch_end(self) -> None:
        step = int(self.model.train_state.step)
        if self.phase == "lbfgs" or step % self.every == 0 or step >= self.phase_end:
            self.record()
        if self.phase == "lbfgs":
            # DeepXDE runs L-BFGS in blocks of iter_per_step iterations until the total
            # reaches maxiter; shorten the last block so the budget is not overshot.
            remaining = self.phase_end - step
            if remaining > 0:
                for group in self.model.opt.param_groups:
                    group["max_iter"] = min(self.every, remaining)
                    group["max_eval"] = int(math.ceil(1.25 * group["max_iter"]))

def _training_data(settings: Settings, problem: Problem, geom: Any, residuals: PinnResiduals, perm: list[int],
                   seed: int, scales: list[float], slot: NetSlot) -> Any:
    """DeepXDE's ``PDE`` (``TimePDE``) data: the scaled equations on the interior, a condition per constraint
    and per observed field (Any: DeepXDE is untyped)."""
    rng = np.random.default_rng([seed, 7919])
    bcs: list[Any] = []
    for i, c in enumerate(problem.constraints):
        n = settings["boundary_points"]
        if settings["initial_points"] is not None and _is_initial(problem, c):
            n = settings["initial_points"]
        if c.kind == "integral":
            P, R = integral_rule(problem, rng)
            bcs.append(IntegralCondition(residuals, i, P[:, perm], constraint_values(problem, i, P), R))
            continue
        P = constraint_points(problem, c.faces, n, rng)
        if c.kind == "periodic":
            bcs.append(PeriodicCondition(residuals, i, P[:, perm], np.asarray(c.shift)[perm], slot))
            continue
        g = constraint_values(problem, i, P)

        def op(inputs: torch.Tensor, outputs: torch.Tensor, X: np.ndarray, _i: int = i) -> torch.Tensor:
            return residuals.constraint_operator(_i, inputs, outputs, dde_derivative)

        bcs.append(dde.icbc.PointSetOperatorBC(P[:, perm], g, op))
    obs = problem.observations
    if obs is not None:
        bcs += [dde.icbc.PointSetBC(np.array(obs.X)[:, perm], np.array(obs.column(f)).reshape(-1, 1),
                                    component=problem.fields.index(f)) for f in obs.fields]

    def pde(x: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:
        return [r / s for r, s in zip(residuals.equation_residuals(x, y, dde_derivative), scales)]

    common: dict[str, Any] = dict(num_domain=settings["interior_points"], num_boundary=0, train_distribution="Hammersley")
    if problem.time is not None and isinstance(geom, dde.geometry.GeometryXTime):
        return dde.data.TimePDE(geom, pde, bcs, num_initial=0, **common)
    return dde.data.PDE(geom, pde, bcs, **common)


class _Fit:
    """One network trained: its checkpoints, the state with the best S_val, the final loss weights."""

    def __init__(self, architecture: str, activation: str, net: DeepXDENet, cb: _Checkpoints,
                 weights: list[float] | None, seconds: float) -> None:
        self.architecture, self.activation, self.net, self.cb = architecture, activation, net, cb
        self.weights, self.seconds = weights, seconds
        self.index = select_checkpoint(cb.history)

    @property
    def best(self) -> float:
        return float(self.cb.history[self.index][2])

    def stalled(self, ratio: float) -> bool:
        """S_val fell by less than ``ratio`` of its initial value (or never became finite)."""
        first = float(self.cb.history[0][2])
        return not math.isfinite(self.best) or not self.best <= ratio * first

    def ends_ladder(self, settings: Settings) -> bool:
        """Whether the networks after this one are left untrained: a radial network only near
        ``stop_below`` (a fall by ``stall_ratio`` may still be far from a solution that is not radial)."""
        if self.architecture == RADIAL:
            return bool(self.best <= ENOUGH * float(settings["stop_below"]))
        return not self.stalled(settings["stall_ratio"])

    def summary(self) -> dict[str, Any]:
        return {"architecture": self.architecture, "activation": self.activation, "seconds": round(self.seconds, 3),
                "S_val_initial": float(self.cb.history[0][2]), "S_val_selected": self.best,
                "selected_step": int(self.cb.history[self.index][0]), "steps": int(self.cb.history[-1][0]),
                "loss_weights": [float(w) for w in self.weights] if self.weights is not None else None}


def _fit(network: tuple[str, str], settings: Settings, problem: Problem, data: Any, validator: _Validator,
         n_in: int, seed: int, progress: _Progress, scales: np.ndarray | None, slot: NetSlot,
         deadline: float | None = None, warm: WarmStart | None = None) -> _Fit:
    architecture, activation = network
    with contextlib.redirect_stdout(io.StringIO()):
        dde.config.set_random_seed(seed)     # also reseeds the global numpy/random/torch RNGs
    net = build_net(problem, settings, n_in, architecture, activation)
    if warm is not None:                     # straight to L-BFGS: Adam would undo what the smaller one learned
        net.load_state_dict(warm.state)
    slot.net = net
    validator.residuals.restart_unknowns()
    trainable = {"external_trainable_variables": validator.residuals.unknowns} if problem.unknowns else {}
    model = dde.Model(data, net)
    adam, lbfgs, every = settings["adam_steps"], settings["lbfgs_steps"], settings["checkpoint_every"]
    adam = 0 if warm is not None else adam
    stop_below = settings["stop_below"] if warm is None else _continued_stop(settings["stop_below"], warm.S_val)
    patience = Patience(settings["patience"], settings["plateau_gain"], every, stop_below)
    cb = _Checkpoints(validator, every, adam + lbfgs, progress, patience, scales, deadline)
    weights: list[float] | None = settings["loss_weights"]
    if weights is None and warm is not None:
        weights = warm.weights
    callbacks: list[DeepXDECallback] = [cb]
    balancer = None
    conditions = len(data.bcs)       # the constraints and, for an inverse problem, the observations
    if weights is None and settings["balance"] == "annealing" and conditions and warm is None:
        balancer = LossBalancer(len(problem.equations), conditions, every)
        callbacks.append(balancer)
    progress.message(f"teacher deepxde: training {architecture} ({activation}) {n_in - (architecture == RADIAL)}->{settings['layers']}->"
                     f"{len(problem.fields)}, up to {adam} Adam + {lbfgs} L-BFGS steps, "
                     f"{settings['interior_points']} interior points")
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        model.compile("adam", lr=settings["lr"], loss_weights=weights, **trainable)
        cb.start_phase("adam", adam)
        model.train(iterations=adam, display_every=every, callbacks=callbacks, verbose=0)
        if balancer is not None:
            weights = list(balancer.weights)
        # an Adam phase that already reached stop_below needs no L-BFGS
        if lbfgs > 0 and not cb.out_of_time and not cb.best_score <= stop_below:
            dde.optimizers.config.set_LBFGS_options(maxiter=lbfgs)
            opts = dde.optimizers.config.LBFGS_options
            opts["iter_per_step"] = min(every, lbfgs)
            opts["fun_per_step"] = int(math.ceil(1.25 * opts["iter_per_step"]))
            model.compile("L-BFGS", loss_weights=weights, **trainable)
            cb.start_phase("lbfgs", lbfgs)
            try:
                model.train(callbacks=[cb], verbose=0)
            except RuntimeError as exc:
                # torch's strong-Wolfe line search can step past float range (Lagaris' NLODE2: log(u)
                # near u = 0); the best checkpoint so far stands, as after a stall
                cb.lbfgs_failure = " ".join(str(exc).split())[:200]
                progress.message(f"teacher deepxde: L-BFGS stopped ({cb.lbfgs_failure}); "
                                 f"keeping the best checkpoint so far")
    if cb.best_state is not None:
        net.load_state_dict(cb.best_state)
    net.eval()
    return _Fit(architecture, activation, net, cb, weights, time.perf_counter() - t0)


def _continued_stop(stop_below: float, start: float) -> float:
    """Where a warm start stops: at ``stop_below``, as the configured teacher would from scratch; where the
    network it starts from is there already, at a tenth of its S_val (else a plateau), since a continuation
    that only matched it would give the searches nothing new."""
    return stop_below if start > stop_below else start / 10


def train_networks(settings: Settings, problem: Problem, context: RunContext, geom: Any, net_vars: list[str],
                   perm: list[int], seed: int, warm: WarmStart | None = None) -> tuple[DeepXDENet, dict[str, Any]]:
    """The chosen network of the ladder, with what the teacher reports about its training."""
    progress = context.progress
    residuals = PinnResiduals(problem, net_vars)
    validator = _Validator(residuals, problem, context, perm, torch.get_default_dtype())
    slot = NetSlot()
    data = _training_data(settings, problem, geom, residuals, perm, seed, equation_scales(residuals, validator.X),
                          slot)
    fits: list[_Fit] = []
    deadline = getattr(context, "deadline", None)
    radial = problem_rotation(problem, settings["symmetry"]) is not None
    ladder = network_ladder(settings, radial) if warm is None else [(warm.architecture, warm.activation)]
    for network in ladder:
        if fits and fits[-1].cb.out_of_time:
            break
        if fits and fits[-1].architecture == RADIAL:
            progress.message(f"teacher deepxde: the radial network's S_val is {fits[-1].best:.3g}; training "
                             f"{network[0]} ({network[1]}) on all inputs too")
        elif fits:
            progress.message(f"teacher deepxde: S_val stalled at {fits[-1].best:.3g} (initial "
                             f"{fits[-1].cb.history[0][2]:.3g}); escalating to {network[0]} ({network[1]})")
        scales = fits[0].cb.scales if fits else None if warm is None else np.asarray(warm.scales)
        fits.append(_fit(network, settings, problem, data, validator, len(net_vars), seed, progress,
                         scales, slot, deadline, warm))
        if fits[-1].ends_ladder(settings):
            break
    chosen = min(fits, key=lambda f: f.best if math.isfinite(f.best) else math.inf)
    if chosen.cb.best_state is None:      # no checkpoint to keep: its weights are whatever training left
        raise ComponentError(
            "teacher 'deepxde': S_val was never finite, so no checkpoint could be kept; the equations "
            "are undefined at the network's values (e.g. log(u) or sqrt(u) where u <= 0 at the start)")
    history, index = chosen.cb.history, chosen.index
    selected = history[index]
    assert chosen.cb.scales is not None     # set by the first validation, before any history row
    info = {
        "teacher": "deepxde",
        "cached": False,
        "train_seconds": sum(f.seconds for f in fits),
        "history": [list(h) for h in history],
        "selected_index": index,
        "selected_step": int(selected[0]),
        "S_val_initial": float(history[0][2]),
        "S_val_selected": float(selected[2]),
        "components_selected": [float(v) for v in chosen.cb.components[index]],
        "scales": [float(b) for b in chosen.cb.scales],
        "architecture": chosen.architecture,
        "activation": chosen.activation,
        "balance": "hand-set loss_weights" if settings["loss_weights"] is not None else settings["balance"],
        "loss_weights_final": chosen.summary()["loss_weights"],
        "escalated": len(fits) > 1,
        "stopped_at_deadline": any(f.cb.out_of_time for f in fits),
        "lbfgs_failures": [f.cb.lbfgs_failure for f in fits if f.cb.lbfgs_failure],
        "networks": [f.summary() for f in fits],
        "seed": seed,
        "n_parameters": int(sum(p.numel() for p in chosen.net.parameters())),
        "network_inputs": list(net_vars),
        **({"unknowns": chosen.cb.best_unknowns} if problem.unknowns else {}),
        "settings": {k: v for k, v in settings.items()},
        **({"warm_start": warm.facts()} if warm is not None else {}),
    }
    progress.message(f"teacher deepxde: {info['train_seconds']:.1f} s, {chosen.architecture}, S_val "
                     f"{info['S_val_initial']:.3g} -> {info['S_val_selected']:.3g} (selected step "
                     f"{info['selected_step']} of {history[-1][0]})")
    observed = problem.observations.fields if problem.observations is not None else ()
    names = component_names(len(problem.equations), [c.label for c in problem.constraints], list(observed))
    note = fit_note(info, names, int(settings["adam_steps"]) + int(settings["lbfgs_steps"]))
    if note:
        info["fit_note"] = note
        progress.message(f"teacher deepxde: {note}")
    return chosen.net, info
