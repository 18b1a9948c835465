"""The heavy part of the ``deepxde`` teacher: imported only inside ``prepare()``.

Everything is derived from the problem definition: the PDE residuals are the
problem's sympy equation residuals evaluated with torch on jets computed by
repeated ``dde.grad.jacobian``; every constraint is a
``dde.icbc.PointSetOperatorBC`` on its own fixed points.
"""
from __future__ import annotations

import contextlib
import copy
import io
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from desyr.model.points import constraint_points
from desyr.roles import ComponentError, TeacherModel
from desyr_deepxde.backend import dde
from desyr_deepxde.balancing import LossBalancer, Patience
from desyr_deepxde.cache import cache_key, entry_paths, read_entry, write_entry
from desyr_deepxde.networks import make_net
from desyr_deepxde.residuals import Residuals, _autograd_derivative, _dde_derivative, constraint_values
from desyr_deepxde.selection import select_checkpoint, validation_scales, validation_score


# ------------------------------------------------------------------ the model
class DeepXDETeacherModel(TeacherModel):
    def __init__(self, net: torch.nn.Module, fields: Sequence[str], perm: Sequence[int], info: dict) -> None:
        self.net = net
        self.fields = list(fields)
        self.perm = list(perm)           # problem column of each network input
        self._info = info
        self.dtype = next(net.parameters()).dtype

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != len(self.perm):
            raise ValueError(f"expected points of shape (n, {len(self.perm)}), got {X.shape}")
        with torch.no_grad():
            device = next(self.net.parameters()).device
            out = self.net(torch.as_tensor(X[:, self.perm], dtype=self.dtype, device=device))
        return out.detach().cpu().numpy().astype(np.float64).reshape(len(X), len(self.fields))

    def info(self) -> dict[str, Any]:
        return dict(self._info)


# ------------------------------------------------------------------- helpers
def _geometry(problem):
    spatial = [v for v in problem.variables if v.name != problem.time]
    if len(spatial) == 0:
        geom = None
    elif len(spatial) == 1:
        geom = dde.geometry.Interval(spatial[0].lo, spatial[0].hi)
    elif len(spatial) == 2:
        geom = dde.geometry.Rectangle([spatial[0].lo, spatial[1].lo], [spatial[0].hi, spatial[1].hi])
    else:
        geom = dde.geometry.Hypercube([v.lo for v in spatial], [v.hi for v in spatial])
    net_vars = [v.name for v in spatial]
    if problem.time is not None:
        tv = next(v for v in problem.variables if v.name == problem.time)
        timedomain = dde.geometry.TimeDomain(tv.lo, tv.hi)
        geom = timedomain if geom is None else dde.geometry.GeometryXTime(geom, timedomain)
        net_vars.append(tv.name)
    return geom, net_vars


def _is_initial(problem, constraint) -> bool:
    if problem.time is None:
        return False
    lo = next(v.lo for v in problem.variables if v.name == problem.time)
    return all(dict(f.fixed).get(problem.time) == lo and len(f.fixed) == 1 for f in constraint.faces)


def _make_net(problem, settings, n_in: int, architecture: str = "fnn") -> torch.nn.Module:
    return make_net(architecture, settings["layers"], n_in, len(problem.fields), settings["activation"],
                    settings["initializer"], settings["fourier_sigmas"])


@contextlib.contextmanager
def _precision(float64: bool):
    """Set DeepXDE's/torch's default float for the teacher; restore afterwards."""
    old_precision, old_dtype = dde.config.real.precision, torch.get_default_dtype()
    with contextlib.redirect_stdout(io.StringIO()):
        dde.config.set_default_float("float64" if float64 else "float32")
    # Saturated tanh layers produce subnormal floats, which are very slow on CPUs.
    flushed = torch.set_flush_denormal(True)
    try:
        yield
    finally:
        if flushed:
            torch.set_flush_denormal(False)
        with contextlib.redirect_stdout(io.StringIO()):
            dde.config.set_default_float(f"float{old_precision}")
        torch.set_default_dtype(old_dtype)


class _Validator:
    """v_i(theta): per-equation interior residual MSE on the validation points,
    then each constraint residual MSE on its prescribed points."""

    def __init__(self, residuals: Residuals, problem, context, perm: list[int], dtype) -> None:
        self.residuals = residuals
        self.X = torch.as_tensor(np.asarray(context.points.validate)[:, perm], dtype=dtype)
        self.C = [torch.as_tensor(np.asarray(P)[:, perm], dtype=dtype) for P in context.points.constraints]
        self.G = [torch.as_tensor(constraint_values(problem, i, np.asarray(P)), dtype=dtype)
                  for i, P in enumerate(context.points.constraints)]
        if len(self.C) != len(problem.constraints):
            raise ComponentError("teacher 'deepxde': context.points.constraints does not match the problem's constraints")

    def components(self, net: torch.nn.Module) -> list[float]:
        out: list[float] = []
        x = self.X.clone().requires_grad_(True)
        for r in self.residuals.equation_residuals(x, net(x), _autograd_derivative):
            out.append(float(torch.mean(r.detach() ** 2)))
        for i, (P, g) in enumerate(zip(self.C, self.G)):
            x = P.clone().requires_grad_(True)
            op = self.residuals.constraint_operator(i, x, net(x), _autograd_derivative)
            out.append(float(torch.mean((op.detach() - g) ** 2)))
        return out


class _Checkpoints(dde.callbacks.Callback):
    """Records (step, loss, S_val) every ``every`` steps and keeps the best state."""

    def __init__(self, validator: _Validator, every: int, total: int, progress, patience: Patience,
                 scales: np.ndarray | None = None) -> None:
        super().__init__()
        self.validator, self.every, self.total, self.progress = validator, every, total, progress
        self.patience = patience
        self.history: list[tuple[int, float, float]] = []
        self.components: list[list[float]] = []
        self.scales = scales     # shared between architectures, so their S_val compare
        self.best_state: dict | None = None
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
        self.progress.bar(f"teacher {self.phase}", min(step, self.total), self.total, loss=loss, S_val=score)
        if self.patience.exhausted(step, score):
            self.model.stop_training = True

    def start_phase(self, phase: str, steps: int) -> None:
        step = int(self.model.train_state.step) if self.model is not None else 0
        self.phase, self.phase_end = phase, step + steps
        self.patience.restart(step)

    def on_train_begin(self):
        if not self.history:
            self.record()

    def on_epoch_end(self):
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


# ------------------------------------------------------------------- prepare
def _seed(settings, context) -> int:
    return int(settings["seed"] if settings["seed"] is not None else getattr(context, "seed", 0) or 0)


def resolve_device(setting: str) -> str:
    """``auto``: CUDA when torch sees a GPU, else CPU; asking for ``cuda`` without one is an error."""
    available = torch.cuda.is_available()
    if setting == "cuda" and not available:
        raise ComponentError("teacher 'deepxde': device 'cuda' requested but torch sees no CUDA device")
    return "cuda" if setting == "cuda" or (setting == "auto" and available) else "cpu"


def prepare_teacher(settings: dict, problem, context) -> DeepXDETeacherModel:
    threads = torch.get_num_threads()
    torch.set_num_threads(settings["threads"])
    try:
        return _prepare_teacher(settings, problem, context)
    finally:
        torch.set_num_threads(threads)


def _prepare_teacher(settings: dict, problem, context) -> DeepXDETeacherModel:
    device = resolve_device(settings["device"])
    if device == "cpu":
        # torch.device as a context manager intercepts every torch call (a TorchFunctionMode):
        # on the CPU, where nothing needs moving, that overhead slowed training by about 1.4x.
        model = _prepare_on(settings, problem, context, device)
    else:
        with torch.device(device):    # factory functions (DeepXDE's tensors, the network) land on it
            model = _prepare_on(settings, problem, context, device)
    model._info["device"] = device
    return model


def _prepare_on(settings: dict, problem, context, device: str) -> DeepXDETeacherModel:
    seed = _seed(settings, context)
    geom, net_vars = _geometry(problem)
    perm = [problem.variable_names.index(v) for v in net_vars]
    n_eq, n_con = len(problem.equations), len(problem.constraints)
    if settings["loss_weights"] is not None and len(settings["loss_weights"]) != n_eq + n_con:
        raise ComponentError(
            f"teacher 'deepxde': loss_weights needs {n_eq + n_con} numbers (one per equation, "
            f"then one per constraint), got {len(settings['loss_weights'])}")
    validation = [np.asarray(context.points.validate)] + [np.asarray(P) for P in context.points.constraints]
    extra = {"deepxde": dde.__version__, "torch": torch.__version__.split("+")[0]}
    if device != "cpu":               # a GPU-trained teacher differs in its last bits; CPU keys stay as they were
        extra["device"] = device
    settings = {k: v for k, v in settings.items() if k not in ("device", "threads")}   # not what is learned
    key = cache_key(problem, settings, seed, validation=validation, extra=extra)
    weights_path, meta_path = entry_paths(Path(context.cache_dir) / "deepxde", key)
    progress = context.progress

    with _precision(settings["float64"]):
        if not getattr(context, "retrain", False) and (weights_path.is_file() or meta_path.is_file()):
            t0 = time.perf_counter()
            entry = read_entry(weights_path, meta_path)
            net = None
            if isinstance(entry, str):
                progress.message(f"teacher cache entry ignored ({entry}); training again")
            else:
                meta, data = entry
                try:
                    net = _make_net(problem, settings, len(net_vars), str(meta.get("architecture", "fnn")))
                    net.load_state_dict(torch.load(io.BytesIO(data), map_location=device, weights_only=True))
                except Exception as exc:  # a corrupt cache entry: train again
                    net = None
                    progress.message(f"teacher cache entry unreadable ({type(exc).__name__}); training again")
            if net is not None:
                net.eval()
                info = {**meta, "cached": True, "load_seconds": time.perf_counter() - t0,
                        "cache_path": str(weights_path)}
                progress.message(f"teacher deepxde loaded from cache ({weights_path.name}); "
                                 f"S_val {float(info['S_val_selected']):.3g} at step {info['selected_step']}")
                return DeepXDETeacherModel(net, problem.fields, perm, info)
        model, info = _train(settings, problem, context, geom, net_vars, perm, seed)
        info.update({"cache_key": key, "cache_path": str(weights_path)})
        try:
            buffer = io.BytesIO()
            torch.save(model.net.state_dict(), buffer)
            write_entry(weights_path, meta_path, buffer.getvalue(),
                        {k: v for k, v in info.items() if k != "cached"})
        except (OSError, TypeError, ValueError) as exc:
            progress.message(f"teacher not cached ({exc})")
        return model


def _train(settings, problem, context, geom, net_vars, perm, seed):
    """Train with the global RNG states restored afterwards (DeepXDE reseeds them)."""
    import random
    states = (random.getstate(), np.random.get_state(), torch.get_rng_state())
    try:
        return _train_seeded(settings, problem, context, geom, net_vars, perm, seed)
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])


def _training_data(settings, problem, geom, residuals: Residuals, perm, seed):
    rng = np.random.default_rng([seed, 7919])
    bcs = []
    for i, c in enumerate(problem.constraints):
        n = settings["boundary_points"]
        if settings["initial_points"] is not None and _is_initial(problem, c):
            n = settings["initial_points"]
        P = constraint_points(problem, c.faces, n, rng)
        g = constraint_values(problem, i, P)

        def op(inputs, outputs, X, _i=i):
            return residuals.constraint_operator(_i, inputs, outputs, _dde_derivative)

        bcs.append(dde.icbc.PointSetOperatorBC(P[:, perm], g, op))

    def pde(x, y):
        return residuals.equation_residuals(x, y, _dde_derivative)

    common = dict(num_domain=settings["interior_points"], num_boundary=0, train_distribution="Hammersley")
    if problem.time is not None and isinstance(geom, dde.geometry.GeometryXTime):
        return dde.data.TimePDE(geom, pde, bcs, num_initial=0, **common)
    return dde.data.PDE(geom, pde, bcs, **common)


class _Fit:
    """One network trained: its checkpoints, the state with the best S_val, the final loss weights."""

    def __init__(self, architecture: str, net, cb: _Checkpoints, weights, seconds: float) -> None:
        self.architecture, self.net, self.cb, self.weights, self.seconds = architecture, net, cb, weights, seconds
        self.index = select_checkpoint(cb.history)

    @property
    def best(self) -> float:
        return float(self.cb.history[self.index][2])

    def stalled(self, ratio: float) -> bool:
        """S_val fell by less than ``ratio`` of its initial value (or never became finite)."""
        first = float(self.cb.history[0][2])
        return not math.isfinite(self.best) or not self.best <= ratio * first

    def summary(self) -> dict:
        return {"architecture": self.architecture, "seconds": round(self.seconds, 3),
                "S_val_initial": float(self.cb.history[0][2]), "S_val_selected": self.best,
                "selected_step": int(self.cb.history[self.index][0]), "steps": int(self.cb.history[-1][0]),
                "loss_weights": [float(w) for w in self.weights] if self.weights is not None else None}


def _fit(architecture, settings, problem, data, validator, n_in, seed, progress, scales) -> _Fit:
    with contextlib.redirect_stdout(io.StringIO()):
        dde.config.set_random_seed(seed)     # also reseeds the global numpy/random/torch RNGs
    net = _make_net(problem, settings, n_in, architecture)
    model = dde.Model(data, net)
    adam, lbfgs, every = settings["adam_steps"], settings["lbfgs_steps"], settings["checkpoint_every"]
    cb = _Checkpoints(validator, every, adam + lbfgs, progress, Patience(settings["patience"]), scales)
    weights = settings["loss_weights"]
    callbacks: list = [cb]
    balancer = None
    if weights is None and settings["balance"] == "annealing" and problem.constraints:
        balancer = LossBalancer(len(problem.equations), len(problem.constraints), every)
        callbacks.append(balancer)
    progress.message(f"teacher deepxde: training {architecture} {n_in}->{settings['layers']}->"
                     f"{len(problem.fields)}, up to {adam} Adam + {lbfgs} L-BFGS steps, "
                     f"{settings['interior_points']} interior points")
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        model.compile("adam", lr=settings["lr"], loss_weights=weights)
        cb.start_phase("adam", adam)
        model.train(iterations=adam, display_every=every, callbacks=callbacks, verbose=0)
        if balancer is not None:
            weights = list(balancer.weights)
        if lbfgs > 0:
            dde.optimizers.config.set_LBFGS_options(maxiter=lbfgs)
            opts = dde.optimizers.config.LBFGS_options
            opts["iter_per_step"] = min(every, lbfgs)
            opts["fun_per_step"] = int(math.ceil(1.25 * opts["iter_per_step"]))
            model.compile("L-BFGS", loss_weights=weights)
            cb.start_phase("lbfgs", lbfgs)
            model.train(callbacks=[cb], verbose=0)
    if cb.best_state is not None:
        net.load_state_dict(cb.best_state)
    net.eval()
    return _Fit(architecture, net, cb, weights, time.perf_counter() - t0)


def _train_seeded(settings, problem, context, geom, net_vars, perm, seed):
    progress = context.progress
    residuals = Residuals(problem, net_vars)
    data = _training_data(settings, problem, geom, residuals, perm, seed)
    validator = _Validator(residuals, problem, context, perm, torch.get_default_dtype())
    choice = settings["architecture"]
    fits = [_fit("msffn" if choice == "msffn" else "fnn", settings, problem, data, validator, len(net_vars),
                 seed, progress, None)]
    if choice == "auto" and fits[0].stalled(settings["stall_ratio"]):
        progress.message(f"teacher deepxde: S_val stalled at {fits[0].best:.3g} (initial "
                         f"{fits[0].cb.history[0][2]:.3g}); escalating to a multi-scale Fourier-feature network")
        fits.append(_fit("msffn", settings, problem, data, validator, len(net_vars), seed, progress,
                         fits[0].cb.scales))
    chosen = min(fits, key=lambda f: f.best if math.isfinite(f.best) else math.inf)
    history, index = chosen.cb.history, chosen.index
    selected = history[index]
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
        "balance": "hand-set loss_weights" if settings["loss_weights"] is not None else settings["balance"],
        "loss_weights_final": chosen.summary()["loss_weights"],
        "escalated": len(fits) > 1,
        "networks": [f.summary() for f in fits],
        "seed": seed,
        "n_parameters": int(sum(p.numel() for p in chosen.net.parameters())),
        "network_inputs": list(net_vars),
        "settings": {k: v for k, v in settings.items()},
    }
    progress.message(f"teacher deepxde: {info['train_seconds']:.1f} s, {chosen.architecture}, S_val "
                     f"{info['S_val_initial']:.3g} -> {info['S_val_selected']:.3g} (selected step "
                     f"{info['selected_step']} of {history[-1][0]})")
    return DeepXDETeacherModel(chosen.net, problem.fields, perm, info), info
