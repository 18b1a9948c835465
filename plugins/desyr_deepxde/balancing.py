"""Automatic loss balancing and early stopping for the teacher (DeepXDE callbacks).

Balancing is learning-rate annealing (Wang, Teng & Perdikaris 2021, "Understanding
and mitigating gradient flow pathologies in physics-informed neural networks",
Algorithm 1): every ``every`` Adam steps each constraint weight moves towards

    lambda_hat_i = max |grad_theta L_eq| / mean |grad_theta L_i|

(L_eq: the unweighted equation losses; L_i: constraint i's unweighted loss) by a
moving average with factor ``alpha`` = 0.9, the paper's value.  Equation terms keep
weight 1.  The weights only shape the training loss; checkpoints are still chosen
by the unweighted, reference-free S_val.
"""
from __future__ import annotations

import math

import torch

from desyr_deepxde.backend import DeepXDECallback

#: the moving-average factor of Wang, Teng & Perdikaris (2021)
ALPHA = 0.9
#: weights stay within these bounds.  A constraint that is already met has a vanishing gradient,
#: so its raw ratio grows without limit; past about 1e3 the weighted loss only grows stiff
#: (L-BFGS stalls) without the constraint getting any better.
WEIGHT_RANGE = (1.0, 1e3)


def _abs_gradient(loss: torch.Tensor, params: list[torch.Tensor]) -> torch.Tensor | None:
    grads = torch.autograd.grad(loss, params, retain_graph=True, allow_unused=True)
    flat = [g.detach().abs().flatten() for g in grads if g is not None]
    return torch.cat(flat) if flat else None


class LossBalancer(DeepXDECallback):
    """Learning-rate annealing of the constraint weights during Adam."""

    def __init__(self, n_equations: int, n_constraints: int, every: int) -> None:
        super().__init__()
        self.n_eq, self.every = n_equations, every
        self.weights = [1.0] * (n_equations + n_constraints)
        self.updates = 0

    def on_epoch_end(self) -> None:
        if int(self.model.train_state.step) % self.every == 0:
            self.update()

    def update(self) -> None:
        model, state = self.model, self.model.train_state
        saved, model.loss_weights = model.loss_weights, None
        try:
            losses = model.outputs_losses_train(state.X_train, state.y_train, state.train_aux_vars)[1]
        finally:
            model.loss_weights = saved
        params = [p for p in model.net.parameters() if p.requires_grad]
        peaks = [g.max() for g in (_abs_gradient(losses[i], params) for i in range(self.n_eq)) if g is not None]
        if not peaks:
            return
        peak = float(torch.stack(peaks).max())
        lo, hi = WEIGHT_RANGE
        for i in range(self.n_eq, len(self.weights)):
            g = _abs_gradient(losses[i], params)
            mean = float(g.mean()) if g is not None else 0.0
            if mean > 0 and math.isfinite(mean) and math.isfinite(peak):
                target = peak / mean
                self.weights[i] = min(max((1 - ALPHA) * self.weights[i] + ALPHA * target, lo), hi)
        model.loss_weights = list(self.weights)
        self.updates += 1


class Patience:
    """Stops a training phase when S_val has not improved by ``min_gain`` (relative) for ``steps`` steps.

    ``steps = None``: the window is a quarter of each phase's steps and at least two checkpoints
    (``every`` steps apart), so a phase of any length stops once a quarter of it bought nothing.
    A score at or below ``stop_below`` stops the phase too: a log-linear tail (Klein-Gordon's S_val
    fell from 4e-5 to 4e-7 over its last 1800 steps, never by less than 1 % a window) buys the
    searches nothing."""

    def __init__(self, steps: int | None, min_gain: float = 0.01, every: int = 100, stop_below: float = 0.0
                 ) -> None:
        self.fixed, self.min_gain, self.every, self.stop_below = steps, min_gain, every, stop_below
        self.steps = steps if steps is not None else 2 * every
        self.reference = math.inf
        self.since = 0

    def restart(self, step: int, phase_steps: int = 0) -> None:
        self.since = step
        if self.fixed is None:
            self.steps = max(2 * self.every, phase_steps // 4)

    def exhausted(self, step: int, score: float) -> bool:
        """Record the score at ``step``; True when the phase should stop."""
        if math.isfinite(score) and score < self.reference * (1 - self.min_gain):
            self.reference, self.since = score, step
        if math.isfinite(score) and score <= self.stop_below:
            return True
        return self.steps > 0 and step - self.since >= self.steps
