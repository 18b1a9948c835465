"""Progress output on stderr: a live bar on terminals, tqdm's bars in a Jupyter kernel, quiet otherwise."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class Progress:
    """Stage messages always go to the stream; live bars when it is a TTY, or as tqdm bars
    (``tqdm.auto``: a widget where ipywidgets is installed) when this process is a Jupyter kernel."""

    def __init__(self, stream: TextIO | None = None, verbose: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.verbose = verbose
        self._bar_open = False
        self._tqdm: dict[str, Any] = {}

    # A stream (or a tqdm bar) does not pickle; a progress sent to a worker process writes to that
    # worker's stderr.
    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "stream": None, "_tqdm": {}}

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
        """One update of a live bar; silent unless the stream is a terminal or this is a notebook."""
        if self.verbose and not self.interactive and in_notebook() and _tqdm_bar(self, label, done, total, fields):
            return
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


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (IPython's ZMQ shell)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def _tqdm_bar(progress: Progress, label: str, done: int, total: int, fields: dict[str, object]) -> bool:
    """Update (or open) the tqdm bar of ``label``; False without tqdm. Without ipywidgets tqdm's widget
    cannot show (tqdm.auto would warn and fall back), so the text bar is used there directly."""
    try:
        import importlib.util

        if importlib.util.find_spec("ipywidgets") is not None:
            from tqdm.auto import tqdm  # type: ignore[import-untyped, import-not-found, unused-ignore]
        else:
            from tqdm import tqdm  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return False
    bar = progress._tqdm.get(label)
    if bar is None:
        bar = progress._tqdm[label] = tqdm(total=total, desc=f"[desyr] {label}", leave=True)
    bar.total = total
    bar.n = done
    bar.set_postfix({k: _fmt(v) for k, v in fields.items()}, refresh=False)
    bar.refresh()
    if done >= total:
        bar.close()
        del progress._tqdm[label]
    return True


def _fmt(value: object) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start
