"""The teacher's networks: DeepXDE's ``FNN``, and a multi-scale Fourier-feature network.

DeepXDE ships ``MsFFN`` (Wang, Wang & Perdikaris 2021, "On the eigenvector bias of
Fourier feature networks") only for its TensorFlow and Paddle backends; the
PyTorch port below follows the same design: for each scale sigma a fixed random
embedding ``[cos(x B), sin(x B)]`` with ``B ~ N(0, sigma^2)``, one shared fully
connected trunk applied to every embedding, and a linear layer on the
concatenated trunk outputs.  The embeddings are buffers, so they are part of
the saved state and a cached network reloads exactly.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import torch

from desyr_deepxde.backend import DeepXDENet, dde


class MsFFN(DeepXDENet):
    """Multi-scale Fourier-feature network (PyTorch port of DeepXDE's ``MsFFN``)."""

    def __init__(self, layer_sizes: Sequence[int], activation: str, kernel_initializer: str,
                 sigmas: Sequence[float], seed_generator: torch.Generator | None = None) -> None:
        super().__init__()
        n_in, hidden, n_out = layer_sizes[0], list(layer_sizes[1:-1]), layer_sizes[-1]
        if not hidden or hidden[0] % 2:
            raise ValueError("MsFFN needs an even first hidden width (cos and sin halves)")
        dtype = dde.config.real(torch)
        self.sigmas = [float(s) for s in sigmas]
        for i, sigma in enumerate(self.sigmas):
            b = torch.randn(n_in, hidden[0] // 2, dtype=dtype, generator=seed_generator) * sigma
            self.register_buffer(f"fourier_{i}", b)
        # the trunk maps the embedding (width hidden[0]) through the hidden layers; one hidden layer
        # still gets one dense layer, so every configured width trains
        self.trunk = dde.nn.FNN(hidden if len(hidden) > 1 else hidden * 2, activation, kernel_initializer)
        self.head = torch.nn.Linear(hidden[-1] * len(self.sigmas), n_out, dtype=dtype)
        dde.nn.initializers.get(kernel_initializer)(self.head.weight)
        torch.nn.init.zeros_(self.head.bias)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        x = inputs
        if self._input_transform is not None:
            x = self._input_transform(x)
        parts: list[torch.Tensor] = []
        for i in range(len(self.sigmas)):
            xb = x @ getattr(self, f"fourier_{i}")
            parts.append(self.trunk.activation(self.trunk(torch.cat([torch.cos(xb), torch.sin(xb)], dim=1))))
        y: torch.Tensor = self.head(torch.cat(parts, dim=1))
        if self._output_transform is not None:
            y = self._output_transform(inputs, y)
        return y


def make_net(architecture: str, layers: Sequence[int], n_in: int, n_out: int, activation: str,
             initializer: str, sigmas: Sequence[float]) -> DeepXDENet:
    """``fnn``: DeepXDE's FNN; ``msffn``: the multi-scale network (seeded by the caller's RNG state)."""
    if architecture == "msffn":
        return MsFFN([n_in] + list(layers) + [n_out], activation, initializer, sigmas)
    return cast(DeepXDENet, dde.nn.FNN([n_in] + list(layers) + [n_out], activation, initializer))   # untyped
