"""Registers the ``deepxde`` teacher.

This module must import cheaply: deepxde and torch are imported only inside
:meth:`DeepXDETeacher.prepare` (module :mod:`desyr_deepxde.training`).
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from desyr.plugin import ComponentError, Option, Problem, RunContext, Teacher, TeacherModel, hookimpl
from desyr_deepxde.sizing import resolve

#: DeepXDE's activation names that a plain string selects (layer-wise lists are not supported here)
ACTIVATIONS = ("tanh", "sin", "relu", "elu", "gelu", "selu", "sigmoid", "silu", "swish")
#: DeepXDE's initializers with the PyTorch backend
INITIALIZERS = ("Glorot normal", "Glorot uniform", "He normal", "He uniform", "zeros")
#: "auto" starts with "fnn" and escalates to "msffn" when S_val stalls (docs/teachers.md)
ARCHITECTURES = ("auto", "fnn", "msffn")
#: how many halvings of the budget a teacher looks down for a cached network to start from
WARM_LEVELS = 3
#: the anytime order's smaller teacher stops at this many times ``stop_below``: a first look, not the fit; the
#: configured teacher continues from it to ``stop_below`` (docs/teachers.md)
FIRST_LOOK = 10
_LAAF = re.compile(r"^LAAF-\d+(\.\d+)? (" + "|".join(ACTIVATIONS) + r")$")


class DeepXDETeacher(Teacher):
    """A PINN (DeepXDE, PyTorch backend) trained from the problem's equations and
    constraints; the checkpoint with the smallest physics-validation score S_val
    is kept.  One fully connected network with one output per field."""

    name = "deepxde"
    default = True
    options = {
        "layers": Option([50, 50, 50], "hidden-layer widths", kind=list, item=int, low=1, high=64),
        "activation": Option("auto", "activation: " + ", ".join(ACTIVATIONS) + ", 'LAAF-<n> <activation>', or "
                             "'auto' (tanh; sin when tanh's S_val stalls)", kind=str),
        "initializer": Option("Glorot normal", "weight initializer", kind=str, choices=INITIALIZERS),
        "lr": Option(1e-3, "Adam learning rate", kind=float, low=0, high=10, open_low=True),
        "adam_steps": Option(None, "Adam steps (None: 1000)", kind=int, low=0, high=10_000_000, nullable=True),
        "lbfgs_steps": Option(None, "L-BFGS iterations after Adam (0: none; None: 1000, plus 250 per field beyond "
                                    "the first)", kind=int, low=0, high=10_000_000, nullable=True),
        "interior_points": Option(None, "Hammersley collocation points (None: 500 per network input, times "
                                        "1 + (fields - 1)/2)", kind=int, low=1, high=10_000_000, nullable=True),
        "boundary_points": Option(100, "points per constraint (split over its faces)", kind=int, low=1,
                                  high=10_000_000),
        "initial_points": Option(None, "points per initial-slice constraint (None: boundary_points)", kind=int,
                                 low=1, high=10_000_000, nullable=True),
        "loss_weights": Option(None, "[equation..., constraint...] weights, or None (all 1)", kind=list,
                               item=float, low=1, nullable=True),
        "float64": Option(False, "train in double precision", kind=bool),
        "seed": Option(None, "network seed; None: the run's seed", kind=int, low=0, high=2**32 - 1, nullable=True),
        "checkpoint_every": Option(100, "steps between S_val evaluations", kind=int, low=1, high=10_000_000),
        "balance": Option("annealing", "automatic loss balancing when loss_weights is None: 'annealing' "
                          "(learning-rate annealing of the constraint weights, Wang, Teng & Perdikaris 2021) "
                          "or 'none' (unit weights)", kind=str, choices=("annealing", "none")),
        "architecture": Option("auto", "network: 'fnn'; 'msffn' (multi-scale Fourier features); 'auto': fnn, "
                               "then msffn if every fnn's S_val stalls", kind=str, choices=ARCHITECTURES),
        "symmetry": Option("auto", "'auto': where the data and the equations are unchanged by rotations about a "
                           "point of the plane, first train a network of the squared distance from it (radial by "
                           "construction), and the full ladder only if its S_val stays above 10x stop_below; "
                           "'none': never", kind=str, choices=("auto", "none")),
        "fourier_sigmas": Option([1.0, 10.0], "scales of the msffn Fourier-feature embeddings", kind=list,
                                 item=float, low=0, high=1e6, open_low=True),
        "input_scaling": Option("always", "map each input affinely onto [-1, 1] inside the network: "
                                "'always', 'never', or 'auto' (only when the domain leaves [-1, 1])", kind=str,
                                choices=("auto", "always", "never")),
        "stall_ratio": Option(1e-2, "auto architecture: S_val has stalled when the selected S_val is above "
                                    "this fraction of the initial one", kind=float, low=0, high=1, open_low=True),
        "patience": Option(None, "a training phase stops when S_val has not improved by plateau_gain for this "
                                 "many steps (0: never; None: a quarter of the phase's steps, at least two "
                                 "checkpoints)", kind=int, low=0, high=10_000_000, nullable=True),
        "plateau_gain": Option(0.01, "the relative S_val improvement that restarts the patience window", kind=float,
                               low=0, high=1),
        "stop_below": Option(1e-5, "a training phase stops once S_val is at or below this (0: never)", kind=float,
                             low=0, high=1),
        "budget_scale": Option(1.0, "multiplies the steps and the interior, boundary and initial points, set or "
                                    "derived (escalation's larger_teacher step doubles it)", kind=float, low=0,
                               high=1000, open_low=True),
        "threads": Option(1, "torch threads while training (1: runs sharing the cores do not oversubscribe "
                             "them, which slowed training up to 50x on 2 cores)", kind=int, low=1, high=1024),
        "device": Option("auto", "where to train: auto (CUDA if torch sees a GPU, else CPU), cpu or cuda; "
                         "CPU results are unchanged by this option", kind=str, choices=("auto", "cpu", "cuda")),
    }

    @classmethod
    def validate_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        s = super().validate_options(given)
        if s["activation"] not in ACTIVATIONS + ("auto",) and not _LAAF.match(s["activation"]):
            raise ComponentError(f"teacher 'deepxde': option 'activation' must be one of {', '.join(ACTIVATIONS)} "
                                 f", 'auto' or 'LAAF-<n> <activation>', got {s['activation'][:40]!r}")
        if not all(1 <= w <= 100_000 for w in s["layers"]):
            raise ComponentError(f"teacher 'deepxde': option 'layers' must be widths in [1, 100000], got {s['layers']!r}")
        if s["architecture"] != "fnn" and s["layers"][0] % 2:
            raise ComponentError(f"teacher 'deepxde': architecture {s['architecture']!r} needs an even first "
                                 f"hidden width (cos and sin halves), got layers {s['layers']!r}")
        lw = s["loss_weights"]
        if lw is not None and not all(math.isfinite(w) and w >= 0 for w in lw):
            raise ComponentError(f"teacher 'deepxde': option 'loss_weights' must be non-negative finite numbers, "
                                 f"got {lw!r}")
        return s

    def larger_budget(self) -> dict[str, Any] | None:
        """Twice the steps and the points, set or derived (escalation's larger_teacher step), starting from
        the smaller teacher's network; None once twice the budget is past the option's range."""
        larger = 2 * self.settings["budget_scale"]
        return {"budget_scale": larger} if larger <= self.options["budget_scale"].high else None

    def smaller_budget(self) -> dict[str, Any] | None:
        """Half the steps and the points, and a stop at ``FIRST_LOOK`` times ``stop_below``: the network the
        configured teacher then continues from (its warm start), so the quick searchers can try a teacher
        at about a quarter of the cost first. Without the looser stop a smaller teacher that converges
        before its step budget trains as many L-BFGS steps as the configured one (Klein-Gordon: 1300
        against 1400), and the continuation then trains again."""
        return _first_look(self.settings, self.settings["budget_scale"] / 2)

    def prepare(self, problem: Problem, context: RunContext) -> TeacherModel:
        from desyr_deepxde.training import prepare_teacher  # heavy: deepxde + torch
        settings = resolve(self.settings, len(problem.variables), len(problem.fields))
        # a teacher starts from the network of the one at half its budget where that is cached (else a
        # quarter, an eighth): the anytime order's smaller teacher, or the attempt before escalation's
        # larger_teacher step
        # the one at half its budget is either kind: a teacher as configured or a first look
        scale, n_vars, n_fields = self.settings["budget_scale"], len(problem.variables), len(problem.fields)
        smaller = [[resolve({**self.settings, **budget}, n_vars, n_fields)
                    for budget in ({"budget_scale": scale / 2 ** k}, _first_look(self.settings, scale / 2 ** k))]
                   for k in range(1, WARM_LEVELS + 1)]
        return prepare_teacher(settings, problem, context, smaller)


def _first_look(settings: Mapping[str, Any], scale: float) -> dict[str, Any]:
    """The options of the anytime order's smaller teacher at ``scale``: a looser stop (at most 1)."""
    return {"budget_scale": scale, "stop_below": min(1.0, FIRST_LOOK * settings["stop_below"])}


@hookimpl
def desyr_register_teachers() -> list[type[Teacher]]:
    return [DeepXDETeacher]
