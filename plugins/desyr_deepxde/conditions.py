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
from desyr_deepxde.residuals import Derivative, PinnResiduals, autograd_derivative, dde_derivative


class NetSlot:
    """The network being trained: the conditions are built before it, and it changes per rung."""

    net: torch.nn.Module | None = None


def constraint_error(residuals: PinnResiduals, index: int, x: torch.Tensor, y: torch.Tensor, d: Derivative,
                     target: torch.Tensor, net: torch.nn.Module, shift: torch.Tensor | None, reduction: torch.Tensor | None
                     ) -> torch.Tensor:
    """The error of constraint ``index`` at points ``x`` (network order) with outputs ``y``."""
    op = residuals.constraint_operator(index, x, y, d)
    if shift is not None:
        moved = (x.detach() + shift).requires_grad_(True)
        op = op - residuals.constraint_operator(index, moved, net(moved), autograd_derivative)
    error = op - target
    return error if reduction is None else reduction @ error


class _PointSetCondition:
    """What DeepXDE asks of a condition: its points, in DeepXDE's precision (it stacks every
    condition's points with the domain's), and the operator at them."""

    def __init__(self, residuals: PinnResiduals, index: int, points: np.ndarray) -> None:
        self.residuals, self.index, self.points = residuals, index, np.array(points, dtype=dde.config.real(np))

    def __len__(self) -> int:
        return len(self.points)

    def collocation_points(self, X: np.ndarray) -> np.ndarray:
        return self.points

    def operator(self, inputs: torch.Tensor, outputs: torch.Tensor, beg: int, end: int) -> torch.Tensor:
        return self.residuals.constraint_operator(self.index, inputs, outputs, dde_derivative)[beg:end]


class PeriodicCondition(_PointSetCondition):
    def __init__(self, residuals: PinnResiduals, index: int, points: np.ndarray, shift: np.ndarray,
                 slot: NetSlot) -> None:
        super().__init__(residuals, index, points)
        self.slot = slot
        self.shift = torch.as_tensor(shift, dtype=torch.get_default_dtype())

    def error(self, X: np.ndarray, inputs: torch.Tensor, outputs: torch.Tensor, beg: int, end: int,
              aux_var: torch.Tensor | None = None) -> torch.Tensor:
        moved = (inputs[beg:end].detach() + self.shift).requires_grad_(True)
        assert self.slot.net is not None, "set by the training before DeepXDE asks for an error"
        there = self.residuals.constraint_operator(self.index, moved, self.slot.net(moved), autograd_derivative)
        return self.operator(inputs, outputs, beg, end) - there


class IntegralCondition(_PointSetCondition):
    def __init__(self, residuals: PinnResiduals, index: int, points: np.ndarray, target: np.ndarray,
                 reduction: np.ndarray) -> None:
        super().__init__(residuals, index, points)
        dtype = torch.get_default_dtype()
        self.target = torch.as_tensor(target, dtype=dtype)
        self.reduction = torch.as_tensor(reduction, dtype=dtype)

    def error(self, X: np.ndarray, inputs: torch.Tensor, outputs: torch.Tensor, beg: int, end: int,
              aux_var: torch.Tensor | None = None) -> torch.Tensor:
        op = self.operator(inputs, outputs, beg, end)
        return self.reduction.to(op.device) @ (op - self.target.to(op.device))
