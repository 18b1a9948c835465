#!/usr/bin/env bash
# Full studies (paper §5.3-5.4, Appendix C). Long: run on a bench machine, not in CI.
# Usage: bench/studies.sh OUT   (OUT/bench: the archived runs; OUT/studies/<name>: the outputs)
set -euo pipefail
OUT=${1:?usage: bench/studies.sh OUT}
PY=${PY:-python}
# 1. Archived runs: the 12 scalar configs of the coverage replay, 5 teachers each, 10 searches per teacher.
#    The bundled configs use runs = 2; for K up to 10 copy them with [search] runs = 10 (see docs/studies.md).
$PY -m desyr bench --all --seeds 5 --out "$OUT/bench" --timeout 7200
# 2. Studies that read the archived runs.
for s in coverage correction objective init jacobian gates convergence cost noise; do
  $PY -m desyr study "$s" --bench "$OUT/bench" --out "$OUT/studies/$s"
done
# 3. Library study: new searches on the frozen (cached) teachers of the bench.
$PY -m desyr study library --bench "$OUT/bench" --out "$OUT/studies/library"
# 4. Built-in frozen topologies at the configs' full point budgets (no bench needed).
for s in correction objective init jacobian noise; do
  $PY -m desyr study "$s" --out "$OUT/studies/$s-builtin"
done
