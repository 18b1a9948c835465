"""Cache keys and cache entries for trained teachers (pure sympy/numpy; no torch).

An entry is a pair ``<key>.pt`` (the network weights) and ``<key>.json`` (the
training facts plus ``pt_sha256``, the sha256 of the .pt bytes).  Both are
written atomically with per-process temporary names, the .pt first and the
.json last; a reader accepts an entry only when the .json is a readable object
with the expected facts *and* its ``pt_sha256`` matches the .pt it reads, so a
crash, a concurrent writer or a corrupt file is a cache miss (train again),
never a crash or a mismatched network.

The key covers the problem, the teacher settings, the seed, the validation
points, DeSyR's version and a hash of this plugin's source files, so a changed
teacher never reuses networks trained by older code.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

if TYPE_CHECKING:
    from desyr.plugin import Problem

#: Bump when the cache layout changes (the code hash below covers the training code itself).
CACHE_VERSION = 2
#: facts a cached entry's .json must have (besides pt_sha256)
REQUIRED_META: dict[str, type | tuple[type, ...]] = {"S_val_selected": (int, float), "selected_step": int}


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """sha256 over DeSyR's version and every .py file of this plugin package (sorted by name)."""
    from desyr.plugin import __version__

    h = hashlib.sha256(f"desyr {__version__}\n".encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        h.update(str(path.relative_to(package)).encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def problem_fingerprint(problem: Problem) -> dict[str, Any]:
    """Everything of the problem definition a teacher depends on (no reference)."""
    return {
        "variables": [[v.name, repr(float(v.lo)), repr(float(v.hi))] for v in problem.variables],
        "time": problem.time,
        "fields": list(problem.fields),
        "equations": [sp.srepr(e.residual) for e in problem.equations],
        "constraints": [
            {"operator": sp.srepr(c.operator), "value": sp.srepr(c.value),
             "faces": [[[n, repr(float(v))] for n, v in f.fixed] if hasattr(f, "fixed") else f.describe()
                       for f in c.faces],
             **({"kind": c.kind, "shift": [repr(float(d)) for d in c.shift]} if c.kind != "pointwise" else {})}
            for c in problem.constraints
        ],
        # a box keeps the fingerprint it always had (and its cache entries)
        **({"shape": problem.geometry.text, "space": list(problem.geometry.space)} if problem.geometry else {}),
        **({"unknowns": [[u.name, repr(u.lo), repr(u.hi)] for u in problem.unknowns]} if problem.unknowns else {}),
        **({"observations": array_digest([problem.observations.X, problem.observations.values])}
           if problem.observations is not None else {}),
    }


def array_digest(arrays: Sequence[np.ndarray]) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def cache_key(problem: Problem, settings: Mapping[str, Any], seed: int, extra: Mapping[str, Any] | None = None,
              validation: Sequence[np.ndarray] = ()) -> str:
    """sha256 of the problem definition, the teacher settings, the seed and the
    validation points (they decide which checkpoint is kept)."""
    payload = {
        "version": CACHE_VERSION,
        "code": code_fingerprint(),
        "problem": problem_fingerprint(problem),
        "settings": {k: settings[k] for k in sorted(settings) if k != "seed"},
        "seed": int(seed),
        "validation": array_digest(validation),
        "extra": dict(extra or {}),
    }
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------- entries
def entry_paths(cache_dir: Path, key: str) -> tuple[Path, Path]:
    return Path(cache_dir) / f"{key[:32]}.pt", Path(cache_dir) / f"{key[:32]}.json"


def read_entry(weights_path: Path, meta_path: Path) -> tuple[dict[str, Any], bytes] | str:
    """``(meta, pt bytes)`` of a consistent entry, or the reason it is a miss (a string)."""
    from desyr.plugin import read_json

    if not meta_path.is_file() or not weights_path.is_file():
        return "no entry"
    meta = read_json(meta_path)
    if not isinstance(meta, dict):
        return "its .json is unreadable or not an object"
    for name, kind in REQUIRED_META.items():
        value = meta.get(name)
        if not isinstance(value, kind) or isinstance(value, bool) or (isinstance(value, float) and not math.isfinite(value)):
            return f"its .json has no valid {name}"
    if not isinstance(meta.get("pt_sha256"), str):
        return "its .json records no pt_sha256"
    try:
        data = weights_path.read_bytes()
    except OSError as exc:
        return f"its .pt is unreadable ({exc.strerror or exc})"
    if hashlib.sha256(data).hexdigest() != meta["pt_sha256"]:
        return "its .pt does not match its .json"
    return meta, data


def write_entry(weights_path: Path, meta_path: Path, weights: bytes, meta: Mapping[str, Any]) -> None:
    """Write the pair atomically: .pt first, .json (with the .pt's sha256) last."""
    from desyr.plugin import write_bytes_atomic, write_text_atomic

    text = json.dumps({**meta, "pt_sha256": hashlib.sha256(weights).hexdigest()}, default=float)
    weights_path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(weights_path, weights)
    write_text_atomic(meta_path, text)
