"""The tiny bench that ``desyr study --quick`` runs (hook ``desyr_study_bench``) and the test fixture.

Two 1-D problems, stand-in teachers (the ``callable`` teacher on the functions below:
the reference with a slightly wrong amplitude and frequency, like a trained network's
error) and Operon on a tiny budget with three seeded searches per teacher, so the
coverage study can pool K = 1, 2, 3 runs.  The configs are copied to ``<out>/configs``
so the studies can reload them wherever the folder is moved.  The plugin gives its own
``callable`` teacher its consent for these two functions only through the runs' environment.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from desyr_light_teachers.callables import ALLOW_ENV

if TYPE_CHECKING:
    from desyr.plugin import StudyBench

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
function = "desyr_light_teachers.tinybench:sine_teacher"
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
function = "desyr_light_teachers.tinybench:poisson4_teacher"
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


def study_bench() -> StudyBench:
    from desyr.plugin import StudyBench

    return StudyBench(CONFIGS, "2 stand-in teachers x 2 seeds, 3 Operon searches each", {ALLOW_ENV: "1"})
