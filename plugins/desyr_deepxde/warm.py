"""Warm starts: a larger teacher (escalation's ``larger_teacher``) starts from the network the smaller
one trained, instead of from a fresh initialisation.

The smaller teacher is the cache entry of the same problem, seed and validation points at half the
``budget_scale``.  Its selected network is loaded, its S_val scales are kept (so the two S_val
histories compare), its final loss weights are used, and training goes straight to L-BFGS on the
larger teacher's points: Adam's first steps would throw away what the smaller network learned.
An inverse problem (its unknowns train with the network) starts fresh.
"""
from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from desyr_deepxde.cache import entry_paths, read_entry


@dataclass(frozen=True)
class WarmStart:
    """The smaller teacher a larger one starts from: its weights and what its training settled."""

    state: dict[str, torch.Tensor]
    architecture: str
    activation: str
    scales: list[float]
    weights: list[float] | None       # the loss weights it ended with (None: unit weights)
    S_val: float
    key: str                          # its cache key

    def facts(self) -> dict[str, Any]:
        return {"from_cache_key": self.key, "S_val": self.S_val}


#: a key maker: the cache key of one budget's settings, with these entries added to the key's extra facts
KeyAt = Callable[[dict[str, Any]], str]


def cached_below(keys: Sequence[KeyAt], folder: Path) -> str | None:
    """The cache key of the teacher at the first of the smaller budgets (half, a quarter, ...) as it is in
    the cache, or None. A teacher's key names the one it started from, if it did (``warm_from``), so the
    key at each budget is found from the budgets below it first."""
    if not keys:
        return None
    below = cached_below(keys[1:], folder)
    variants = ([{"warm_from": below[:32]}] if below is not None else []) + [{}]
    for more in variants:
        key = keys[0](more)
        if entry_paths(folder, key)[1].is_file():
            return key
    return None


def find_warm_start(cache_dir: Path, key: str, device: str,
                    check: Callable[[dict[str, Any], dict[str, torch.Tensor]], bool]) -> WarmStart | None:
    """The cache entry ``key`` as a warm start, or None when it is missing, unreadable, or its weights do
    not fit the network (``check`` builds the network and loads them)."""
    entry = read_entry(*entry_paths(cache_dir, key))
    if isinstance(entry, str):
        return None
    meta, data = entry
    try:
        state = torch.load(io.BytesIO(data), map_location=device, weights_only=True)
        scales = [float(b) for b in meta["scales"]]
        weights = meta.get("loss_weights_final")
        warm = WarmStart(state, str(meta.get("architecture", "fnn")), str(meta.get("activation", "tanh")), scales,
                         None if weights is None else [float(w) for w in weights], float(meta["S_val_selected"]),
                         key)
    except Exception:  # noqa: BLE001 - a warm start is an optimisation: any unusable entry means a fresh start
        return None
    return warm if check(meta, state) else None
