"""One warm verifier per test process, forked once per request (tests/conftest.py installs it).

A run's verifier is a fresh ``python -I`` process (desyr/verify/child.py) that spends most of its
time importing and warming up SymPy (about 0.8 of its 0.9 s of CPU for a small verdict).  The test
suite asks for hundreds of verdicts, so here one such process is started the same way (the same
command and environment: nothing of the test process reaches it), warms up once, and then forks a
child for each request.  Each verdict still comes from a process of its own that answers exactly
one request, as :func:`desyr.verify.__main__.main` does in a run; only the imports are shared.
The real start-up path stays tested: ``desyr`` subprocesses, bench children and the tests that use
the ``real_verifier`` fixture go through :func:`desyr.verify.child._started` itself.
"""
from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import threading
import time

import desyr.verify.child as child

#: runs in the ``python -I`` process: warm up, then fork one verifier per received set of pipes
_SERVE = r"""
import os, signal, socket, sys
sys.path.insert(0, sys.argv[1])
import desyr.verify.__main__ as verifier
verifier._warm_up()
control = socket.socket(fileno=int(sys.argv[2]))


def reap(*_):       # at once, and by waiting, so that the forks' CPU time is counted as a started verifier's is
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


signal.signal(signal.SIGCHLD, reap)
while True:
    try:
        _, fds, _, _ = socket.recv_fds(control, 16, 4)
    except OSError:
        break
    if len(fds) != 4:
        break
    pid = os.fork()
    if pid == 0:
        control.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        code = 70
        try:
            code = verifier.main()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.write(fds[3], str(code).encode())
            os._exit(code)
    for fd in fds:
        os.close(fd)
    control.sendall(pid.to_bytes(8, "big"))
signal.signal(signal.SIGCHLD, signal.SIG_DFL)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
"""


class ForkedVerifier:
    """The part of :class:`subprocess.Popen` that desyr.verify.child uses, for one forked verifier."""

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int, status: int) -> None:
        self.pid, self.returncode = pid, None
        self.stdin = os.fdopen(stdin, "w", encoding="utf-8")
        self._received = {stdout: bytearray(), stderr: bytearray()}
        self._open = {stdout, stderr}          # until each reaches its end
        self._stdout, self._stderr, self._status = stdout, stderr, status
        self._answer: tuple[str, str] | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            with selectors.DefaultSelector() as sel:
                sel.register(self._status, selectors.EVENT_READ)
                if sel.select(0):
                    self._finish()
        return self.returncode

    def _finish(self) -> None:
        text = os.read(self._status, 16)      # written just before the fork exits; nothing when it was killed
        os.close(self._status)
        self.returncode = int(text) if text else -signal.SIGKILL

    def communicate(self, input: str | None = None, timeout: float | None = None) -> tuple[str, str]:
        if self._answer is not None:
            return self._answer
        try:
            if input:
                self.stdin.write(input)
            self.stdin.close()
        except BrokenPipeError:         # it has answered (or died) already
            pass
        deadline = None if timeout is None else time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            for fd in self._open:
                sel.register(fd, selectors.EVENT_READ)
            while sel.get_map():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise subprocess.TimeoutExpired(["verifier"], timeout or 0.0)
                for key, _ in sel.select(left):
                    chunk = os.read(key.fd, 65536)
                    if chunk:
                        self._received[key.fd] += chunk
                    else:
                        sel.unregister(key.fd)
                        os.close(key.fd)
                        self._open.discard(key.fd)
        if self.returncode is None:
            self._finish()
        self._answer = (self._received[self._stdout].decode("utf-8", "replace"),
                        self._received[self._stderr].decode("utf-8", "replace"))
        return self._answer

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def wait(self, timeout: float | None = None) -> int:
        self.communicate(timeout)
        assert self.returncode is not None
        return self.returncode


class VerifierForks:
    """The warm process and its control socket; :meth:`started` stands in for ``child._started``."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        self._owner = os.getpid()
        self._lock = threading.Lock()
        command = child.verifier_command()
        serve = [command[0], "-I", "-c", _SERVE, command[-1], str(theirs.fileno())]
        self._process = subprocess.Popen(serve, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, env=child.verifier_env(),
                                         pass_fds=[theirs.fileno()], cwd=os.path.dirname(child.__file__))
        theirs.close()
        self._control = ours

    def started(self, spare: bool = False) -> subprocess.Popen[str] | ForkedVerifier:
        """``spare``: started ahead of its request (a run starts those at a lower priority; a fork keeps the
        warm process's, which is the test's own)."""
        # a fork of the test process (a process pool's worker) must not share the control socket
        if os.getpid() != self._owner or self._process.poll() is not None:
            return REAL_STARTED(spare)
        pipes = [os.pipe() for _ in range(4)]            # stdin, stdout, stderr, exit status
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][1]]
        try:
            with self._lock:
                socket.send_fds(self._control, [b"f"], theirs)
                pid = int.from_bytes(_receive(self._control, 8), "big")
        except OSError:
            for fd in sum(pipes, ()):
                os.close(fd)
            return REAL_STARTED(spare)
        for fd in theirs:
            os.close(fd)
        return ForkedVerifier(pid, pipes[0][1], pipes[1][0], pipes[2][0], pipes[3][0])

    def close(self) -> None:
        """End the warm process once its forks have answered (a fork still waiting for a request is
        waited for only briefly: a spare nobody asked)."""
        self._control.close()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def _receive(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise OSError("the warm verifier has gone")
        data += chunk
    return data


REAL_STARTED = child._started
