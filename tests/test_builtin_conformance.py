"""``check_component`` on every built-in component, with tiny budgets (issue 21, the author's kit).

PySR needs Julia, which is not always installed: it is skipped, never faked."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from desyr.extension.registry import load_registry
from desyr.testing import check_component

REGISTRY = load_registry()

#: options that keep each check small; the heavy ones are marked slow
TINY = {
    ("searcher", "gplearn"): {"generations": 3, "population_size": 200},
    ("searcher", "operon"): {"generations": 5, "population_size": 100},
    ("searcher", "pysr"): {"niterations": 2, "populations": 2},
    ("teacher", "deepxde"): {"layers": [8, 8], "adam_steps": 50, "lbfgs_steps": 0, "interior_points": 64,
                             "boundary_points": 8, "checkpoint_every": 25},
    ("executor", "processes"): {"workers": 2},
}
SLOW = {("executor", "dask"), ("teacher", "deepxde"), ("searcher", "operon"), ("searcher", "gplearn"),
        ("searcher", "pysr")}
NEEDS = {("searcher", "pysr"): "juliacall", ("teacher", "deepxde"): "deepxde", ("executor", "dask"): "distributed",
         ("searcher", "operon"): "pyoperon", ("searcher", "gplearn"): "gplearn"}


def _params():
    for role in ("teacher", "searcher", "refiner", "gate", "executor"):
        for name in REGISTRY.names(role):
            if REGISTRY.info(role, name).origin == "(registered in process)":
                continue
            marks = [pytest.mark.slow] if (role, name) in SLOW else []
            yield pytest.param(role, name, marks=marks, id=f"{role}-{name}")


def _samples(tmp_path):
    x = np.linspace(0, 1, 201)[:, None]
    path = tmp_path / "samples.npz"
    np.savez(path, X=x, Y=np.sin(np.pi * x))
    return {"path": str(path)}


@pytest.mark.parametrize("role, name", list(_params()))
def test_every_builtin_component_passes_check_component(role, name, tmp_path, monkeypatch):
    module = NEEDS.get((role, name))
    if module and importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    options = dict(TINY.get((role, name), {}))
    if (role, name) == ("teacher", "samples"):
        options = _samples(tmp_path)
    if (role, name) == ("teacher", "callable"):
        monkeypatch.setenv("DESYR_ALLOW_CALLABLE", "1")
        options = {"function": "numpy:sinc"}          # any importable function of X; checked, not judged
    check_component(REGISTRY.get(role, name), **options)
