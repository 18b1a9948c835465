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

DeSyR clears only its own files, and only in a folder its ``key.json`` marks as a store: a
``store`` folder someone else made, or a symbolic link, is refused, never emptied.  A record
read back is untrusted data: one of the wrong shape (:func:`stored_field`, :func:`check_depth`)
is a cache miss, and the unit is computed again.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desyr._version import __version__
from desyr.errors import ConfigError
from desyr.model.frozen import thawed
from desyr.runtime.atomic import read_json, write_json_atomic

if TYPE_CHECKING:  # pragma: no cover
    from desyr.config.spec import RunSpec

STORE = "store"
KINDS = ("search", "refit")


def store_key(config_sha256: str, seed: int, components: dict[str, Any]) -> str:
    """What a stored unit depends on, besides its own inputs (which its name hashes)."""
    text = json.dumps({"config": config_sha256, "seed": int(seed), "desyr": __version__, "components": components},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def config_hash(spec: RunSpec) -> str:
    """The identity of the config a run used (the run store's key, ``provenance.config_sha256``).

    The problem and its sections as written; a spec that escalation derived adds the settings it
    changed, so each attempt's result names its own config while an unchanged spec keeps the
    identity of its file. Where units run never changes what a run finds, so ``[execution]``
    is not part of it."""
    problem = spec.problem
    # thawed: the identity is the repr of the tables as written, the same as before the problem was frozen
    written = {k: thawed(v) for k, v in problem.sections.items() if k != "execution"}
    identity: tuple[Any, ...] = (problem.name, problem.source, [e.text for e in problem.equations],
                                 [(c.label, str(c.value)) for c in problem.constraints], thawed(problem.points),
                                 written)
    shaped: list[Any] = [problem.geometry.text] if problem.geometry is not None else []
    shaped += [(c.label, c.kind, c.shift, [s.describe() for s in c.faces]) for c in problem.constraints
               if c.kind != "pointwise" or any(not hasattr(s, "fixed") for s in c.faces)]
    if shaped:      # a box's pointwise constraints keep the identity their configs always had
        identity = (*identity, shaped)
    if problem.parameters or problem.unknowns:
        obs = problem.observations
        identity = (*identity, [(v.name, v.lo, v.hi) for v in problem.variables], problem.unknowns,
                    None if obs is None else (obs.origin, obs.noise, hashlib.sha256(obs.values.tobytes()).hexdigest()))
    derived = {name: table for name, table in _settings(spec).items()
               if name != "execution" and table != thawed(spec.written[name])}
    if derived:
        identity = (*identity, derived)
    return hashlib.sha256(repr(identity).encode("utf-8")).hexdigest()


def _settings(spec: RunSpec) -> dict[str, dict[str, Any]]:
    """The spec's settings as plain tables, in the order ``read_spec`` wrote them."""
    return {name: {f.name: thawed(getattr(getattr(spec, name), f.name)) for f in fields(getattr(spec, name))}
            for name in spec.written}


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
        _check_folders(self.root)
        stored = read_json(self.root / "key.json")
        if not resume or not isinstance(stored, dict) or stored.get("key") != key:
            if resume and self.root.exists():
                self.note = "the run store belongs to another config, seed, version or component setting; not reused"
            # a fresh run starts from an empty store: stale records must not even look reusable
            _clear(self.root)
        self.root.mkdir(parents=True, exist_ok=True)
        # the key first: a store with records always says whose they are (and that desyr wrote it)
        write_json_atomic(self.root / "key.json", {"key": key, "covers": covers})
        for kind in KINDS:
            (self.root / kind).mkdir(exist_ok=True)

    def path(self, kind: str, name: str) -> Path:
        return self.root / kind / f"{name}.json"

    def read(self, kind: str, name: str) -> tuple[dict[str, Any] | None, str | None]:
        """A finished unit's record, or None with why not (None: no record at all)."""
        path = self.path(kind, name)
        if not os.path.lexists(path):
            return None, None
        stored = read_json(path)
        if not isinstance(stored, dict):
            return None, "not a readable JSON object"
        if stored.get("key") != self.key:
            return None, "written for another store key"
        if not isinstance(stored.get("record"), dict):
            return None, "its record is not a JSON object"
        return stored["record"], None

    def get(self, kind: str, name: str) -> dict[str, Any] | None:
        """A finished unit's record, or None (missing, truncated, or of another key)."""
        return self.read(kind, name)[0]

    def put_teacher(self, record: dict[str, Any]) -> None:
        write_json_atomic(self.root / "teacher.json", {"key": self.key, "record": record})


def _check_folders(root: Path) -> None:
    """The store and its kind folders are real folders: records are written into them and
    stale ones removed from them, so a symbolic link would send both somewhere else."""
    for folder in (root, *(root / kind for kind in KINDS)):
        if folder.is_symlink():
            raise ConfigError(f"{folder} is a symbolic link; desyr keeps its run store in a real folder "
                              f"(remove the link or choose another --out)")
        if os.path.lexists(folder) and not folder.is_dir():
            raise ConfigError(f"{folder} exists and is not a folder; desyr keeps its run store there "
                              f"(move it away or choose another --out)")


def is_desyr_store(root: Path) -> bool:
    """Whether ``root`` holds the ``key.json`` desyr writes into every store it makes."""
    stored = read_json(root / "key.json")
    return (isinstance(stored, dict) and set(stored) == {"key", "covers"} and isinstance(stored["key"], str)
            and re.fullmatch(r"[0-9a-f]{64}", stored["key"]) is not None and isinstance(stored["covers"], dict))


def _clear(root: Path) -> None:
    """Remove the records of an old store. Only desyr's own files go, and only from a folder desyr
    marked as its store: a ``store`` folder someone else made is refused, never deleted."""
    if not root.exists():
        return
    if not is_desyr_store(root):
        if any(root.iterdir()):
            raise ConfigError(f"{root} exists but is not a desyr run store (no key.json written by desyr); "
                              f"desyr will not delete it: move it away or choose another --out")
        return
    # the records first, the key last: an interrupted clear still leaves a store marked as desyr's
    names = [p for kind in KINDS for p in (root / kind).glob("*.json")] + [root / "teacher.json", root / "key.json"]
    for path in names:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise ConfigError(f"cannot clear the run store {root}: {exc.strerror or exc}") from None


# ------------------------------------------------------------------ record shapes
#: deeper JSON than any record desyr writes; deeper still would overflow the stack later (json.dumps)
MAX_RECORD_DEPTH = 64
NUMBER = (int, float)


def check_depth(value: Any, limit: int = MAX_RECORD_DEPTH) -> None:
    """ValueError if ``value`` nests lists and objects deeper than ``limit`` (checked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise ValueError(f"nested deeper than {limit} levels")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def stored_field(record: Any, key: str, kinds: type | tuple[type, ...], *, nullable: bool = False,
                 missing_ok: bool = False) -> Any:
    """``record[key]`` if it is one of ``kinds`` (a bool is never a number here), else ValueError
    saying what is wrong: a stored record is untrusted data with the right key."""
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    if key not in record:
        if missing_ok:
            return None
        raise ValueError(f"'{key}' is missing")
    value = record[key]
    if value is None and nullable:
        return None
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(k.__name__ for k in kinds) + (" or null" if nullable else "")
        raise ValueError(f"'{key}' is {type(value).__name__}, not {names}")
    return value


def text_map(value: Any, fields: set[str], what: str) -> None:
    """``value`` maps exactly ``fields`` to expression text (an empty mapping is no expression)."""
    if not isinstance(value, dict) or not all(isinstance(t, str) for t in value.values()):
        raise ValueError(f"'{what}' is not a mapping of field to expression text")
    if value and set(value) != fields:
        raise ValueError(f"'{what}' has fields {sorted(value)}, not {sorted(fields)}")


def unit_seconds(out: str | Path) -> list[float]:
    """Seconds of every stored unit under ``out`` (a run folder or a bench folder), for the cost model."""
    seconds = []
    for path in sorted(Path(out).rglob(f"{STORE}/*/*.json")):
        stored = read_json(path)
        if isinstance(stored, dict) and isinstance(stored.get("seconds"), (int, float)):
            seconds.append(float(stored["seconds"]))
    return seconds
