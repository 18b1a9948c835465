"""Drawing a run's figures in a spare process started with the command.

Importing matplotlib and drawing a first figure take about a second, longer than the verifier
needs to check an answer of the exact solvers. A process started with the command
(:func:`start_drawer`) does that import while the run works, then draws the plans it is sent
while the verifier checks the result. It runs the run's own code on the run's own data (it is
not a trust boundary, unlike the verifier), so the plans travel as a pickle. Each spare draws
one request; without one, or if it fails, the figures are drawn in this process, the same.
"""
from __future__ import annotations

import importlib.util
import os
import pickle
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from desyr.report.figures import FigurePlan, FigureRecord, draw_plans
from desyr.runtime.spare import Spare, ahead, ask, leave_now

#: a run's few figures take a second or two; past this the spare is killed and they are drawn here
TIMEOUT = 30.0
#: ``python -c`` puts the working directory first on sys.path: a numpy.py there would be imported
#: (``desyr bench`` children likewise run with ``-P``); the drawer takes desyr from where this one is
_BOOT = ("import sys; sys.path[:] = [sys.argv[1]] + [p for p in sys.path if p not in ('', '.')]; "
         "from desyr.report.drawer import serve; serve()")


def _launch() -> subprocess.Popen[bytes]:
    root = str(Path(__file__).resolve().parent.parent.parent)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    return subprocess.Popen([sys.executable, "-c", ahead(_BOOT), root], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)


#: the drawer started ahead of the next figures (:func:`start_drawer`)
DRAWER = Spare(_launch)


def start_drawer() -> None:
    """Start the process that will draw the next figures (nothing without matplotlib)."""
    if importlib.util.find_spec("matplotlib") is not None:
        DRAWER.start()


def draw(plans: Sequence[FigurePlan], seconds: float | None = None) -> list[FigureRecord]:
    """The plans drawn by the spare when one is running, else here; the same records either way.
    ``seconds``: at most this long for the spare (a run's budget), and no figure rather than a second
    try here when it runs out."""
    process = DRAWER.take()
    if process is None or not plans:
        return draw_plans(plans)
    try:
        out, _ = ask(process, pickle.dumps(list(plans)), TIMEOUT if seconds is None else min(seconds, TIMEOUT))
        records = pickle.loads(out)
        if process.returncode == 0 and isinstance(records, list) and all(
                isinstance(r, FigureRecord) for r in records):
            return records
    except subprocess.TimeoutExpired:       # killed already
        pass
    except (OSError, ValueError, EOFError, pickle.UnpicklingError):
        process.kill()
        process.communicate()
    return draw_plans(plans) if seconds is None else []


def serve() -> NoReturn:
    """The spare's side: import and warm matplotlib, then draw the one request on standard input,
    and leave at once (:func:`desyr.runtime.spare.leave_now`)."""
    from desyr.report.figures import warm_up

    warm_up()
    plans = pickle.load(sys.stdin.buffer)      # stops at the pickle's end: no need for end of input
    sys.stdout.buffer.write(pickle.dumps(draw_plans(plans)))
    leave_now(0)
