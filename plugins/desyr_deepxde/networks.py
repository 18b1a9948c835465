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

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

import torch

from desyr.plugin import ComponentError, Problem
from desyr_deepxde.backend import DeepXDENet, dde
from desyr_deepxde.radial import RADIAL, problem_rotation, radial_transform

#: the teacher's settings, as DeepXDETeacher.validate_options checked them
Settings = Mapping[str, Any]


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


class _Variable(Protocol):
    """A problem variable, as the network's inputs read it."""

    @property
    def name(self) -> str: ...
    @property
    def lo(self) -> float: ...
    @property
    def hi(self) -> float: ...


def build_net(problem: Problem, settings: Settings, n_in: int, architecture: str = "fnn",
              activation: str | None = None) -> DeepXDENet:
    activation = activation or settings["activation"]
    names, bounds = [v.name for v in network_variables(problem)], input_bounds(problem)
    scaled = scales_inputs(settings["input_scaling"], bounds)
    rot = problem_rotation(problem, settings["symmetry"]) if architecture == RADIAL else None
    if architecture == RADIAL and rot is None:
        raise ComponentError("teacher 'deepxde': a radial network needs a problem unchanged by rotations")
    net = make_net("fnn" if rot else architecture, settings["layers"], n_in - (rot is not None), len(problem.fields),
                   "tanh" if activation == "auto" else activation, settings["initializer"], settings["fourier_sigmas"])
    if rot is not None:
        net.apply_feature_transform(radial_transform(rot, names, bounds, scaled))
    elif scaled:
        lo, hi = (torch.tensor([b[k] for b in bounds], dtype=torch.get_default_dtype()) for k in (0, 1))
        # derivatives are taken through the map, so residuals stay in the problem's coordinates
        net.apply_feature_transform(lambda x: 2 * (x - lo) / (hi - lo) - 1)
    return net


def network_variables(problem: Problem) -> Sequence[_Variable]:
    """The problem's variables in the order the network takes them: space variables, then time
    (DeepXDE's ``GeometryXTime`` puts time last)."""
    return [v for v in problem.variables if v.name != problem.time] + \
           [v for v in problem.variables if v.name == problem.time]


def input_bounds(problem: Problem) -> list[tuple[float, float]]:
    """(lo, hi) per network input, in the network's order."""
    return [(float(v.lo), float(v.hi)) for v in network_variables(problem)]


def scales_inputs(setting: str, bounds: list[tuple[float, float]]) -> bool:
    """Whether the network sees its inputs mapped onto [-1, 1].  Centred inputs keep tanh out of
    saturation at Glorot initialisation: unscaled, Euler-Bernoulli on [0, 10] trained to a
    near-zero function on every seed, and Klein-Gordon on [0, 1]^2 to relative L2 0.27 on one
    seed in three; scaled, both reach 1e-2 or better.  'auto' scales only domains that leave
    [-1, 1]."""
    if setting == "auto":
        return any(lo < -1 or hi > 1 for lo, hi in bounds)
    return setting == "always"


def network_ladder(settings: Settings, radial: bool = False) -> list[tuple[str, str]]:
    """(architecture, activation) in the order the teacher tries them: a network is trained only
    when every one before it stalled (the radial one: until its S_val is near ``stop_below``).
    Hand-set choices fix their part of the ladder."""
    activation, arch = settings["activation"], settings["architecture"]
    first = "tanh" if activation == "auto" else activation
    ladder = [(RADIAL, first)] if radial and arch == "auto" else []
    ladder.append(("msffn" if arch == "msffn" else "fnn", first))
    if activation == "auto" and arch != "msffn":
        ladder.append(("fnn", "sin"))
    if arch == "auto":
        ladder.append(("msffn", first))
    return ladder
