"""How many examples a property test draws: a few in CI (``./dev test`` has 12 minutes on 2 cores for
everything), the full numbers with ``DESYR_TEST_BUDGET=full`` (bench/fuzz.sh).  Derandomized either
way: the same examples on every run (a larger budget draws others too, not only more of them)."""
from __future__ import annotations

import os

FULL = os.environ.get("DESYR_TEST_BUDGET", "") == "full"


def full_only(why: str):  # type: ignore[no-untyped-def]
    """A mark for a test whose case another test of the suite covers in part: it runs under
    ``DESYR_TEST_BUDGET=full`` (bench/fuzz.sh), and ``./dev test`` shows it skipped with ``why``."""
    import pytest
    return pytest.mark.skipif(not FULL, reason=f"DESYR_TEST_BUDGET=full only: {why}")


def examples(ci: int, full: int) -> int:
    """``ci`` examples in the test suite, ``full`` under ``DESYR_TEST_BUDGET=full``."""
    return full if FULL else ci
