"""The verifier's time bound: every verdict within :data:`BOUND` seconds of wall time (``docs/verify.md``,
"Bounded time").

SymPy's differentiation, its simplification, interval arithmetic and quadrature can each run for minutes
on a large formula or a high derivative (a 14th-order equation ran past 180 s).  So each part of a verdict
has a share of the bound, enforced by :func:`desyr.symbolic.time_limit.time_limit`, and what a part that
runs out of time means is decided where it is asked:

- the **residuals** on the fresh points (with the derivatives they need): without them there is no
  evidence, so Not exact, "could not be evaluated within ...";
- the **smoothness** and branch conditions: not shown, so Not exact (a kink must not pass unseen);
- the **proof**, the **printed formula**'s bound: not proved, so Verified at best;
- an inverse problem's **data** test: not shown consistent, so Not exact.

The shares add up to less than the bound; whatever a part leaves is not passed on (each part's limit is
also cut to what is left of the whole). Reading the problem is not a part: the config loader is bounded
on its own (the parser's limits), and the verdict's whole time is also held by an enclosing limit, which
turns into one ``desyr: error:`` line should anything outside the parts run past it.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from desyr.symbolic.time_limit import OutOfTime, time_limit

T = TypeVar("T")

#: seconds of wall time within which the verifier answers (its process start aside)
BOUND = 120.0
#: each part's share of the bound, in seconds
SHARES = {"reading": 15.0, "smoothness": 20.0, "residuals": 25.0, "precision": 10.0, "exact residuals": 10.0,
          "proof": 20.0, "printed": 10.0, "data": 5.0}
#: kept back for what follows the parts (the answer's JSON)
RESERVE = 3.0


class Budget:
    """The time left to one verdict, and each part's limit within it."""

    def __init__(self, bound: float = BOUND) -> None:
        self.bound = bound
        self.start = time.monotonic()

    def left(self) -> float:
        return self.bound - RESERVE - (time.monotonic() - self.start)

    def seconds(self, part: str) -> float:
        """The most ``part`` may take now: its share, or what is left, whichever is less."""
        return max(min(SHARES[part], self.left()), 0.01)

    def within(self, part: str, work: Callable[[], T], late: Callable[[str], T]) -> T:
        """``work()`` within ``part``'s limit; ``late(why)`` when it runs out (``why`` says so, in words)."""
        seconds = self.seconds(part)
        try:
            with time_limit(seconds):
                return work()
        except OutOfTime:
            return late(f"not finished within its {seconds:.3g} s of the verifier's time bound ({self.bound:g} s)")

    def whole(self) -> time_limit:
        """The enclosing limit of the whole verdict."""
        return time_limit(self.bound - RESERVE / 2)
