"""The jobserver of a parallel ``desyr bench`` (like GNU make's): the bench's cores, as tokens its children share.

A bench that runs several jobs at once on W local workers makes W *tokens*: files in a private
directory, each taken by an exclusive ``flock``. Each job holds one token while its child ``desyr run``
runs, and the child learns the directory from the environment variable :data:`ENV`. The child's
executor, if it declares ``jobserver = True``, runs a map's units side by side only on tokens it can
*borrow* without waiting, and gives them back as soon as that map ends; with none free its units run
one after the other, as on the in-process executor. So while one long job is left, its units spread
over the cores the finished jobs gave back, and the bench never runs more than W things at once.

A lock belongs to its open file: a process that dies, however it dies, gives its tokens back, and a
held token is never borrowed, not even through another descriptor in the same process. Where there is
no ``fcntl`` (Windows) there is no jobserver: the bench runs its children's units in process.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: where a bench tells its children the token directory; absent outside a bench
ENV = "DESYR_JOBSERVER"
_PREFIX = "token-"
#: seconds between tries of a job waiting for a token (a borrowed one comes back when its map ends)
_POLL = 0.05


def available() -> bool:
    """Whether this platform has the locks tokens are made of."""
    try:
        import fcntl  # noqa: F401
    except ImportError:  # pragma: no cover - not POSIX
        return False
    return True


class Tokens:
    """The bench's side: ``count`` tokens in a fresh private directory for the ``with`` block."""

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError(f"a jobserver needs at least one token, got {count}")
        self.count = count
        self.path = ""

    def __enter__(self) -> Tokens:
        self.path = tempfile.mkdtemp(prefix="desyr-jobs-")       # 0700: nobody else takes our cores
        for i in range(self.count):
            with open(os.path.join(self.path, f"{_PREFIX}{i}"), "x", encoding="ascii"):
                pass
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def jobserver_path() -> str | None:
    """The token directory this process's bench handed it, or None outside a bench."""
    return os.environ.get(ENV) or None


def _token_files(path: str) -> list[str]:
    try:
        names = sorted(n for n in os.listdir(path) if n.startswith(_PREFIX))
    except OSError:                  # gone or unreadable: no tokens, so nothing runs beside this job
        return []
    return [os.path.join(path, n) for n in names]


def _take(file: str) -> int | None:
    """A descriptor holding ``file``'s lock, or None if it is held elsewhere (or cannot be opened)."""
    import fcntl

    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _take_free(path: str, wanted: int) -> list[int]:
    held: list[int] = []
    for file in _token_files(path):
        if len(held) >= wanted:
            break
        fd = _take(file)
        if fd is not None:
            held.append(fd)
    return held


def _give_back(held: list[int]) -> None:
    for fd in held:
        os.close(fd)                 # closing the descriptor drops its lock


@contextmanager
def borrowed_tokens(wanted: int, path: str | None = None) -> Iterator[int]:
    """Up to ``wanted`` tokens of the jobserver at ``path`` (default: this process's, :func:`jobserver_path`),
    taken without waiting and held for the ``with`` block; yields how many were free (0 without a
    jobserver)."""
    path = path if path is not None else jobserver_path()
    held = _take_free(path, wanted) if path and wanted > 0 and available() else []
    try:
        yield len(held)
    finally:
        _give_back(held)


@contextmanager
def holding(path: str) -> Iterator[None]:
    """One token of the jobserver at ``path`` for the ``with`` block, waiting for one to be free (a job
    waits for the tokens a running child borrowed to come back at the end of its map)."""
    held = _take_free(path, 1)
    while not held:
        if not _token_files(path):
            raise RuntimeError(f"the jobserver at {path} has no tokens")
        time.sleep(_POLL)
        held = _take_free(path, 1)
    try:
        yield
    finally:
        _give_back(held)
