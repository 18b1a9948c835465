"""Stage-B cost per start: exact (sympy) versus finite-difference Jacobians.

    .venv/bin/python bench/refit.py [--repeat 5]

Each case freezes a target-capable topology, starts from perturbed constants
(the paper's pre-refit values where it gives them) and runs one
``least_squares`` start, BLAS pinned to one thread as in the refiner. Prints a
markdown table.
"""
from __future__ import annotations

import argparse
import platform
import time
from dataclasses import replace
from typing import Any

import numpy as np
from scipy.optimize import least_squares
from threadpoolctl import threadpool_limits

from desyr.api import load_problem
from desyr.model.points import make_point_sets
from desyr.plugin import evaluate, for_refinement, load_registry, parameterize

CASES = [
    # name, problem, candidate (pre-refit constants), point overrides
    ("Burgers, 4 params", "paper:burgers", "0.499879 + 0.500090*tanh(2.492718*t - 4.987499*x)", {}),
    ("Helmholtz A sin(ax) sin(by)", "paper:helmholtz", "1.02*sin(12.5*x)*sin(12.6*y)", {}),
    ("Euler–Bernoulli quartic", "paper:euler_bernoulli",
     "1.16e-6*x**4 - 2.30e-5*x**3 - 1.16e-4*x**2 + 2.30e-3*x", {}),
    ("Helmholtz, 7 params, 14k rows", "paper:helmholtz",
     "1.02*sin(12.5*x + 0.01)*sin(12.6*y - 0.02) + 0.003*x + 0.002*y",
     {"refine": 12800, "constraint": 1200}),
]


def with_points(problem: Any, overrides: dict[str, int]) -> Any:
    """The problem with its point counts overridden (``constraint``: every constraint's count)."""
    counts = {k: v for k, v in overrides.items() if k != "constraint"}
    constraints = problem.constraints if "constraint" not in overrides else \
        tuple(replace(c, n_points=overrides["constraint"]) for c in problem.constraints)
    return replace(problem, points={**problem.points, **counts}, constraints=constraints)


def one_case(registry: Any, spec: str, text: str, overrides: dict[str, int], jac: str, repeat: int) -> dict[str, Any]:
    problem = with_points(load_problem(spec, registry), overrides)
    points = make_point_sets(problem)
    param = parameterize(problem.parse(text))
    start = np.array(param.values)
    t0 = time.perf_counter()
    residuals = for_refinement(problem, {"u": param.expression}, param.symbols, points, jacobian=(jac == "exact"))
    compile_s = time.perf_counter() - t0
    times, res = [], None
    with threadpool_limits(limits=1), np.errstate(all="ignore"):
        for _ in range(repeat):
            # the system keeps its last evaluation: move it off the start, so every timed start pays for its first
            residuals.vector(start + 1.0)
            t0 = time.perf_counter()
            res = least_squares(residuals.vector, start, jac=residuals.jacobian if jac == "exact" else jac,
                                method="trf", ftol=1e-8, xtol=1e-8, gtol=1e-8, x_scale="jac")
            times.append(time.perf_counter() - t0)
    assert res is not None
    refined = param.substitute(res.x)
    ref = problem.evaluate_reference(points.verify)[:, 0]
    pred = evaluate(refined, problem.symbols, points.verify)
    rel = float(np.linalg.norm(pred - ref) / np.linalg.norm(ref))
    rows = residuals.vector(res.x).size
    evals = int(res.nfev) + (0 if jac == "exact" else int(res.njev or 0) * len(param.symbols))
    return {"evals": evals, "params": len(param.symbols), "rows": rows, "ms": 1000 * float(np.median(times)),
            "nfev": int(res.nfev), "njev": int(res.njev or 0), "compile_s": compile_s, "rel_l2": rel,
            "status": int(res.status)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    registry = load_registry()
    print(f"# Stage-B refit cost per start ({platform.processor() or platform.machine()}, "
          f"{time.strftime('%Y-%m-%d')}, median of {args.repeat})\n")
    print("| case | params | rows | Jacobian | ms / start | nfev | njev | residual evaluations | sympy compile (s) | refined rel L2 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, spec, text, overrides in CASES:
        for jac in ("exact", "2-point"):
            r = one_case(registry, spec, text, overrides, jac, args.repeat)
            print(f"| {name} | {r['params']} | {r['rows']} | {jac} | {r['ms']:.1f} | {r['nfev']} | {r['njev']} | {r['evals']} | "
                  f"{r['compile_s']:.2f} | {r['rel_l2']:.2e} |", flush=True)


if __name__ == "__main__":
    main()
