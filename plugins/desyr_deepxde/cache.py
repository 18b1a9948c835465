"""Cache keys for trained teachers (pure sympy/numpy; no torch)."""
from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping, Sequence

import numpy as np
import sympy as sp

#: Bump when the training code changes in a way that invalidates cached networks.
CACHE_VERSION = 1


def problem_fingerprint(problem) -> dict[str, Any]:
    """Everything of the problem definition a teacher depends on (no reference)."""
    return {
        "variables": [[v.name, repr(float(v.lo)), repr(float(v.hi))] for v in problem.variables],
        "time": problem.time,
        "fields": list(problem.fields),
        "equations": [sp.srepr(e.residual) for e in problem.equations],
        "constraints": [
            {"operator": sp.srepr(c.operator), "value": sp.srepr(c.value),
             "faces": [[[n, repr(float(v))] for n, v in f.fixed] for f in c.faces]}
            for c in problem.constraints
        ],
    }


def array_digest(arrays: Sequence[np.ndarray]) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def cache_key(problem, settings: Mapping[str, Any], seed: int, extra: Mapping[str, Any] | None = None,
              validation: Sequence[np.ndarray] = ()) -> str:
    """sha256 of the problem definition, the teacher settings, the seed and the
    validation points (they decide which checkpoint is kept)."""
    payload = {
        "version": CACHE_VERSION,
        "problem": problem_fingerprint(problem),
        "settings": {k: settings[k] for k in sorted(settings) if k != "seed"},
        "seed": int(seed),
        "validation": array_digest(validation),
        "extra": dict(extra or {}),
    }
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
