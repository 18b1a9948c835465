"""Running the verifier in a child process that no plugin of the run can reach.

The child is ``python -I`` (no user site, no ``PYTHON*`` variables, no working directory on
``sys.path``) with an environment of a few named variables, and imports desyr from the same
place as this process.  Its only input is the request on standard input; its only output,
the verdict on standard output.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from desyr.errors import DesyrError
from desyr.runtime.spare import Spare, ahead, ask
from desyr.verify.budget import BOUND

#: the only variables the child inherits: BLAS pinned to one thread, and the OpenBLAS core
#: settings some machines need for correct results
PASSED = ("PATH", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "LANG", "LC_ALL", "TMPDIR")
PINNED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
#: how long the run (and ``desyr verify``) waits: the verifier's own bound, and its start (a cold process
#: imports SymPy and NumPy) under load
START = 30.0
TIMEOUT = BOUND + START
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from desyr.verify.__main__ import serve; serve()")


class VerifierError(DesyrError):
    """The verifier did not give a verdict (bad request, crash or time-out)."""


def verifier_command(spare: bool = False) -> list[str]:
    """``python -I`` running :mod:`desyr.verify` from this desyr's own location; a ``spare`` started
    ahead of its request at a lower priority (:func:`desyr.runtime.spare.ahead`)."""
    root = Path(__file__).resolve().parent.parent.parent
    return [sys.executable, "-I", "-c", ahead(_BOOT) if spare else _BOOT, str(root)]


def verifier_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in PASSED if k in os.environ}
    return {**env, **PINNED}


def _started(spare: bool = False) -> subprocess.Popen[str]:
    return subprocess.Popen(verifier_command(spare), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=verifier_env(), cwd=Path(__file__).parent)


#: a verifier started ahead of its request (:func:`start_verifier`); each process answers one request
VERIFIER = Spare(lambda: _started(spare=True))


def start_verifier() -> None:
    """Start the next request's verifier now: its imports (about a second) then overlap the run's own
    work instead of following it. The process is the same one :func:`request_verdict` would start (which
    starts one, and reports the failure, when this could not)."""
    VERIFIER.start()


def request_verdict(request: Mapping[str, Any], timeout: float = TIMEOUT,
                    meanwhile: Callable[[], None] | None = None) -> dict[str, Any]:
    """The verdict of a separate verifier process for ``request``; VerifierError when there is none.
    ``meanwhile`` runs in this process while the verifier works (the run draws its figures then)."""
    process = VERIFIER.take()
    # One line: a forked child of this process may hold the pipe open, so the verifier must not wait
    # for the end of its input (JSON without indentation has no newline).
    line = json.dumps(request, allow_nan=False) + "\n"
    try:
        process = process or _started()
        out, err = ask(process, line, timeout, meanwhile)
    except subprocess.TimeoutExpired:
        raise VerifierError(f"the verifier gave no verdict within {timeout:g} s") from None
    except (OSError, ValueError) as exc:
        raise VerifierError(f"the verifier could not be started: {exc}") from None
    if process.returncode != 0:
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        last = lines[-1] if lines else f"exit status {process.returncode}"
        raise VerifierError(last.removeprefix("desyr: error: "))
    return checked_verdict(out)


def checked_verdict(text: str) -> dict[str, Any]:
    """The verdict JSON, held to its schema before anything is written from it."""
    from desyr.verify.verdict import SCHEMA, VERDICTS

    try:
        verdict = json.loads(text)
    except ValueError:
        raise VerifierError("the verifier printed no verdict") from None
    if (not isinstance(verdict, dict) or verdict.get("schema") != SCHEMA or verdict.get("verdict") not in VERDICTS
            or verdict.get("exact") is not (verdict["verdict"] != "not_exact")):
        raise VerifierError("the verifier's answer does not have the verdict schema")
    return verdict
