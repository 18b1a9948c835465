"""Import DeepXDE with the PyTorch backend, quietly (it prints on first import)."""
from __future__ import annotations

import contextlib
import io
import os
from typing import TYPE_CHECKING

os.environ.setdefault("DDE_BACKEND", "pytorch")

with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    import deepxde as dde

from desyr.plugin import ComponentError

if dde.backend.backend_name != "pytorch":  # pragma: no cover - depends on the user's environment
    raise ComponentError(
        f"teacher 'deepxde' needs DeepXDE's PyTorch backend, but DeepXDE was loaded with "
        f"'{dde.backend.backend_name}' (set DDE_BACKEND=pytorch)")

if TYPE_CHECKING:
    # DeepXDE ships no types (pyproject.toml, deepxde.*), so its classes are Any to mypy and a subclass
    # of them would go unchecked.  These are the three the teacher subclasses, with the members it uses;
    # at run time the names are DeepXDE's own classes.
    from collections.abc import Callable
    from typing import Any

    import numpy as np
    import torch

    class DeepXDECallback:
        """``dde.callbacks.Callback``: ``model`` is the ``dde.Model`` being trained (untyped)."""

        model: Any

        def __init__(self) -> None: ...

    class DeepXDENet(torch.nn.Module):
        """``dde.nn.pytorch.NN``: a torch module with DeepXDE's input and output transforms."""

        _input_transform: Callable[[torch.Tensor], torch.Tensor] | None
        _output_transform: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None

        def apply_feature_transform(self, transform: Callable[[torch.Tensor], torch.Tensor]) -> None: ...

    class DeepXDEGeometry:
        """``dde.geometry.Geometry``: dimension, bounding box and diameter."""

        dim: int
        bbox: tuple[np.ndarray, np.ndarray]
        diam: float

        def __init__(self, dim: int, bbox: tuple[np.ndarray, np.ndarray], diam: float) -> None: ...
else:
    DeepXDECallback = dde.callbacks.Callback
    DeepXDENet = dde.nn.pytorch.NN
    DeepXDEGeometry = dde.geometry.Geometry

__all__ = ["dde", "DeepXDECallback", "DeepXDENet", "DeepXDEGeometry"]
