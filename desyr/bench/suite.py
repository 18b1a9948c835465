"""``desyr bench``: run problems over several seeds, resumable, and tabulate like the paper.

Each run is a separate ``desyr run`` process writing ``DIR/runs/<name>-<hash>/seed<k>/``,
so a crash or a time-out is recorded for that run and the others continue.

Run directories identify their config: ``<hash>`` is a short sha256 of the
config's text (a file) or of the loaded problem (a spec answered by a plugin
hook), so ``a/tiny.toml`` and ``b/tiny.toml`` never share a directory.  Each run
directory holds a marker ``run.json`` with the full hash; a run is skipped on
resume only when its ``result.json`` is readable JSON *and* the marker matches
this config and these settings.  A truncated or foreign result is run again.

Children are started as ``python -P -m desyr run ...`` (``-P``: the working
directory is not put on ``sys.path``, so a stray ``desyr.py`` or plugin module
there is never imported; ``PYTHONPATH`` set by the user is kept, minus empty
entries, which would mean the working directory).  Each child gets its own
process group, and on Linux ``PR_SET_PDEATHSIG``: a killed bench takes its child
with it, and SIGTERM/SIGINT of the bench kill the child's whole group.  The
environment is inherited, and a plugin option that an environment variable stands for is passed on as its flag.

All bench files are written atomically (:mod:`desyr.runtime.atomic`) and ``DIR`` is
locked for the duration of the bench, so two benches cannot share it.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desyr import __version__
from desyr.bench.page import render_page
from desyr.bench.table import render_markdown
from desyr.errors import ConfigError, DesyrError
from desyr.model.problem import ProblemSet
from desyr.runtime.atomic import read_json, run_lock, write_json_atomic, write_text_atomic
from desyr.runtime.children import child_command, kill_children_on_signals, run_child
from desyr.runtime.jobserver import Tokens, holding
from desyr.runtime.jobserver import available as jobserver_available
from desyr.runtime.progress import Progress

if TYPE_CHECKING:
    from desyr.api import Execution
    from desyr.extension.registry import Registry
    from desyr.extension.roles import Executor
    from desyr.model.problem import Problem

MARKER = "run.json"
#: bump when the meaning of a stored run changes (what a run directory's hash covers)
LAYOUT = 2


def library(registry: Registry) -> list[tuple[str, str]]:
    return sorted(registry.problem_library())


def _library_prefixes(registry: Registry) -> list[str]:
    return sorted({spec.partition(":")[0] + ":" for spec, _ in library(registry) if ":" in spec})


def resolve_names(registry: Registry, names: list[str], all_: bool, problem_set: str | None = None) -> list[str]:
    """Config files as given; other names resolved through the problem hooks to a canonical spec;
    ``all_``: every problem of ``problem_set`` (None: the set a plugin declares default).

    A bare name (``burgers``, ``13``) is tried under every prefix of the problem
    library; the default set wins, otherwise it must resolve under exactly one.
    """
    if all_:
        return list(_chosen_set(registry, problem_set).specs)
    if not names:
        raise ConfigError("name problems to bench (see 'desyr problems') or pass --all")
    out = []
    for n in names:
        if Path(n).is_file():
            out.append(n)
            continue
        if n.endswith(".toml") or "/" in n or os.sep in n:
            raise ConfigError(f"config file not found: {n}")
        out.append(_canonical_spec(registry, n))
    return out


def _chosen_set(registry: Registry, name: str | None) -> ProblemSet:
    sets = registry.problem_sets()
    chosen = next((s for s in sets if s.name == name), None) if name else registry.default_problem_set()
    if chosen is None or not chosen.specs:
        known = ", ".join(s.name for s in sets) or "(none installed)"
        what = f"no problem set {name!r}" if name else "no installed plugin declares a default problem set"
        raise ConfigError(f"{what}; sets: {known} (--set NAME)")
    return chosen


def _canonical_spec(registry: Registry, name: str) -> str:
    known = {spec for spec, _ in library(registry)}
    if ":" in name:
        problem = registry.load_problem(name)            # a clear error if no plugin knows it
        return _library_name(problem, name, known)
    found: dict[str, str] = {}
    for prefix in _library_prefixes(registry):
        try:
            problem = registry.load_problem(prefix + name)
        except DesyrError:
            continue
        found[prefix] = _library_name(problem, prefix + name, known)
    if not found:
        problem = registry.load_problem(name)            # some plugin may answer bare names
        return _library_name(problem, name, known)
    default = registry.default_problem_set()
    if default is not None and f"{default.name}:" in found:   # bare names and IDs mean the default set
        return found[f"{default.name}:"]
    if len(found) > 1:
        raise ConfigError(f"problem name {name!r} is ambiguous: {', '.join(sorted(found.values()))}; "
                          f"write it with its prefix")
    return next(iter(found.values()))


def _library_name(problem: Problem, spec: str, known: set[str]) -> str:
    """The library's own spelling of a problem (``paper:13`` -> ``paper:burgers``) when there is one."""
    source = str(getattr(problem, "source", "") or "")
    return source if source in known else spec


# ----------------------------------------------------------------- identity
def _problem_fingerprint(problem: Problem) -> str:
    """A stable text of a hook-loaded problem (no file to hash)."""
    def text(x: object) -> str:
        return str(x)
    data = {
        "name": getattr(problem, "name", None), "title": getattr(problem, "title", None),
        "variables": [[v.name, repr(float(v.lo)), repr(float(v.hi))] for v in getattr(problem, "variables", [])],
        "fields": list(getattr(problem, "fields", [])),
        "equations": [text(e.residual) for e in getattr(problem, "equations", [])],
        "constraints": [text(getattr(c, "residual", c)) for c in getattr(problem, "constraints", [])],
        "reference": text(getattr(problem, "reference", None)),
        "points": text(getattr(problem, "points", None)),
        "sections": getattr(problem, "sections", {}),
    }
    return json.dumps(data, sort_keys=True, default=str)


def config_digest(registry: Registry | None, spec: str) -> str:
    """sha256 of what the run depends on: the config file's bytes, or the loaded problem for a spec."""
    h = hashlib.sha256(f"desyr-bench layout {LAYOUT}\n".encode())
    if Path(spec).is_file():
        try:
            h.update(b"file\n" + Path(spec).read_bytes())
        except OSError as exc:
            raise ConfigError(f"cannot read config {spec}: {exc.strerror or exc}") from None
    else:
        h.update(f"spec {spec}\n".encode())
        if registry is None:    # a programming error (was an AttributeError on None)
            raise TypeError(f"config_digest needs a registry to load the problem spec {spec!r}")
        h.update(_problem_fingerprint(registry.load_problem(spec)).encode())
    return h.hexdigest()


def run_name(spec: str) -> str:
    stem = Path(spec).stem if Path(spec).suffix.lower() == ".toml" else spec.split(":")[-1]
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("._-") or "problem"
    return stem[:60]


def run_dir(out: Path, spec: str, seed: int, digest: str) -> Path:
    return Path(out) / "runs" / f"{run_name(spec)}-{digest[:12]}" / f"seed{seed}"


def run_settings(seed: int) -> dict[str, Any]:
    """The settings a stored result depends on besides the config (checked on resume)."""
    return {"seed": int(seed), "layout": LAYOUT}


def _marker(spec: str, seed: int, digest: str) -> dict[str, Any]:
    return {"spec": spec, "config_sha256": digest, "settings": run_settings(seed), "desyr_version": __version__}


def _matches(where: Path, spec: str, seed: int, digest: str) -> bool:
    stored = read_json(where / MARKER)
    return (isinstance(stored, dict) and stored.get("config_sha256") == digest
            and stored.get("settings") == run_settings(seed))


def finished_result(where: Path, spec: str, seed: int, digest: str) -> dict[str, Any] | None:
    """The stored result if this run is finished for this very config and settings, else None."""
    if not _matches(where, spec, seed, digest):
        return None
    result = read_json(where / "result.json")
    return result if isinstance(result, dict) else None


def run_one(spec: str, seed: int, out: Path, timeout: float, progress: Progress,
            digest: str | None = None, registry: Registry | None = None, extra: tuple[str, ...] = (),
            jobs: str | None = None) -> dict[str, Any]:
    """One configuration x seed in its own ``desyr run`` child; ``jobs``: the bench's jobserver, of which
    the child takes a token (waiting for one) for as long as it runs."""
    if digest is None:
        digest = config_digest(registry, spec)
    where = run_dir(out, spec, seed, digest)
    if finished_result(where, spec, seed, digest) is not None:
        progress.message(f"bench: {spec} seed {seed}: already done, skipped")
        return {"spec": spec, "seed": seed, "ok": True, "skipped": True}
    start = time.perf_counter()
    try:
        where.mkdir(parents=True, exist_ok=True)
        for stale in ("result.json", "report.md", "error.json"):   # not ours, or truncated
            (where / stale).unlink(missing_ok=True)
        write_json_atomic(where / MARKER, _marker(spec, seed, digest))
    except OSError as exc:
        detail = [f"cannot prepare {where}: {exc.strerror or exc}"]
        progress.message(f"bench: {spec} seed {seed}: FAILED ({detail[0]})")
        return {"spec": spec, "seed": seed, "ok": False, "error": detail[0]}
    progress.message(f"bench: {spec} seed {seed} ...")
    with holding(jobs) if jobs else nullcontext():
        ok, detail = run_child(child_command(spec, seed, where, Path(out), extra), timeout, jobs)
    if ok and not isinstance(read_json(where / "result.json"), dict):
        ok, detail = False, ["the run finished but its result.json is missing or unreadable"]
    seconds = time.perf_counter() - start
    if not ok:
        try:
            write_json_atomic(where / "error.json", {"spec": spec, "seed": seed, "config_sha256": digest,
                                                     "error": detail})
        except OSError as exc:
            detail = detail + [f"(error.json not written: {exc.strerror or exc})"]
    progress.message(f"bench: {spec} seed {seed}: {'done' if ok else 'FAILED'} in {seconds:.1f} s")
    return {"spec": spec, "seed": seed, "ok": ok, "error": None if ok else " | ".join(detail)}


def collect(out: Path, specs: list[str], seeds: int, digests: dict[str, str] | None = None,
            registry: Registry | None = None, outcomes: dict[tuple[str, int], dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One row per run: its result if finished for this config, else its error."""
    rows = []
    for spec in specs:
        digest = (digests or {}).get(spec) or config_digest(registry, spec)
        for seed in range(seeds):
            where = run_dir(out, spec, seed, digest)
            result = finished_result(where, spec, seed, digest)
            if result is not None:
                rows.append({"spec": spec, "seed": seed, "result": result})
                continue
            stored = read_json(where / "error.json") if _matches(where, spec, seed, digest) else None
            error = stored.get("error") if isinstance(stored, dict) else None
            if not isinstance(error, list):
                outcome = (outcomes or {}).get((spec, seed)) or {}
                error = [str(outcome.get("error") or "no result (the run did not finish)")]
            rows.append({"spec": spec, "seed": seed, "error": [str(e) for e in error]})
    return rows


def bench_unit(item: tuple[str, int, str, float, str, bool, tuple[str, ...], str | None]) -> dict[str, Any]:
    """One configuration x seed (the unit an executor runs): its child run, then its outcome."""
    spec, seed, out, timeout, digest, verbose, extra, jobs = item
    return run_one(spec, seed, Path(out), timeout, Progress(verbose=verbose), digest, extra=extra, jobs=jobs)


def _run_all(jobs: list[tuple[str, int]], out: Path, timeout: float, progress: Progress,
             digests: dict[str, str], execution: Execution | None, registry: Registry, plots: bool = True
             ) -> dict[tuple[str, int], dict[str, Any]]:
    """Every job through the executor; a job whose unit failed (its worker died twice) is recorded
    as failed and the others are kept: each finished run is already on disk."""
    from desyr.extension.declared import forwarded_options
    from desyr.extension.roles import UnitFailure
    from desyr.runtime.execution import make_executor
    from desyr.runtime.executor_map import checked_map

    outcomes: dict[tuple[str, int], dict[str, Any]] = {}
    todo = []
    for spec, seed in jobs:    # finished runs are skipped here, in the parent, before any worker starts
        if finished_result(run_dir(out, spec, seed, digests[spec]), spec, seed, digests[spec]) is not None:
            progress.message(f"bench: {spec} seed {seed}: already done, skipped")
            outcomes[(spec, seed)] = {"spec": spec, "seed": seed, "ok": True, "skipped": True}
        else:
            todo.append((spec, seed))
    if not todo:
        return outcomes
    jobs = todo
    executor = make_executor(registry, None, execution.executor if execution else None,
                             execution.workers if execution else None,
                             dict(execution.options or {}) if execution else None)
    chosen = (execution.executor if execution else None) or registry.default("executor")
    extra, tokens = _children_executor(executor, chosen, len(jobs), registry)
    extra += forwarded_options(registry)     # a plugin's consent travels with the job (a remote worker's env)
    if not plots:
        extra += ("--no-plots",)
    with executor, Tokens(tokens) if tokens else nullcontext() as server:
        items = [(spec, seed, str(out), timeout, digests[spec], progress.verbose, extra,
                  server.path if server else None) for spec, seed in jobs]
        answers = checked_map(executor, bench_unit, items) if len(items) > 1 else [bench_unit(i) for i in items]
    for (spec, seed), answer in zip(jobs, answers):
        if isinstance(answer, UnitFailure):
            answer = {"spec": spec, "seed": seed, "ok": False, "error": answer.message}
            progress.message(f"bench: {spec} seed {seed}: FAILED ({answer['error']})")
        outcomes[(spec, seed)] = answer
    return outcomes


def _children_executor(executor: Executor, chosen: str, jobs: int, registry: Registry
                       ) -> tuple[tuple[str, ...], int]:
    """The children's ``--executor`` and the jobserver's tokens (0: none). A parallel bench on a local
    executor that honours a jobserver shares its W workers with its children as W tokens (each job holds
    one; a long job's units borrow the ones the finished jobs left); on any other its children run
    their units in process, or the cores would be oversubscribed. A serial bench is serial all the way
    down; a bench of one job gives its child the default executor and every core."""
    if executor.in_process:
        return ("--executor", registry.in_process_executor()), 0
    if executor.workers == 1 or jobs == 1:
        return (), 0
    if type(executor).jobserver and jobserver_available():
        return ("--executor", chosen), executor.workers
    return ("--executor", registry.in_process_executor()), 0


def _longest_first(registry: Registry, specs: list[str]) -> list[str]:
    """The specs in the order to start them: more fields, then more variables, then larger equations
    (operations in their left-hand sides and data), first. Those are the runs that train a teacher longest
    (an equation the exact solvers cannot settle is more often a long one: a paper suite's one teacher run
    had started tenth of eighteen, and its wall was that run's end), and started first they are not the last
    ones running while other workers idle (longest processing time first); the table keeps the given order."""
    import sympy as sp

    from desyr.config.loading import load_problem

    def size(spec: str) -> tuple[int, int, int]:
        try:
            problem = load_problem(spec, registry)
        except DesyrError:            # its own run reports the error
            return (0, 0, 0)
        written = sum(sp.count_ops(eq.lhs) + sp.count_ops(eq.forcing) for eq in problem.equations)
        return (len(problem.fields), problem.dim, int(written))

    sizes = {spec: size(spec) for spec in specs}
    return sorted(specs, key=lambda spec: sizes[spec], reverse=True)


def bench(registry: Registry, names: list[str], all_: bool, seeds: int, out: str | Path, timeout: float,
          progress: Progress, command: str, execution: Execution | None = None, plots: bool = True,
          problem_set: str | None = None) -> dict[str, Any]:
    if not isinstance(seeds, int) or seeds < 1:
        raise ConfigError("--seeds must be at least 1")
    if not (isinstance(timeout, (int, float)) and timeout > 0 and timeout == timeout):
        raise ConfigError(f"--timeout must be a number of seconds in (0, inf] (inf: no limit), got {timeout!r}")
    specs = list(dict.fromkeys(resolve_names(registry, names, all_, problem_set)))
    digests = {spec: config_digest(registry, spec) for spec in specs}
    out = Path(out)
    with run_lock(out), kill_children_on_signals():
        jobs = [(spec, seed) for spec in _longest_first(registry, specs) for seed in range(seeds)]
        outcomes = _run_all(jobs, out, timeout, progress, digests, execution, registry, plots)
        rows = collect(out, specs, seeds, digests, outcomes=outcomes)
        data = {"command": command, "specs": specs, "seeds": seeds, "runs": rows,
                "configs": {spec: digests[spec] for spec in specs}}
        try:
            write_json_atomic(out / "bench.json", data)
            write_text_atomic(out / "bench.md", render_markdown(rows, specs, registry, command))
            folders = {(spec, seed): run_dir(out, spec, seed, digests[spec]) for spec, seed in jobs}
            write_text_atomic(out / "bench.html", render_page(rows, specs, registry, command, out, folders))
        except (OSError, TypeError, ValueError) as exc:
            raise ConfigError(f"cannot write the bench summary in {out}: {getattr(exc, 'strerror', None) or exc}") \
                from None
    return data
