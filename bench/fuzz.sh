#!/usr/bin/env bash
# The property tests at their full numbers of examples (tests/budgets.py; CI draws a few of each):
# the CLI fuzz of issue 11, the stored-record fuzz and the oracle's categories (issue 35; bench/oracle.py
# draws more of those). Long: run on a bench machine, not in CI.
# Usage: bench/fuzz.sh [pytest options]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
DESYR_TEST_BUDGET=full exec "$PY" -m pytest -q -p no:cacheprovider \
    tests/test_fuzz.py tests/test_trust_store.py tests/test_oracle_property.py "$@"
