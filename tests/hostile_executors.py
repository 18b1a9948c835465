"""Executors that break their contract (an outside plugin author's bugs), for ``test_trust_executors.py``."""
from __future__ import annotations

from desyr.extension.roles import Executor
from desyr.runtime.execution import serial_map


class ShortExecutor(Executor):
    """Answers one unit fewer than it was given (an outside author's bug: a search went missing)."""
    name = "e_short"

    def map(self, fn, items):
        return [fn(item) for item in items][:-1]


class RaisingExecutor(Executor):
    """Its map raises (a cluster that went away) with a two-line message."""
    name = "e_raising"

    def map(self, fn, items):
        raise RuntimeError("the cluster went away\nsecond line")


class JunkExecutor(Executor):
    """One answer per unit, but not records."""
    name = "e_junk"

    def map(self, fn, items):
        return [None for _ in items]


class ReversedExecutor(Executor):
    """Every record, in reverse order (candidate c0 would get c1's refit)."""
    name = "e_reversed"

    def map(self, fn, items):
        return serial_map(fn, items)[::-1]


class RepeatsFirstExecutor(Executor):
    """The first unit's record in every place."""
    name = "e_repeats_first"

    def map(self, fn, items):
        first = serial_map(fn, items[:1])[0]
        return [first for _ in items]


class StaleExecutor(Executor):
    """Answers every map after the first with the first map's records (a cache keyed on nothing)."""
    name = "e_stale"

    def __init__(self, **options):
        super().__init__(**options)
        self.seen = None

    def map(self, fn, items):
        fresh = serial_map(fn, items)
        self.seen = self.seen or fresh
        return (self.seen * len(items))[:len(items)]
