"""Executors that break their contract (an outside plugin author's bugs), for ``test_trust_executors.py``."""
from __future__ import annotations

from desyr.extension.roles import Executor


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
