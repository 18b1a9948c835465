"""The order in which two pytest-xdist workers take the test modules (``./dev test``: ``-n 2 --dist loadfile``).

Each module runs whole on one worker, and a worker takes the next module when it is almost done
with its own.  xdist's own order is by the number of tests, most first, so the modules of one or
two heavy tests (a real bench, a pip install, a notebook kernel, a whole run) came last: one worker
then ran the last of them alone while the other had finished.  Longest first is the classic fix
for that tail (LPT scheduling); a module's weight is guessed from its tests' ``slow`` markers,
which tests/test_tiers.py keeps honest, so no table of timings has to be kept up to date.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

Item = TypeVar("Item")

#: for ordering only: a test marked slow (about 1 s to minutes on 2 cores) counts as this many
#: fast ones (well under 1 s); a module of slow tests then goes before every module of fast ones
SLOW_WEIGHT = 40


def module_weights(tests: Iterable[tuple[Hashable, bool]]) -> dict[Hashable, int]:
    """Each module's guessed cost from its tests' ``(module, marked slow)`` pairs."""
    weights: dict[Hashable, int] = {}
    for module, slow in tests:
        weights[module] = weights.get(module, 0) + (SLOW_WEIGHT if slow else 1)
    return weights


def heaviest_modules_first(items: Sequence[Item], module_of: Callable[[Item], Hashable],
                           is_slow: Callable[[Item], bool]) -> list[Item]:
    """``items`` with whole modules reordered, heaviest first; ties keep their order, and so does
    every module's own order of tests (its module fixtures are still set up once)."""
    weights = module_weights((module_of(item), is_slow(item)) for item in items)
    position: dict[Hashable, int] = {}
    for item in items:
        position.setdefault(module_of(item), len(position))
    rank = {module: (-weights[module], position[module]) for module in weights}
    return sorted(items, key=lambda item: rank[module_of(item)])
