"""Progress output on stderr: a live bar on terminals, quiet otherwise."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class Progress:
    """Stage messages always go to the stream; live bars only when it is a TTY."""

    def __init__(self, stream: TextIO | None = None, verbose: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.verbose = verbose
        self._bar_open = False

    # A stream does not pickle; a progress sent to a worker process writes to that worker's stderr.
    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "stream": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.stream = sys.stderr

    @property
    def interactive(self) -> bool:
        return bool(getattr(self.stream, "isatty", lambda: False)())

    def message(self, text: str) -> None:
        if not self.verbose:
            return
        self._close_bar()
        print(f"[desyr] {text}", file=self.stream, flush=True)

    def warning(self, text: str) -> None:
        """One ``desyr: warning:`` line, shown even when quiet (like the command line's own warnings)."""
        self._close_bar()
        print(f"desyr: warning: {text}", file=self.stream, flush=True)

    def bar(self, label: str, done: int, total: int, **fields: object) -> None:
        """One update of a live bar; silent unless the stream is a terminal."""
        if not (self.verbose and self.interactive):
            return
        width = 24
        filled = int(width * done / max(total, 1))
        extras = "  ".join(f"{k}={_fmt(v)}" for k, v in fields.items())
        line = f"\r[desyr] {label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}  {extras}"
        self.stream.write(line[:160].ljust(100))
        self.stream.flush()
        self._bar_open = True

    def _close_bar(self) -> None:
        if self._bar_open:
            self.stream.write("\n")
            self._bar_open = False


def _fmt(value: object) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start
