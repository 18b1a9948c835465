"""Crash-safe files: atomic writes and a per-directory run lock.

``write_text_atomic`` / ``write_json_atomic`` / ``write_bytes_atomic`` write to a
temporary file in the same directory (a name unique to this process and call),
fsync it, and ``os.replace`` it over the target, so a reader sees either the old
file or the new one, never a truncated one, even if the process is killed.  The new
file gets the mode ``open()`` would give it (0666 less the umask, or the mode of the
file it replaces), never ``mkstemp``'s 0600.

``run_lock(out_dir)`` holds an exclusive, non-blocking ``fcntl.flock`` on
``out_dir/.desyr.lock`` for the duration of a ``with`` block; a second holder
(another process, or the same process again) gets a one-line
:class:`~desyr.errors.ConfigError`.  The kernel drops the lock when the holder
dies, so a crashed run never leaves a stale lock behind.  The lock file is never
followed through a symbolic link nor truncated: it may be someone else's file.

``out_lock`` adds the rule for a failed run: only an output folder the run created
and that holds nothing but DeSyR's empty skeleton is removed; finished units stay.
"""
from __future__ import annotations

import json
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from desyr.errors import ConfigError, DesyrError
from desyr.model.nesting import json_loads

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


def _temp_file(path: Path) -> tuple[int, str]:
    """A new temporary file next to ``path``, with the mode an ordinary ``open()`` would give the
    target: its current mode if it is a regular file, else 0666 less the umask (``mkstemp`` would
    make every result 0600)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.{os.getpid()}.tmp"
        try:
            fd = os.open(tmp, flags, 0o666)      # the kernel applies the umask, race-free
        except FileExistsError:
            continue
        try:
            existing = os.lstat(path)
            if stat.S_ISREG(existing.st_mode):
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))
        except OSError:
            pass
        return fd, str(tmp)
    raise FileExistsError(f"no free temporary name next to {path}")


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace ``path`` by ``data`` atomically (temp file in the same directory, fsync, rename)."""
    path = Path(path)
    fd, tmp = _temp_file(path)
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


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Replace ``path`` by ``text`` (UTF-8) atomically."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: str | os.PathLike[str], obj: Any, **dumps: Any) -> Path:
    """Replace ``path`` by ``obj`` as JSON (indent 2, trailing newline) atomically.

    The JSON is serialised completely before anything is written, so an object
    that cannot be serialised leaves the old file untouched.
    """
    options = {"indent": 2, **dumps}
    return write_text_atomic(path, json.dumps(obj, **options) + "\n")


def read_json(path: str | os.PathLike[str]) -> Any | None:
    """The JSON in ``path``, or None when it is missing, unreadable, truncated, not JSON, or nested
    too deeply to be one of DeSyR's files (:mod:`desyr.model.nesting`)."""
    try:
        return json_loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):     # NestingError is a ValueError
        return None


@contextmanager
def run_lock(out_dir: str | os.PathLike[str]) -> Iterator[Path]:
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
    fd, created = _open_lock(lock_path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ConfigError(f"another desyr run is using {out}") from None
        if created:   # the holder's pid, for people; only in a file this call made
            try:
                os.write(fd, f"{os.getpid()}\n".encode())
            except OSError:
                pass
        try:
            yield lock_path
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _open_lock(lock_path: Path) -> tuple[int, bool]:
    """The lock file's descriptor and whether this call created it.

    Never through a symbolic link (``O_NOFOLLOW``), never truncated (``O_TRUNC`` is not used:
    an existing lock file may be a hard link to someone's file), and only a regular file."""
    base = os.O_RDWR | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    created = True
    try:
        try:
            fd = os.open(lock_path, base | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            created = False
            fd = os.open(lock_path, base)
    except OSError as exc:
        if os.path.islink(lock_path):
            raise ConfigError(f"{lock_path} is a symbolic link; desyr does not follow it (remove it)") from None
        raise ConfigError(f"cannot lock output directory {lock_path.parent}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ConfigError(f"{lock_path} is not a regular file; desyr uses it as its lock (remove it)")
    return fd, created


@contextmanager
def out_lock(out: str | Path | None) -> Iterator[None]:
    """Two runs on one ``--out`` would overwrite each other: the second is refused.

    A run that fails leaves the finished units of its store for ``--resume``; only a folder this
    run created and that holds nothing but DeSyR's empty skeleton is removed again."""
    if out is None:
        yield
        return
    check_out_dir(out)
    created = not os.path.lexists(out)
    try:
        with run_lock(out):
            yield
    except DesyrError:
        if created:
            remove_skeleton(Path(out))
        raise


#: what DeSyR puts in a fresh ``--out`` before a unit finishes (the lock, the store's key and folders)
_SKELETON_FILES = (LOCK_NAME, "store/key.json", "store/teacher.json")
_SKELETON_DIRS = ("store/search", "store/refit", "store", "")


def remove_skeleton(out: Path) -> None:
    """Remove ``out`` if it holds only DeSyR's skeleton; anything else (a finished unit, a file
    someone put there) keeps it, and nothing but the skeleton's own names is ever removed."""
    if any(p.is_file() for sub in ("store/search", "store/refit") for p in (out / sub).glob("*.json")):
        return
    for name in _SKELETON_FILES:
        try:
            (out / name).unlink()
        except OSError:
            pass
    for name in _SKELETON_DIRS:
        try:
            (out / name).rmdir()        # only empty folders
        except OSError:
            pass


def check_out_dir(out: str | Path) -> None:
    """``--out`` must be a folder we can write (or create), checked before any work and
    without creating anything: a config error must leave no folder behind."""
    if not str(out).strip():
        raise ConfigError("--out is empty; name a folder (--out . for the current one)")
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a folder")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"--out {out}: cannot write in {existing}")
