"""How many examples a property test draws: a few in CI (``./dev test`` has 12 minutes on 2 cores for
everything), the full numbers with ``DESYR_TEST_BUDGET=full`` (bench/fuzz.sh).  Derandomized either
way: the same examples on every run (a larger budget draws others too, not only more of them)."""
from __future__ import annotations

import os

FULL = os.environ.get("DESYR_TEST_BUDGET", "") == "full"


def examples(ci: int, full: int) -> int:
    """``ci`` examples in the test suite, ``full`` under ``DESYR_TEST_BUDGET=full``."""
    return full if FULL else ci
