"""A tiny bench folder made with the real ``desyr bench`` (for --quick studies and the test fixture).

Two 1-D problems, stand-in teachers (the ``callable`` teacher on the functions below:
the reference with a slightly wrong amplitude and frequency, like a trained network's
error) and Operon on a tiny budget with three seeded searches per teacher, so the
coverage study can pool K = 1, 2, 3 runs.  The configs are copied to ``<out>/configs``
so the studies can reload them wherever the folder is moved.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

_POINTS = """
[points]
refine = 300
verify = 300
search = 120
validate = 120
"""

_SEARCH = """
[search]
plugin = "operon"
binary = {binary}
unary = ["sin"]
max_size = 12
runs = 3

[search.options]
generations = 15
population_size = 80
time_limit = 0
"""

CONFIGS = {
    "tiny_sine": """
name = "tiny_sine"
title = "Tiny Sine-Poisson 1D"
[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx + pi**2*sin(pi*x)"
[[constraints]]
on = ["x = 0", "x = 1"]
value = 0
[reference]
u = "sin(pi*x)"
[teacher]
plugin = "callable"
[teacher.options]
function = "desyr.studies.tinybench:sine_teacher"
""" + _POINTS + _SEARCH.format(binary='["*"]'),
    "tiny_poisson4": """
name = "tiny_poisson4"
title = "Tiny Parametric Poisson"
[domain]
x = [0, 1]
[[equations]]
lhs = "u_xx + 16*sin(4*x)"
[[constraints]]
on = "x = 0"
value = 0
[[constraints]]
on = "x = 1"
value = "sin(4)"
[reference]
u = "sin(4*x)"
[teacher]
plugin = "callable"
[teacher.options]
function = "desyr.studies.tinybench:poisson4_teacher"
""" + _POINTS + _SEARCH.format(binary='["+", "-", "*"]'),
}


def sine_teacher(X: np.ndarray) -> np.ndarray:
    """sin(pi x) with a teacher-like error (relative ~1e-4)."""
    x = np.asarray(X, float)[:, 0]
    return 1.0002 * np.sin(3.1413 * x) + 2e-5 * np.cos(7.0 * x)


def poisson4_teacher(X: np.ndarray) -> np.ndarray:
    """sin(4 x) with a teacher-like error."""
    x = np.asarray(X, float)[:, 0]
    values: np.ndarray = 1.0003 * np.sin(3.9991 * x) + 3e-5 * x * (1 - x)
    return values


def make_tiny_bench(out: str | Path, seeds: int = 2, quiet: bool = True) -> Path:
    """Run (or resume) the tiny bench in ``out``; returns ``out``."""
    from desyr.bench.suite import bench
    from desyr.extension.registry import load_registry
    from desyr.runtime.progress import Progress

    out = Path(out)
    configs = out / "configs"
    configs.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in CONFIGS.items():
        path = configs / f"{name}.toml"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    os.environ["DESYR_ALLOW_CALLABLE"] = "1"    # our own stand-in teachers, named above
    bench(load_registry(), paths, False, seeds, out, 600.0, Progress(verbose=not quiet),
          f"desyr study (tiny bench, {seeds} seeds)")
    return out
