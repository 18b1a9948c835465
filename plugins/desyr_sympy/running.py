"""Methods' solve calls side by side in bounded children, a shared call answering two methods at once.

A method may answer another from the same child call (:meth:`~desyr_sympy.method.ExactMethod.answers_too`):
``dsolve`` and ``dsolve_ics`` of one ODE share one ``sympy.dsolve`` call, each keeping its own record.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from desyr_sympy.bounded import Call, Outcome, run_bounded
from desyr_sympy.method import Answer, ExactMethod

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


def run_methods(methods: Sequence[ExactMethod], problem: Problem, time_limit: float, workers: int,
                deadline: float | None) -> list[Outcome]:
    """Each method's outcome, side by side in bounded children (at most ``workers`` at once, none past
    ``deadline``).  A method another one in ``methods`` answers too gets that call's answer; it runs alone
    afterwards only where its answer cannot be derived, and shares that call's failure."""
    names = [m.name for m in methods]
    riders = {rider: host for host in methods if (rider := host.answers_too(problem)) in names and rider != host.name}
    hosts = {host.name for host in riders.values()}
    first = [m for m in methods if m.name not in riders]
    calls: list[Call] = [(m.solve_both if m.name in hosts else m.solve, (problem,)) for m in first]
    outcomes = dict(zip((m.name for m in first), run_bounded(calls, time_limit, workers=workers, deadline=deadline)))
    alone = []
    for rider, host in riders.items():
        outcomes[host.name], derived = _split(outcomes[host.name])
        if derived is None:
            alone.append(next(m for m in methods if m.name == rider))
        else:
            outcomes[rider] = derived
    if alone:
        after = run_bounded([(m.solve, (problem,)) for m in alone], time_limit, workers=workers, deadline=deadline)
        outcomes |= dict(zip((m.name for m in alone), after))
    return [outcomes[name] for name in names]


def _split(both: Outcome) -> tuple[Outcome, Outcome | None]:
    """A shared call's outcome as the host's and the rider's (None where the rider must run alone)."""
    if both.status != "ok":                 # the host's call failed, and the rider's would make it first
        return both, both
    solutions, answer = both.value
    return Outcome("ok", solutions, "", both.seconds), _derived(answer, both.seconds)


def _derived(answer: Answer, seconds: float) -> Outcome | None:
    if answer is None:
        return None
    status, value = answer
    return Outcome("ok", value, "", seconds) if status == "ok" else Outcome(status, None, value, seconds)


#: modules SymPy imports on its first integral, simplify or solve (0.3-0.9 s each; ``simplify`` and
#: ``solve`` import the physical units); imported once here, before the children fork, so that no
#: child pays for them again
_LAZY_MODULES = ("sympy.integrals.manualintegrate", "sympy.integrals.risch", "sympy.integrals.heurisch",
                 "sympy.combinatorics", "sympy.tensor.tensor", "sympy.sets.setexpr", "sympy.physics.units",
                 "sympy.physics.units.util")


def preload() -> None:
    import importlib

    for name in _LAZY_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:     # another SymPy version: a child imports what it needs
            pass


def cores() -> int:
    """The usable cores: how many calls run at once by default."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1
