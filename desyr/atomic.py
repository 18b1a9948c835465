"""Crash-safe files: atomic writes and a per-directory run lock.

``write_text_atomic`` / ``write_json_atomic`` / ``write_bytes_atomic`` write to a
temporary file in the same directory (a name unique to this process and call),
fsync it, and ``os.replace`` it over the target, so a reader sees either the old
file or the new one, never a truncated one, even if the process is killed.

``run_lock(out_dir)`` holds an exclusive, non-blocking ``fcntl.flock`` on
``out_dir/.desyr.lock`` for the duration of a ``with`` block; a second holder
(another process, or the same process again) gets a one-line
:class:`~desyr.errors.ConfigError`.  The kernel drops the lock when the holder
dies, so a crashed run never leaves a stale lock behind.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from desyr.errors import ConfigError, DesyrError
from desyr.nesting import json_loads

__all__ = ["LOCK_NAME", "read_json", "run_lock", "write_bytes_atomic", "write_json_atomic", "write_text_atomic"]

LOCK_NAME = ".desyr.lock"


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Replace ``path`` by ``data`` atomically (temp file in the same directory, fsync, rename)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=f".{os.getpid()}.tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)
    return path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Replace ``path`` by ``text`` (UTF-8) atomically."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: str | os.PathLike, obj: Any, **dumps: Any) -> Path:
    """Replace ``path`` by ``obj`` as JSON (indent 2, trailing newline) atomically.

    The JSON is serialised completely before anything is written, so an object
    that cannot be serialised leaves the old file untouched.
    """
    options = {"indent": 2, **dumps}
    return write_text_atomic(path, json.dumps(obj, **options) + "\n")


def read_json(path: str | os.PathLike) -> Any | None:
    """The JSON in ``path``, or None when it is missing, unreadable, truncated, not JSON, or nested
    too deeply to be one of DeSyR's files (:mod:`desyr.nesting`)."""
    try:
        return json_loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):     # NestingError is a ValueError
        return None


@contextmanager
def run_lock(out_dir: str | os.PathLike) -> Iterator[Path]:
    """Exclusive use of ``out_dir`` (created if needed) for the ``with`` block.

    Raises :class:`ConfigError` "another desyr run is using OUT" when the lock
    is held elsewhere.  On systems without ``fcntl`` the lock is a no-op.
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create output directory {out}: {exc.strerror or exc}") from None
    lock_path = out / LOCK_NAME
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield lock_path
        return
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ConfigError(f"cannot lock output directory {out}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ConfigError(f"another desyr run is using {out}") from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass
        try:
            yield lock_path
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def out_lock(out: str | Path | None) -> Iterator[None]:
    """Two runs on one ``--out`` would overwrite each other: the second is refused."""
    if out is None:
        yield
        return
    check_out_dir(out)
    created = not Path(out).exists()
    try:
        with run_lock(out):
            yield
    except DesyrError:
        if created:   # a run refused before it produced anything leaves no folder behind
            shutil.rmtree(out, ignore_errors=True)
        raise


def check_out_dir(out: str | Path) -> None:
    """``--out`` must be a folder we can write (or create), checked before any work and
    without creating anything: a config error must leave no folder behind."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a folder")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"--out {out}: cannot write in {existing}")
