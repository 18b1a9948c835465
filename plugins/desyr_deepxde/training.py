"""The heavy part of the ``deepxde`` teacher: imported only inside ``prepare()``.

Everything is derived from the problem definition: the PDE residuals are the
problem's sympy equation residuals evaluated with torch on jets computed by
repeated ``dde.grad.jacobian``; every pointwise constraint is a
``dde.icbc.PointSetOperatorBC`` on its own fixed points (periodic and integral ones are the
point-set conditions of ``desyr_deepxde.conditions``).
"""
from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from desyr.plugin import ComponentError, Problem, RunContext, TeacherModel
from desyr_deepxde.backend import dde
from desyr_deepxde.cache import cache_key, entry_paths, read_entry, write_entry
from desyr_deepxde.fitting import train_networks
from desyr_deepxde.networks import Settings, build_net, network_variables
from desyr_deepxde.shapes import deepxde_geometry
from desyr_deepxde.warm import KeyAt, WarmStart, cached_below, find_warm_start


# ------------------------------------------------------------------ the model
class DeepXDETeacherModel(TeacherModel):
    def __init__(self, net: torch.nn.Module, fields: Sequence[str], perm: Sequence[int], info: dict[str, Any]) -> None:
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
            out: torch.Tensor = self.net(torch.as_tensor(X[:, self.perm], dtype=self.dtype, device=device))
        return out.detach().cpu().numpy().astype(np.float64).reshape(len(X), len(self.fields))

    def info(self) -> dict[str, Any]:
        return dict(self._info)


# ------------------------------------------------------------------- helpers
def _geometry(problem: Problem, seed: int = 0) -> tuple[Any, list[str]]:
    """DeepXDE's geometry of the domain (Any: DeepXDE is untyped), and the network's input names."""
    ordered = network_variables(problem)
    spatial = [v for v in ordered if v.name != problem.time]
    if problem.geometry is not None:
        if problem.parameters:
            raise ComponentError("teacher 'deepxde': a family's parameters ([parameters]) are taken on a box domain "
                                 "only; on a shape, solve one member at a time or use the exact solvers")
        geom = deepxde_geometry(problem.geometry, seed)
    elif len(spatial) == 0:
        geom = None
    elif len(spatial) == 1:
        geom = dde.geometry.Interval(spatial[0].lo, spatial[0].hi)
    elif len(spatial) == 2:
        geom = dde.geometry.Rectangle([spatial[0].lo, spatial[1].lo], [spatial[0].hi, spatial[1].hi])
    else:
        geom = dde.geometry.Hypercube([v.lo for v in spatial], [v.hi for v in spatial])
    if problem.time is not None:
        tv = ordered[-1]
        timedomain = dde.geometry.TimeDomain(tv.lo, tv.hi)
        geom = timedomain if geom is None else dde.geometry.GeometryXTime(geom, timedomain)
    return geom, [v.name for v in ordered]


@contextlib.contextmanager
def _precision(float64: bool) -> Iterator[None]:
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


# ------------------------------------------------------------------- prepare
def _seed(settings: Settings, context: RunContext) -> int:
    return int(settings["seed"] if settings["seed"] is not None else getattr(context, "seed", 0) or 0)


def resolve_device(setting: str) -> str:
    """``auto``: CUDA when torch sees a GPU, else CPU; asking for ``cuda`` without one is an error."""
    available = torch.cuda.is_available()
    if setting == "cuda" and not available:
        raise ComponentError("teacher 'deepxde': device 'cuda' requested but torch sees no CUDA device")
    return "cuda" if setting == "cuda" or (setting == "auto" and available) else "cpu"


def prepare_teacher(settings: Settings, problem: Problem, context: RunContext,
                    smaller: Sequence[Sequence[Settings]] = ()) -> DeepXDETeacherModel:
    """The trained (or cached) teacher; ``smaller``: the settings of the teachers at half, a quarter, ...
    of the budget (at each, the kinds a teacher there may have been trained with), whose cached network
    (the first in the cache) a larger teacher starts from
    (:mod:`desyr_deepxde.warm`)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(settings["threads"])
    try:
        return _prepare_teacher(settings, problem, context, smaller)
    finally:
        torch.set_num_threads(threads)


def _prepare_teacher(settings: Settings, problem: Problem, context: RunContext,
                     smaller: Sequence[Sequence[Settings]]) -> DeepXDETeacherModel:
    device = resolve_device(settings["device"])
    if device == "cpu":
        # torch.device as a context manager intercepts every torch call (a TorchFunctionMode):
        # on the CPU, where nothing needs moving, that overhead slowed training by about 1.4x.
        model = _prepare_on(settings, problem, context, device, smaller)
    else:
        with torch.device(device):    # factory functions (DeepXDE's tensors, the network) land on it
            model = _prepare_on(settings, problem, context, device, smaller)
    model._info["device"] = device
    return model


def _learned(settings: Settings) -> dict[str, Any]:
    """The settings that decide what is learned (where and on how many threads it trains do not)."""
    return {k: v for k, v in settings.items() if k not in ("device", "threads")}


def _prepare_on(settings: Settings, problem: Problem, context: RunContext, device: str,
                smaller: Sequence[Sequence[Settings]]) -> DeepXDETeacherModel:
    seed = _seed(settings, context)
    geom, net_vars = _geometry(problem, seed)
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
    settings = _learned(settings)
    folder = Path(context.cache_dir) / "deepxde"
    progress = context.progress
    warm = None
    def key_at(budget: Settings) -> KeyAt:
        return lambda more: cache_key(problem, _learned(budget), seed, validation=validation, extra={**extra, **more})

    levels = [[key_at(budget) for budget in kinds] for kinds in smaller]
    below = None if problem.unknowns else cached_below(levels, folder)
    if below is not None:
        def fits(meta: dict[str, Any], state: dict[str, torch.Tensor]) -> bool:
            net = build_net(problem, settings, len(net_vars), str(meta.get("architecture", "fnn")),
                            meta.get("activation"))
            return not net.load_state_dict(state, strict=False).missing_keys

        with _precision(settings["float64"]):
            warm = find_warm_start(folder, below, device, fits)
        if warm is not None:      # a warm-started network is not the one these settings train from scratch
            extra["warm_from"] = warm.key[:32]
    key = cache_key(problem, settings, seed, validation=validation, extra=extra)
    weights_path, meta_path = entry_paths(folder, key)

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
                    net = build_net(problem, settings, len(net_vars), str(meta.get("architecture", "fnn")),
                                    meta.get("activation"))
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
        if warm is not None:
            progress.message(f"teacher deepxde: starting from the smaller teacher's network (S_val {warm.S_val:.3g})")
        model, info = _train(settings, problem, context, geom, net_vars, perm, seed, warm)
        info.update({"cache_key": key, "cache_path": str(weights_path)})
        if info.get("stopped_at_deadline"):
            # cut short by the run's budget: not what these settings train, so not their cache entry
            progress.message("teacher deepxde: stopped at the run's budget; not cached")
            return model
        try:
            buffer = io.BytesIO()
            torch.save(model.net.state_dict(), buffer)
            write_entry(weights_path, meta_path, buffer.getvalue(),
                        {k: v for k, v in info.items() if k != "cached"})
        except (OSError, TypeError, ValueError) as exc:
            progress.message(f"teacher not cached ({exc})")
        return model


def _train(settings: Settings, problem: Problem, context: RunContext, geom: Any, net_vars: list[str],
           perm: list[int], seed: int, warm: WarmStart | None) -> tuple[DeepXDETeacherModel, dict[str, Any]]:
    """Train with the global RNG states restored afterwards (DeepXDE reseeds them)."""
    import random
    states = (random.getstate(), np.random.get_state(), torch.get_rng_state())
    try:
        net, info = train_networks(settings, problem, context, geom, net_vars, perm, seed, warm)
        return DeepXDETeacherModel(net, problem.fields, perm, info), info
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])


