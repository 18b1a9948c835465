"""A cost model for executors: predicted wall time from unit counts and measured unit times.

Units are independent, so with ``w`` workers the wall time of a batch is the makespan of
scheduling its units on ``w`` machines.  Executors hand units out as workers free up, which
is list scheduling; the prediction uses the longest-processing-time-first order (LPT), whose
makespan is within 4/3 of the optimum, plus a fixed start-up cost per worker round (process
start, imports) and the serial part of the run (teacher, gates, verification).
"""
from __future__ import annotations

import heapq
from collections.abc import Sequence


def lpt_makespan(unit_seconds: Sequence[float], workers: int) -> float:
    """Makespan of LPT scheduling of ``unit_seconds`` on ``workers`` identical workers."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    loads = [0.0] * min(workers, max(1, len(unit_seconds)))
    heapq.heapify(loads)
    for seconds in sorted(unit_seconds, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + float(seconds))
    return max(loads)


def predict_wall_time(unit_seconds: Sequence[float], workers: int, serial_seconds: float = 0.0,
                      startup_seconds: float = 0.0) -> float:
    """Predicted wall time: the serial part, worker start-up (once, in parallel), then the units."""
    parallel = lpt_makespan(unit_seconds, workers)
    return serial_seconds + (startup_seconds if workers > 1 else 0.0) + parallel


def speedup_table(unit_seconds: Sequence[float], workers: Sequence[int], serial_seconds: float = 0.0,
                  startup_seconds: float = 0.0) -> list[tuple[int, float, float]]:
    """``(workers, predicted seconds, speed-up over one worker)`` rows."""
    one = predict_wall_time(unit_seconds, 1, serial_seconds)
    rows = []
    for w in workers:
        t = predict_wall_time(unit_seconds, w, serial_seconds, startup_seconds)
        rows.append((w, t, one / t if t > 0 else 1.0))
    return rows
