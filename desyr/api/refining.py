"""``refine``: Stages B and C on candidates the user gives, with the teacher optional."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from desyr.api.ends import Execution, RunRequest, _finish, _Stages, _start, _Started, _write
from desyr.api.pipeline import _python_default
from desyr.config.spec import read_spec
from desyr.errors import ConfigError
from desyr.extension.registry import Registry, load_registry
from desyr.extension.roles import Teacher, TeacherModel
from desyr.model.candidates import Candidate
from desyr.model.problem import Problem
from desyr.model.result import Result
from desyr.runtime.atomic import out_lock
from desyr.runtime.progress import Progress
from desyr.stages.refit import check_finite, parse_candidate, refine_pool
from desyr.stages.select import run_gates
from desyr.stages.teach import make_teacher, teach, with_teacher
from desyr.verify.child import start_verifier


def refine(problem: Problem, candidates: Iterable[str | Mapping[str, str]], *, seed: int | None = None,
           registry: Registry | None = None, use_teacher: bool = False, out: str | Path | None = None,
           progress: Progress | None = None, retrain: bool = False, cache_dir: str | Path = ".desyr-cache",
           execution: Execution | None = None, plots: bool = True) -> Result:
    """Stages B and C on user-given candidates; optionally with the configured teacher for eps_T."""
    registry = registry or load_registry()
    spec = read_spec(problem, registry)          # the config, checked and read once
    teacher = make_teacher(registry, spec) if use_teacher else None
    request = RunRequest(spec, registry, seed, out, progress, cache_dir, retrain,
                         execution or _python_default(registry, spec), "refine")
    with out_lock(out):
        s = _start(request)
        if spec.problem.config_text:
            start_verifier()
        with s.units.executor:
            result, model = _refine(s, list(candidates), teacher)
        return _write(s, result, model, out, plots)


def _refine(s: _Started, candidates: list[str | Mapping[str, str]], teacher: Teacher | None
            ) -> tuple[Result, TeacherModel | None]:
    problem = s.pristine
    pool = []
    for i, text in enumerate(candidates):
        exprs = parse_candidate(problem, text)
        reason = check_finite(problem, exprs, s.ctx)
        if reason:
            raise ConfigError(f"candidate {i}: {reason}")
        pool.append(Candidate(f"c{i}", exprs))
    if not pool:
        raise ConfigError("no candidate given (use --candidate EXPR)")
    ctx, timings, taught = s.ctx, {}, None
    if teacher is not None:
        taught = teach(s.registry, ctx, teacher)
        ctx, timings = with_teacher(ctx, taught), {"teacher": taught.seconds}
    refit = refine_pool(pool, s.refiner, ctx)
    selection = run_gates(pool, s.gates, ctx)
    timings.update(refine=refit.seconds, select=selection.seconds)
    components = {"teacher": taught.info.plugin} if taught else {}
    stages = _Stages(pool, selection, taught, None, None, timings, components)
    return _finish("refine", s, stages), taught.model if taught else None
