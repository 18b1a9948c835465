"""The child processes of ``desyr bench``: isolated from the working directory, and never orphaned.

Children are started as ``python -P -m desyr run ...`` (``-P``: the working
directory is not put on ``sys.path``; ``PYTHONPATH`` set by the user is kept,
minus empty entries, which would mean the working directory).  Each child gets
its own process group, and on Linux ``PR_SET_PDEATHSIG``: a killed bench takes
its child with it, and SIGTERM/SIGINT of the bench kill the child's whole group.
"""
from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, Literal, NoReturn


def child_command(spec: str, seed: int, where: Path, out: Path, extra: tuple[str, ...] = ()) -> list[str]:
    """``desyr run`` in a fresh interpreter that does not import from the working directory.

    ``--resume``: a run interrupted inside (killed bench, lost worker) reuses its finished units;
    the run store's key makes sure they belong to this very config, seed and version."""
    args = ["run", spec, "--seed", str(seed), "--out", str(where), "--cache-dir", str(out / "cache"), "--quiet",
            "--resume", *extra]
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-m", "desyr", *args]
    boot = ("import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
            "from desyr.cli.main import entry; entry()")
    return [sys.executable, "-c", boot, *args]


def child_env(jobs: str | None = None) -> dict[str, str]:
    """This process's environment for a child, with ``jobs`` as its bench's jobserver; without, the child
    gets none, not even one this process was handed (it holds none of that jobserver's tokens)."""
    from desyr.runtime.jobserver import ENV

    env = dict(os.environ)
    env.pop(ENV, None)
    if jobs:
        env[ENV] = jobs
    if "PYTHONPATH" in env:
        parts = [p for p in env["PYTHONPATH"].split(os.pathsep) if p and p != "."]
        if parts:
            env["PYTHONPATH"] = os.pathsep.join(parts)
        else:
            del env["PYTHONPATH"]
    env.pop("PYTHONSTARTUP", None)
    return env


def _die_with_parent(parent: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGKILL the child when the bench dies."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:
        prctl(1, int(signal.SIGKILL), 0, 0, 0)     # PR_SET_PDEATHSIG
        if os.getppid() != parent:                  # the bench died before prctl took effect
            os._exit(1)
    return preexec


class _Children:
    """The running child, so signal handlers can kill its process group."""

    current: subprocess.Popen[str] | None = None

    @classmethod
    def kill(cls) -> None:
        proc = cls.current
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                try:
                    proc.kill()
                except OSError:
                    pass


def _on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    _Children.kill()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


class kill_children_on_signals:
    """SIGTERM/SIGINT (and SIGHUP) kill the child's group before the bench exits."""

    SIGNALS = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGINT", None),
                           getattr(signal, "SIGHUP", None)) if s is not None]

    def __enter__(self) -> kill_children_on_signals:
        self.saved: dict[int, Any] = {}
        for sig in self.SIGNALS:
            try:
                self.saved[sig] = signal.signal(sig, _on_signal)
            except (ValueError, OSError):   # not the main thread
                pass
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)
        _Children.kill()
        return False


def run_child(cmd: list[str], timeout: float, jobs: str | None = None) -> tuple[bool, list[str]]:
    """Run one bench child to its end (or ``timeout`` seconds, then its whole group is killed): whether it
    succeeded, and the last lines of its standard error."""
    popen: dict[str, Any] = dict(stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, errors="replace", env=child_env(jobs), start_new_session=True)
    preexec = _die_with_parent(os.getpid())
    if preexec is not None:
        popen["preexec_fn"] = preexec
    try:
        proc = subprocess.Popen(cmd, **popen)
    except OSError as exc:
        return False, [f"could not start the run: {exc}"]
    _Children.current = proc
    try:
        try:
            # inf means no limit (communicate() cannot wait for an infinite number of milliseconds)
            _, stderr = proc.communicate(timeout=timeout if math.isfinite(timeout) else None)
        except subprocess.TimeoutExpired:
            _Children.kill()
            proc.communicate()
            return False, [f"timed out after {timeout:.0f} s"]
    finally:
        _Children.kill()            # whatever the child left in its group
        _Children.current = None
    return proc.returncode == 0, (stderr or "").strip().splitlines()[-5:] or [f"exit status {proc.returncode}"]
