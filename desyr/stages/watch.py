"""What the run hands a component to read stays as it was: the problem, its vocabulary, the run's point
sets and context are fingerprinted before each component call and compared after it.

The problem and the point sets are frozen (tuples, read-only mappings and arrays), which stops the
accidents; a component that changes them anyway (``object.__setattr__`` on a frozen record, an array's
write flag turned back on, a vocabulary's private table) would change what later stages fit, score and
select, so the change ends the run with one line naming the component (exit 2), as any broken contract.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from desyr.errors import PluginError
from desyr.model.context import RunContext
from desyr.model.fingerprints import changed_paths, fingerprint

#: context fields that are the core's to change (live bars, the run's executor), not the component's
_CORE_OWNED = ("progress", "units")


def context_parts(ctx: RunContext) -> dict[str, Any]:
    """The context as a component reads it: its problem and point sets, the seed, the teacher's values...
    (nothing for a stand-in that is not a RunContext, as tests pass to the gates)."""
    if not dataclasses.is_dataclass(ctx):
        return {}
    return {("problem" if f.name == "problem" else f"context.{f.name}"): getattr(ctx, f.name)
            for f in dataclasses.fields(ctx) if f.name not in _CORE_OWNED}


@contextmanager
def unchanged(role: str, name: str, parts: dict[str, Any], error: type[PluginError] = PluginError) -> Iterator[None]:
    """Run the block (a component's call); raise ``error`` naming the component if it changed ``parts``."""
    before = fingerprint(parts)
    try:
        yield
    finally:    # also when the call raised after its damage (a frozen field refused, an array written first)
        _compare(role, name, parts, before, error)


def _compare(role: str, name: str, parts: dict[str, Any], before: dict[str, Any], error: type[PluginError]) -> None:
    changed = changed_paths(before, fingerprint(parts))
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        raise error(f"{role} '{name}' broke its contract: it changed {shown}; a component reads the problem "
                    "and the run's point sets (every later stage and the verdict use them) and never changes them")
