"""Shared helpers of the studies: outputs, archived bench runs, quick problems, refits, statistics."""
from __future__ import annotations

import json
import math
import platform
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from desyr.config.components import method_constants
from desyr.errors import ConfigError, DesyrError
from desyr.extension.registry import Registry, load_registry
from desyr.model.candidates import Candidate, RefitOutcome
from desyr.model.constants import METHOD
from desyr.model.context import RunContext
from desyr.model.points import make_point_sets, make_verification_points
from desyr.model.problem import Problem
from desyr.model.result import CandidateRecord, Result, load_result
from desyr.report.figures import FigureRecord, figure_section, have_matplotlib
from desyr.runtime.atomic import read_json, write_text_atomic
from desyr.runtime.progress import Progress

RECOVERED = METHOD.recovered_rel_l2      # the bench's threshold (desyr.bench.table), one value

#: tiny point budgets of the quick studies (the paper configs use thousands of points)
QUICK_POINTS = {"search": 150, "validate": 150, "refine": 300, "verify": 300}
QUICK_CONSTRAINT_POINTS = 40

#: quick frozen topologies: paper config -> a target-capable search expression with perturbed constants
#: (the paper's Table of coefficient corrections where it gives them; small offsets otherwise)
QUICK_CASES: dict[str, str] = {
    "sine_poisson_1d": "sin(3.1415536*x)",
    "param_poisson": "sin(3.99987*x)",
    "multifreq_poisson": "0.004771 - 0.100054*x + sin(0.70003*x) + cos(1.500109*x)",
    "telegraph_1": "1.0004*exp(1.4998*x - 2.5003*t)",
    "helmholtz": "1.003*sin(12.5661*x)*sin(12.5667*y)",
    "burgers": "0.499879 + 0.50009*tanh(2.492718*t - 4.987499*x)",
}


@dataclass
class StudyContext:
    """What every study receives."""

    out: Path
    quick: bool = False
    bench: Path | None = None
    plots: bool = True
    seed: int = 0
    registry: Registry | None = None
    progress: Progress = field(default_factory=lambda: Progress(verbose=False))

    def reg(self) -> Registry:
        if self.registry is None:
            self.registry = load_registry()
        return self.registry

    def figure(self, name: str) -> Path | None:
        """Where to draw figure ``name``, or None when plots are off or matplotlib is missing."""
        return self.out / name if self.plots and have_matplotlib() else None


@dataclass
class StudyOutput:
    name: str
    title: str
    data: dict[str, Any]
    lines: list[str]                       # the markdown body (table laid out like the paper's)
    figures: list[FigureRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def write_study(ctx: StudyContext, output: StudyOutput, seconds: float) -> None:
    ctx.out.mkdir(parents=True, exist_ok=True)
    source = f"bench folder `{ctx.bench}`" if ctx.bench else ("quick built-in set" if ctx.quick else "built-in set")
    data = {"study": output.name, "title": output.title, "quick": ctx.quick,
            "bench": str(ctx.bench) if ctx.bench else None, "seconds": round(seconds, 3),
            "machine": f"{platform.machine()}, Python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%d"), "notes": output.notes,
            "figures": [{"path": r.path.name, "caption": r.caption} for r in output.figures], **output.data}
    write_text_atomic(ctx.out / "study.json", json.dumps(jsonable(data), indent=2, allow_nan=False) + "\n")
    lines = [f"# Study `{output.name}`: {output.title}", "", f"Source: {source}; {seconds:.1f} s.", ""]
    lines += output.lines + [""]
    if output.notes:
        lines += ["Notes:", ""] + [f"- {n}" for n in output.notes] + [""]
    if ctx.plots:
        skipped = None if have_matplotlib() else "Figures skipped: matplotlib is not installed."
        lines += figure_section(output.figures, skipped)
    write_text_atomic(ctx.out / "study.md", "\n".join(lines) + "\n")


def jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return v if math.isfinite(v) else str(v)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, Path):
        return str(x)
    return x


# ------------------------------------------------------------------ formatting
def fmt(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    v = float(v)
    if v == 0:
        return "0"
    return f"{v:.2e}" if abs(v) < 1e-2 or abs(v) >= 1e4 else f"{v:.3g}"


def quartiles(values: Sequence[float | None]) -> tuple[float, float, float] | None:
    vals = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not vals:
        return None
    q1, med, q3 = np.percentile(vals, [25, 50, 75])
    return float(med), float(q1), float(q3)


def summary(values: Sequence[float | None]) -> str:
    q = quartiles(values)
    if q is None:
        return "–"
    med, q1, q3 = q
    return fmt(med) if q1 == q3 else f"{fmt(med)} [{fmt(q1)}, {fmt(q3)}]"


def table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


# ------------------------------------------------------------------ problems
def quick_problem(spec: str, registry: Registry) -> Problem:
    """A bundled problem with tiny point budgets (``paper:<name>`` unless ``spec`` has a prefix)."""
    from desyr.config.loading import load_problem

    problem = load_problem(spec if ":" in spec or spec.endswith(".toml") else default_spec(spec, registry), registry)
    return shrink(problem)


def default_spec(name: str, registry: Registry) -> str:
    """``name`` in the default problem set (the studies are the paper's, on the set a plugin declares default)."""
    chosen = registry.default_problem_set()
    if chosen is None:
        raise ConfigError(f"no installed plugin declares a default problem set, so {name!r} has no prefix")
    return f"{chosen.name}:{name}"


def shrink(problem: Problem) -> Problem:
    constraints = tuple(replace(c, n_points=min(c.n_points, QUICK_CONSTRAINT_POINTS)) for c in problem.constraints)
    return replace(problem, points={**problem.points, **QUICK_POINTS}, constraints=constraints)


def context(problem: Problem, seed: int = 0, teacher_values: np.ndarray | None = None) -> RunContext:
    points = make_point_sets(problem, seed)
    values = None if teacher_values is None else np.asarray(teacher_values, float).reshape(len(points.search), -1)
    return RunContext(problem, points, seed=seed, teacher_values=values, method=method_constants(problem),
                      progress=Progress(verbose=False))


def refiner(registry: Registry, problem: Problem, **options: Any) -> Any:
    """The problem's configured refiner with ``options`` on top."""
    from desyr.config.spec import section_settings
    from desyr.model.frozen import thawed

    sec = section_settings(problem, "refine")
    name = sec.plugin or registry.default("refiner")
    return registry.create("refiner", name, {**thawed(sec.options), **options})


def refit(problem: Problem, exprs: Mapping[str, sp.Expr] | str, registry: Registry, seed: int = 0,
          ctx: RunContext | None = None, **options: Any) -> Candidate:
    """Stage B (with measurement and checked cleaning) on one frozen topology."""
    from desyr.stages.refit import parse_candidate, refine_pool

    exprs = parse_candidate(problem, exprs) if isinstance(exprs, str) else dict(exprs)
    cand = Candidate("c0", dict(exprs))
    refine_pool([cand], refiner(registry, problem, **options), ctx or context(problem, seed))
    return cand


def evaluate_on(problem: Problem, exprs: Mapping[str, sp.Expr], X: np.ndarray) -> np.ndarray:
    from desyr.symbolic.numeric import evaluate

    return np.column_stack([evaluate(exprs[f], problem.symbols, X) for f in problem.fields])


def errors(problem: Problem, exprs: Mapping[str, sp.Expr] | None, seed: int = 0) -> dict[str, float | None]:
    """Relative L2 and R_eq / R_con on the independent verification points (post hoc)."""
    from desyr.model.residuals import verify
    from desyr.stages.run_residuals import relative_l2

    if not exprs:
        return {"rel_l2": None, "R_eq": None, "R_con": None}
    points = make_verification_points(problem, seed)
    v = verify(problem, exprs, points)
    return {"rel_l2": relative_l2(problem, exprs, points.interior), "R_eq": v.R_eq, "R_con": v.R_con}


# ------------------------------------------------------------------ archived runs
@dataclass
class Archived:
    config: str            # run folder name without the hash
    seed: int
    path: Path
    spec: str | None
    result: Result


def archived_runs(bench: Path) -> list[Archived]:
    """Every finished run of a bench folder (``runs/<name>-<hash>/seed<k>/result.json``), sorted."""
    runs_dir = Path(bench) / "runs"
    if not runs_dir.is_dir():
        raise ConfigError(f"--bench {bench}: no runs/ folder (not a desyr bench folder)")
    found = []
    for result_path in sorted(runs_dir.glob("*/seed*/result.json")):
        where = result_path.parent
        try:
            result = load_result(result_path)
        except DesyrError:
            continue
        marker = read_json(where / "run.json")
        spec = marker.get("spec") if isinstance(marker, dict) else None
        name = where.parent.name.rsplit("-", 1)[0]
        seed = int(where.name[4:]) if where.name[4:].isdigit() else result.seed
        found.append(Archived(name, seed, where, spec, result))
    return sorted(found, key=lambda a: (a.config, a.seed))


def problem_of(run: Archived, registry: Registry, bench: Path | None = None) -> Problem:
    """The problem of an archived run: its spec, else a config of that name in ``<bench>/configs``."""
    from desyr.config.loading import load_problem

    tries = [s for s in (run.spec, run.result.problem.source) if s]
    if bench is not None:
        tries += [str(Path(bench) / "configs" / Path(s).name) for s in list(tries) if s.endswith(".toml")]
    for spec in tries:
        if spec.endswith(".toml") and not Path(spec).is_file():
            continue
        try:
            return load_problem(spec, registry)
        except DesyrError:
            continue
    raise ConfigError(f"{run.path}: cannot load its problem (tried {', '.join(tries)})")


def candidate_from_record(problem: Problem, rec: CandidateRecord) -> Candidate:
    """A pooled candidate as recorded: search expression, refined expression and selection quantities."""
    search = {f: problem.parse(t) for f, t in rec.pre_refit_expression.items()}
    refined = {f: problem.parse(t) for f, t in rec.expression.items()} if rec.expression else None
    cand = Candidate(rec.id, search, searcher=rec.searcher, search_seed=rec.search_seed,
                     search_complexity=rec.search_complexity, search_loss=rec.search_loss)
    cand.refit = RefitOutcome({}, rec.status, rec.converged, reason=rec.reason, nfev=rec.nfev,
                              initial=list(rec.params_initial), params=list(rec.params_refined),
                              seconds=rec.refit_seconds or 0.0)
    cand.expressions = refined
    cand.eps_T, cand.phi, cand.rho_r, cand.rho_c = rec.eps_T, rec.phi, rec.rho_r, rec.rho_c
    return cand


def selected_record(result: Result) -> CandidateRecord | None:
    return result.get_best()


def median_seed(runs: Sequence[Archived]) -> Archived:
    """The run whose teacher error is closest to the median (the paper's representative seed)."""
    vals = [(r.result.errors.teacher_rel_l2 or 0.0, r) for r in runs]
    med = float(np.median([v for v, _ in vals]))
    return min(vals, key=lambda vr: (abs(vr[0] - med), vr[1].seed))[1]


def by_config(runs: Sequence[Archived]) -> dict[str, list[Archived]]:
    out: dict[str, list[Archived]] = {}
    for r in runs:
        out.setdefault(r.config, []).append(r)
    return out


# ------------------------------------------------------------------ frozen topologies
@dataclass
class Case:
    """One frozen topology: a problem, the search-stage expression, and where it came from."""

    label: str             # configuration name
    seed: int
    problem: Problem
    expression: sp.Expr    # pre-refit (search) expression: the topology with its search constants
    run: Archived | None = None


def frozen_cases(ctx: StudyContext, names: Sequence[str] | None = None, quick_seeds: int = 1) -> list[Case]:
    """From ``--bench``: the selected candidate's pre-refit expression of every scalar run (of the
    configs ``names`` if given); otherwise the built-in :data:`QUICK_CASES` (tiny points with --quick)."""
    registry = ctx.reg()
    cases = []
    if ctx.bench is not None:
        cache: dict[str, Problem] = {}
        for run in archived_runs(ctx.bench):
            if names and run.config not in names and run.result.problem.name not in names:
                continue
            pre = run.result.pre_refit_expression
            if not pre or len(run.result.problem.fields) != 1:
                continue
            if run.config not in cache:
                cache[run.config] = problem_of(run, registry, ctx.bench)
            problem = cache[run.config]
            cases.append(Case(run.config, run.seed, problem, problem.parse(pre[problem.fields[0]]), run))
        if not cases:
            raise ConfigError(f"--bench {ctx.bench}: no finished scalar run with a selected candidate")
        return cases
    from desyr.config.loading import load_problem

    for name, text in QUICK_CASES.items():
        if names and name not in names:
            continue
        problem = quick_problem(name, registry) if ctx.quick else load_problem(default_spec(name, registry), registry)
        for seed in range(quick_seeds):
            cases.append(Case(name, seed, problem, problem.parse(text)))
    return cases


def surrogate_teacher(problem: Problem, X: np.ndarray, level: float = 1e-3) -> np.ndarray:
    """A stand-in teacher for the quick studies: the reference plus a smooth relative perturbation
    of size ``level`` (a trained network's error is smooth, not white)."""
    ref = problem.evaluate_reference(X)
    if ref is None:
        raise ConfigError(f"{problem.name}: a surrogate teacher needs a reference")
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    phase = np.sum((X - lo) / (hi - lo), axis=1)
    scale = float(np.sqrt(np.mean(ref[:, 0] ** 2))) or 1.0
    values: np.ndarray = ref[:, 0] + level * scale * np.sin(2.0 * np.pi * phase + 1.0)
    return values


def attach_archived_teacher(run: Archived, problem: Problem, ctx: StudyContext, rctx: RunContext
                            ) -> tuple[RunContext, str | None]:
    """``rctx`` with the run's teacher on its search points (from the bench's teacher cache), or as it
    was with a note if the teacher is unavailable."""
    from desyr.config.spec import read_spec
    from desyr.stages.teach import make_teacher, teach, with_teacher

    if ctx.bench is not None:
        rctx = replace(rctx, cache_dir=Path(ctx.bench) / "cache")
    try:
        registry = ctx.reg()
        teacher = make_teacher(registry, read_spec(problem, registry))
        return with_teacher(rctx, teach(registry, rctx, teacher)), None
    except DesyrError as exc:
        return rctx, f"{run.config} seed {run.seed}: teacher unavailable ({exc}); teacher-compatibility gate inactive"
