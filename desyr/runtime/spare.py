"""Spare processes started ahead of their one request (the verifier, the figure drawer)."""
from __future__ import annotations

import subprocess
from typing import Any


def stop_spare(process: subprocess.Popen[Any] | None) -> None:
    """End a spare that was never asked (registered with atexit: the command is leaving)."""
    if process is not None and process.poll() is None:
        process.kill()
        process.communicate()
