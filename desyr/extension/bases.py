"""The bases being resolved while a plugin answers a spec: which registry to resolve a config it gives
with, and the chain of ``extends`` so far (:mod:`desyr.config.loading` resolves them). The registry
enters it around each answer (:meth:`desyr.extension.registry.Registry.load_problem`); no import of
the registry here, the registry is passed in."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["ACTIVE", "active", "answering"]


class _Loading:
    """What a load under way knows while a plugin answers a spec: its registry (so a
    bundled config that itself extends resolves with it) and the chain of bases so far."""

    def __init__(self, registry: Any, chain: tuple[tuple[str, str], ...]) -> None:
        self.registry = registry
        self.chain = chain


ACTIVE: ContextVar[_Loading | None] = ContextVar("desyr_loading", default=None)


@contextmanager
def active(registry: Any, chain: tuple[tuple[str, str], ...]) -> Iterator[None]:
    token = ACTIVE.set(_Loading(registry, chain))
    try:
        yield
    finally:
        ACTIVE.reset(token)


@contextmanager
def answering(registry: Any, spec: str) -> Iterator[None]:
    """While a plugin answers ``spec`` (:meth:`Registry.load_problem`): a config it gives that
    extends a spec is resolved with ``registry``, and ``spec`` joins the chain of bases."""
    outer = ACTIVE.get()
    with active(registry, (*(outer.chain if outer is not None else ()), (spec, spec))):
        yield
