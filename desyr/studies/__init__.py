"""``desyr study NAME``: the paper's mechanism studies (§5.3-5.4, Appendix C), one module each.

Each study reads archived runs of a bench folder (``--bench DIR``) or, with ``--quick``,
runs what it needs on tiny budgets, and writes ``study.json``, ``study.md`` and PNG
figures to ``--out``.  See ``docs/studies.md``.
"""
from __future__ import annotations

import importlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desyr.errors import ConfigError

if TYPE_CHECKING:
    from desyr.extension.registry import Registry

#: study name -> (module, one-line description, needs archived runs)
STUDIES: dict[str, tuple[str, str, bool]] = {
    "coverage": ("coverage", "recoveries when pooling the first K searches per teacher (K = 1, 2, 3, 5, 10)", True),
    "correction": ("correction", "pre-refit against refined relative L2 on the same topology", False),
    "objective": ("objective", "teacher-only, mixed (weight beta) and physics-only fits on frozen topologies", False),
    "init": ("initialization", "teacher-derived against random U(-1, 1) starts of Stage B", False),
    "jacobian": ("jacobian", "rank and condition number of the exact Jacobian at the refined solution", False),
    "library": ("library", "misspecified and enriched operator libraries, with the raw-front audit", False),
    "gates": ("gates", "replay of frozen pools with one Stage-C gate removed at a time", True),
    "convergence": ("convergence", "audit of every Stage-B refit: converged, timed out, unconverged", True),
    "noise": ("noise", "Gaussian noise on the prescribed constraint values, frozen topologies", False),
    "cost": ("cost", "stage-wise wall-clock breakdown per configuration", True),
}


def describe() -> str:
    width = max(len(n) for n in STUDIES)
    return "\n".join(f"  {n:<{width}}  {d}" + ("  [--bench or --quick]" if b else "")
                     for n, (_, d, b) in STUDIES.items())


def run_study(name: str, out: str | Path, *, quick: bool = False, bench: str | Path | None = None,
              plots: bool = True, registry: Registry | None = None, verbose: bool = False) -> Any:
    """Run one study and write its outputs; returns what was written."""
    if name not in STUDIES:
        raise ConfigError(f"unknown study {name!r}; known: {', '.join(STUDIES)}")
    module, _, needs_runs = STUDIES[name]
    out = Path(out)
    if bench is not None and not (Path(bench) / "runs").is_dir():
        raise ConfigError(f"--bench {bench}: not a bench folder (no runs/ inside)")
    from desyr.runtime.progress import Progress
    from desyr.studies.common import StudyContext, write_study

    ctx = StudyContext(out=out, quick=quick, bench=Path(bench) if bench else None, plots=plots,
                       registry=registry, progress=Progress(verbose=verbose))
    notes = []
    if needs_runs and ctx.bench is None:
        if not quick:
            raise ConfigError(f"study {name} reads archived runs: give --bench DIR (or --quick for a tiny bench)")
        from desyr.extension.registry import load_registry
        from desyr.studies.quickbench import make_quick_bench

        ctx.bench, note = make_quick_bench(registry or load_registry(), out / "tiny-bench")
        notes.append(f"--quick without --bench: ran the tiny bench in {ctx.bench} ({note})")
    start = time.perf_counter()
    fn = importlib.import_module(f"desyr.studies.{module}").run
    output = fn(ctx)
    output.notes = notes + output.notes
    write_study(ctx, output, time.perf_counter() - start)
    return output
