"""Import DeepXDE with the PyTorch backend, quietly (it prints on first import)."""
from __future__ import annotations

import contextlib
import io
import os

os.environ.setdefault("DDE_BACKEND", "pytorch")

with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    import deepxde as dde

from desyr.plugin import ComponentError

if dde.backend.backend_name != "pytorch":  # pragma: no cover - depends on the user's environment
    raise ComponentError(
        f"teacher 'deepxde' needs DeepXDE's PyTorch backend, but DeepXDE was loaded with "
        f"'{dde.backend.backend_name}' (set DDE_BACKEND=pytorch)")

__all__ = ["dde"]
