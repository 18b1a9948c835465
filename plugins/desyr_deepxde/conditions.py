"""Periodic and integral constraints as DeepXDE point-set conditions.

DeepXDE's data classes ask a condition for its points (``collocation_points``) and its error on
them (``error``).  A periodic constraint compares the operator at its points with the operator at
the same points moved by the shift, so it evaluates the network there too (``NetSlot`` holds the
network being trained); an integral constraint's error is its quadrature sums.
"""
from __future__ import annotations

import numpy as np
import torch

from desyr_deepxde.backend import dde
from desyr_deepxde.residuals import PinnResiduals, _autograd_derivative, _dde_derivative


def _real(points: np.ndarray) -> np.ndarray:
    return np.array(points, dtype=dde.config.real(np))


class NetSlot:
    """The network being trained: the conditions are built before it, and it changes per rung."""

    net: torch.nn.Module | None = None


def constraint_error(residuals: PinnResiduals, index: int, x: torch.Tensor, y: torch.Tensor, d,
                     target: torch.Tensor, net, shift: torch.Tensor | None, reduction: torch.Tensor | None
                     ) -> torch.Tensor:
    """The error of constraint ``index`` at points ``x`` (network order) with outputs ``y``."""
    op = residuals.constraint_operator(index, x, y, d)
    if shift is not None:
        moved = (x.detach() + shift).requires_grad_(True)
        op = op - residuals.constraint_operator(index, moved, net(moved), _autograd_derivative)
    error = op - target
    return error if reduction is None else reduction @ error


class PeriodicCondition:
    def __init__(self, residuals: PinnResiduals, index: int, points: np.ndarray, shift: np.ndarray,
                 slot: NetSlot) -> None:
        # DeepXDE stacks every condition's points with the domain's, in its own precision
        self.residuals, self.index, self.points, self.slot = residuals, index, _real(points), slot
        self.shift = torch.as_tensor(shift, dtype=torch.get_default_dtype())

    def __len__(self) -> int:
        return len(self.points)

    def collocation_points(self, X):
        return self.points

    def error(self, X, inputs, outputs, beg, end, aux_var=None):
        op = self.residuals.constraint_operator(self.index, inputs, outputs, _dde_derivative)[beg:end]
        moved = (inputs[beg:end].detach() + self.shift).requires_grad_(True)
        assert self.slot.net is not None, "set by the training before DeepXDE asks for an error"
        return op - self.residuals.constraint_operator(self.index, moved, self.slot.net(moved), _autograd_derivative)


class IntegralCondition:
    def __init__(self, residuals: PinnResiduals, index: int, points: np.ndarray, target: np.ndarray,
                 reduction: np.ndarray) -> None:
        self.residuals, self.index, self.points = residuals, index, _real(points)
        dtype = torch.get_default_dtype()
        self.target = torch.as_tensor(target, dtype=dtype)
        self.reduction = torch.as_tensor(reduction, dtype=dtype)

    def __len__(self) -> int:
        return len(self.points)

    def collocation_points(self, X):
        return self.points

    def error(self, X, inputs, outputs, beg, end, aux_var=None):
        op = self.residuals.constraint_operator(self.index, inputs, outputs, _dde_derivative)[beg:end]
        return self.reduction.to(op.device) @ (op - self.target.to(op.device))
