"""The run store: every finished unit of a run as a JSON file under ``OUT/store/``.

Layout::

    OUT/store/key.json            the store's key and what it covers
    OUT/store/teacher.json        which teacher was used (plugin, its facts incl. cache key, values hash)
    OUT/store/search/<name>.json  one seeded search: its checked front as text, info, drops
    OUT/store/refit/<name>.json   one candidate's Stage-B outcome, measurement and cleaning

Each record is written atomically by whoever ran the unit (:func:`write_record`), as soon
as it finished.  ``desyr run --resume`` reuses the records whose key matches the run's key:
a sha256 of the config's content, the seed, desyr's version and the components' names and
options.  A store with another key (another config, seed, version or component setting) is
set aside, never reused.  Unit names also hash what the unit depends on inside the run
(the teacher values for a search, the candidate and refiner for a refit), so a different
teacher never feeds stale fronts.  Only plain files: a shared filesystem is enough.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from desyr._version import __version__
from desyr.atomic import read_json, write_json_atomic

STORE = "store"
KINDS = ("search", "refit")


def store_key(config_sha256: str, seed: int, components: dict[str, Any]) -> str:
    """What a stored unit depends on, besides its own inputs (which its name hashes)."""
    text = json.dumps({"config": config_sha256, "seed": int(seed), "desyr": __version__, "components": components},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def write_record(path: Path, key: str, record: dict[str, Any], seconds: float) -> None:
    """One unit's record, atomically; ``written`` (pid, time) lets a resume show it was not redone."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, {"key": key, "seconds": round(seconds, 4),
                             "written": {"pid": os.getpid(), "time": time.time()}, "record": record})


class RunStore:
    """The store of one ``--out`` folder, opened for one run."""

    def __init__(self, out: str | Path, key: str, covers: dict[str, Any], resume: bool) -> None:
        self.root, self.key = Path(out) / STORE, key
        self.note: str | None = None
        stored = read_json(self.root / "key.json")
        if not resume or not isinstance(stored, dict) or stored.get("key") != key:
            if resume and self.root.exists():
                self.note = "the run store belongs to another config, seed, version or component setting; not reused"
            # a fresh run starts from an empty store: stale records must not even look reusable
            shutil.rmtree(self.root, ignore_errors=True)
        for kind in KINDS:
            (self.root / kind).mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.root / "key.json", {"key": key, "covers": covers})

    def path(self, kind: str, name: str) -> Path:
        return self.root / kind / f"{name}.json"

    def get(self, kind: str, name: str) -> dict[str, Any] | None:
        """A finished unit's record, or None (missing, truncated, or of another key)."""
        stored = read_json(self.path(kind, name))
        if isinstance(stored, dict) and stored.get("key") == self.key and isinstance(stored.get("record"), dict):
            return stored["record"]
        return None

    def put_teacher(self, record: dict[str, Any]) -> None:
        write_json_atomic(self.root / "teacher.json", {"key": self.key, "record": record})


def unit_seconds(out: str | Path) -> list[float]:
    """Seconds of every stored unit under ``out`` (a run folder or a bench folder), for the cost model."""
    seconds = []
    for path in sorted(Path(out).rglob(f"{STORE}/*/*.json")):
        stored = read_json(path)
        if isinstance(stored, dict) and isinstance(stored.get("seconds"), (int, float)):
            seconds.append(float(stored["seconds"]))
    return seconds
