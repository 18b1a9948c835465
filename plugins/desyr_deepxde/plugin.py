"""Registers the ``deepxde`` teacher.

This module must import cheaply: deepxde and torch are imported only inside
:meth:`DeepXDETeacher.prepare` (module :mod:`desyr_deepxde.training`).
"""
from __future__ import annotations

from typing import Any, Mapping

from desyr import hookimpl
from desyr.roles import ComponentError, Teacher, TeacherModel

_INT_OPTIONS = ("adam_steps", "lbfgs_steps", "interior_points", "boundary_points", "checkpoint_every")


class DeepXDETeacher(Teacher):
    """A PINN (DeepXDE, PyTorch backend) trained from the problem's equations and
    constraints; the checkpoint with the smallest physics-validation score S_val
    is kept.  One fully connected network with one output per field."""

    name = "deepxde"
    default = True
    options = {
        "layers": [50, 50, 50],        # hidden-layer widths
        "activation": "tanh",
        "initializer": "Glorot normal",
        "lr": 1e-3,                    # Adam learning rate
        "adam_steps": 1000,
        "lbfgs_steps": 1000,           # L-BFGS iterations after Adam (0: none)
        "interior_points": 1000,       # Hammersley collocation points
        "boundary_points": 100,        # points per constraint (split over its faces)
        "initial_points": None,        # points per initial-slice constraint (None: boundary_points)
        "loss_weights": None,          # [equation..., constraint...] or None (all 1)
        "float64": False,
        "seed": None,                  # None: the run's seed (RunContext.seed)
        "checkpoint_every": 100,       # steps between S_val evaluations
    }

    @classmethod
    def validate_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        s = super().validate_options(given)
        layers = s["layers"]
        if (not isinstance(layers, (list, tuple)) or not layers
                or not all(isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in layers)):
            raise ComponentError(f"teacher 'deepxde': layers must be a non-empty list of positive widths, got {layers!r}")
        s["layers"] = [int(w) for w in layers]
        for k in _INT_OPTIONS:
            v = s[k]
            if not isinstance(v, int) or isinstance(v, bool) or v < (1 if k in ("interior_points", "boundary_points", "checkpoint_every") else 0):
                raise ComponentError(f"teacher 'deepxde': {k} must be a {'positive' if k != 'adam_steps' and k != 'lbfgs_steps' else 'non-negative'} integer, got {v!r}")
        if s["initial_points"] is not None and (not isinstance(s["initial_points"], int)
                                               or isinstance(s["initial_points"], bool) or s["initial_points"] < 1):
            raise ComponentError(f"teacher 'deepxde': initial_points must be a positive integer, got {s['initial_points']!r}")
        if not isinstance(s["lr"], (int, float)) or isinstance(s["lr"], bool) or not s["lr"] > 0:
            raise ComponentError(f"teacher 'deepxde': lr must be a positive number, got {s['lr']!r}")
        s["lr"] = float(s["lr"])
        if not isinstance(s["float64"], bool):
            raise ComponentError(f"teacher 'deepxde': float64 must be true or false, got {s['float64']!r}")
        if s["seed"] is not None and (not isinstance(s["seed"], int) or isinstance(s["seed"], bool) or s["seed"] < 0):
            raise ComponentError(f"teacher 'deepxde': seed must be a non-negative integer, got {s['seed']!r}")
        lw = s["loss_weights"]
        if lw is not None:
            if (not isinstance(lw, (list, tuple)) or not lw
                    or not all(isinstance(w, (int, float)) and not isinstance(w, bool) and w >= 0 for w in lw)):
                raise ComponentError(f"teacher 'deepxde': loss_weights must be a list of non-negative numbers, got {lw!r}")
            s["loss_weights"] = [float(w) for w in lw]
        if not isinstance(s["activation"], str) or not isinstance(s["initializer"], str):
            raise ComponentError("teacher 'deepxde': activation and initializer must be strings")
        return s

    def prepare(self, problem, context) -> TeacherModel:
        from desyr_deepxde.training import prepare_teacher   # heavy: deepxde + torch
        return prepare_teacher(self.settings, problem, context)


@hookimpl
def desyr_register_teachers():
    return [DeepXDETeacher]
