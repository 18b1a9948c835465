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
environment, including ``DESYR_ALLOW_CALLABLE``, is inherited.

All bench files are written atomically (:mod:`desyr.atomic`) and ``DIR`` is
locked for the duration of the bench, so two benches cannot share it.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from desyr import __version__
from desyr.atomic import read_json, run_lock, write_json_atomic, write_text_atomic
from desyr.errors import ConfigError, DesyrError
from desyr.progress import Progress

RECOVERED = 1e-10
COLUMNS = ["teacher_rel_l2", "pre_refit_rel_l2", "rel_l2", "R_eq", "R_con", "complexity"]
STAGES = ["teacher", "search", "refine", "total"]
MARKER = "run.json"
#: bump when the meaning of a stored run changes (what a run directory's hash covers)
LAYOUT = 2


def library(registry) -> list[tuple[str, str]]:
    return sorted(registry.problem_library())


def _library_prefixes(registry) -> list[str]:
    return sorted({spec.partition(":")[0] + ":" for spec, _ in library(registry) if ":" in spec})


def resolve_names(registry, names: list[str], all_: bool) -> list[str]:
    """Config files as given; other names resolved through the problem hooks to a canonical spec.

    A bare name (``burgers``, ``13``) is tried under every prefix of the problem
    library (``paper:`` for the bundled problems); it must resolve under exactly one.
    """
    if all_:
        by_id = sorted(library(registry), key=lambda row: row[1])      # titles start with "[ID]"
        return [spec for spec, _ in by_id if not spec.endswith("_polynomial")]
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


def _canonical_spec(registry, name: str) -> str:
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
    if len(found) > 1:
        raise ConfigError(f"problem name {name!r} is ambiguous: {', '.join(sorted(found.values()))}; "
                          f"write it with its prefix")
    return next(iter(found.values()))


def _library_name(problem, spec: str, known: set[str]) -> str:
    """The library's own spelling of a problem (``paper:13`` -> ``paper:burgers``) when there is one."""
    source = str(getattr(problem, "source", "") or "")
    return source if source in known else spec


# ----------------------------------------------------------------- identity
def _problem_fingerprint(problem) -> str:
    """A stable text of a hook-loaded problem (no file to hash)."""
    def text(x):
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


def config_digest(registry, spec: str) -> str:
    """sha256 of what the run depends on: the config file's bytes, or the loaded problem for a spec."""
    h = hashlib.sha256(f"desyr-bench layout {LAYOUT}\n".encode())
    if Path(spec).is_file():
        try:
            h.update(b"file\n" + Path(spec).read_bytes())
        except OSError as exc:
            raise ConfigError(f"cannot read config {spec}: {exc.strerror or exc}") from None
    else:
        h.update(f"spec {spec}\n".encode())
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


# ------------------------------------------------------------------- children
def child_command(spec: str, seed: int, where: Path, out: Path, extra: tuple[str, ...] = ()) -> list[str]:
    """``desyr run`` in a fresh interpreter that does not import from the working directory.

    ``--resume``: a run interrupted inside (killed bench, lost worker) reuses its finished units;
    the run store's key makes sure they belong to this very config, seed and version."""
    args = ["run", spec, "--seed", str(seed), "--out", str(where), "--cache-dir", str(out / "cache"), "--quiet",
            "--resume", *extra]
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-m", "desyr", *args]
    boot = ("import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
            "from desyr.cli import main; sys.exit(main())")
    return [sys.executable, "-c", boot, *args]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    if "PYTHONPATH" in env:
        parts = [p for p in env["PYTHONPATH"].split(os.pathsep) if p and p != "."]
        if parts:
            env["PYTHONPATH"] = os.pathsep.join(parts)
        else:
            del env["PYTHONPATH"]
    env.pop("PYTHONSTARTUP", None)
    return env


def _die_with_parent(parent: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGKILL the child when the bench dies."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:
        prctl(1, int(signal.SIGKILL), 0, 0, 0)     # PR_SET_PDEATHSIG
        if os.getppid() != parent:                  # the bench died before prctl took effect
            os._exit(1)
    return preexec


class _Children:
    """The running child, so signal handlers can kill its process group."""

    current: subprocess.Popen | None = None

    @classmethod
    def kill(cls) -> None:
        proc = cls.current
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                try:
                    proc.kill()
                except OSError:
                    pass


def _on_signal(signum, frame):
    _Children.kill()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


class _signals_kill_children:
    """SIGTERM/SIGINT (and SIGHUP) kill the child's group before the bench exits."""

    SIGNALS = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGINT", None),
                           getattr(signal, "SIGHUP", None)) if s is not None]

    def __enter__(self):
        self.saved = {}
        for sig in self.SIGNALS:
            try:
                self.saved[sig] = signal.signal(sig, _on_signal)
            except (ValueError, OSError):   # not the main thread
                pass
        return self

    def __exit__(self, *exc):
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)
        _Children.kill()
        return False


def _spawn(cmd: list[str], timeout: float) -> tuple[bool, list[str]]:
    popen: dict[str, Any] = dict(stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, errors="replace", env=child_env(), start_new_session=True)
    preexec = _die_with_parent(os.getpid())
    if preexec is not None:
        popen["preexec_fn"] = preexec
    try:
        proc = subprocess.Popen(cmd, **popen)
    except OSError as exc:
        return False, [f"could not start the run: {exc}"]
    _Children.current = proc
    try:
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _Children.kill()
            proc.communicate()
            return False, [f"timed out after {timeout:.0f} s"]
    finally:
        _Children.kill()            # whatever the child left in its group
        _Children.current = None
    return proc.returncode == 0, (stderr or "").strip().splitlines()[-5:] or [f"exit status {proc.returncode}"]


def run_one(spec: str, seed: int, out: Path, timeout: float, progress: Progress,
            digest: str | None = None, registry=None, extra: tuple[str, ...] = ()) -> dict[str, Any]:
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
    ok, detail = _spawn(child_command(spec, seed, where, Path(out), extra), timeout)
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
            registry=None, outcomes: dict[tuple[str, int], dict[str, Any]] | None = None) -> list[dict[str, Any]]:
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


def _value(result: dict[str, Any], key: str) -> float | None:
    if key in ("R_eq", "R_con"):
        v = (result.get("residuals") or {}).get(key)
    elif key == "complexity":
        v = result.get("complexity")
    else:
        v = (result.get("errors") or {}).get(key)
    return float(v) if isinstance(v, (int, float)) else None


def _stage_seconds(result: dict[str, Any], stage: str) -> float | None:
    """Seconds of one stage; for coupled runs the refit column includes the group screening."""
    timings = result.get("timings") or {}
    if stage == "refine" and "screen" in timings:
        return timings["screen"] + timings.get("refine", 0.0)
    return timings.get(stage)


def _fieldwise(result: dict[str, Any]) -> str:
    errors = result.get("errors") or {}
    return ", ".join(f"{k[len('rel_l2_'):]} {_fmt(v)}" for k, v in errors.items()
                     if k.startswith("rel_l2_") and isinstance(v, (int, float)))


def _l2(result: dict[str, Any]) -> float:
    value = _value(result, "rel_l2")
    return np.inf if value is None else value


def _recovered(result: dict[str, Any]) -> bool:
    return _l2(result) <= RECOVERED


def summary(values: list[float | None]) -> str:
    vals = [v for v in values if v is not None]
    if not vals:
        return "–"
    q1, med, q3 = np.percentile(vals, [25, 50, 75])
    return _fmt(med) if len(vals) == 1 or q1 == q3 else f"{_fmt(med)} [{_fmt(q1)}, {_fmt(q3)}]"


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    return f"{v:.2e}" if abs(v) < 1e-2 or abs(v) >= 1e4 else f"{v:.3g}"


def render_markdown(rows: list[dict[str, Any]], specs: list[str], registry, command: str) -> str:
    head = ["ID", "problem", "PINN rel L2", "pre-refit rel L2", "refined rel L2", "R_eq", "R_con", "complexity",
            "converged", "recovered (≤1e-10)", "teacher s", "search s", "refit s", "total s",
            "paper refined rel L2", "paper total s"]
    lines = [f"Command: `{command}`  ", f"Machine: {platform.machine()}, {_cpus()} CPU cores, Python "
             f"{platform.python_version()}  ", f"Date: {time.strftime('%Y-%m-%d')}", "",
             "Values are medians [Q1, Q3] over seeds.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    failures = []
    for spec in specs:
        results = [r["result"] for r in rows if r["spec"] == spec and "result" in r]
        errors = [r for r in rows if r["spec"] == spec and "error" in r]
        failures += [f"- {spec} seed {e['seed']}: run failed: {' | '.join(e['error'])}" for e in errors]
        title, paper = _meta(registry, spec)
        n = len(results) + len(errors)
        recovered = sum(1 for r in results if _recovered(r))
        converged = sum(1 for r in results if r.get("converged"))
        cells = [str(paper.get("id", "–")), title]
        cells += [summary([_value(r, k) for r in results]) for k in COLUMNS]
        cells += [f"{converged}/{n}", f"{recovered}/{n}"]
        cells += [summary([_stage_seconds(r, s) for r in results]) for s in STAGES]
        cells += [_fmt(paper["refined_rel_l2"]) if "refined_rel_l2" in paper else "–",
                  _fmt(paper["total_seconds"]) if "total_seconds" in paper else "–"]
        lines.append("| " + " | ".join(cells) + " |")
        failures += [f"- {spec} seed {r['seed']}: not recovered (refined rel L2 {_fmt(_l2(r['result']))}); "
                     f"selected `{r['result'].get('expression')}`" for r in rows
                     if r["spec"] == spec and "result" in r and not _recovered(r["result"])]
    fieldwise = [f"- {r['spec']} seed {r['seed']}: {_fieldwise(r['result'])}" for r in rows
                 if "result" in r and _fieldwise(r["result"])]
    if fieldwise:
        lines += ["", "Fieldwise refined relative L2 (coupled problems; the table shows the joint value):", ""]
        lines += fieldwise
    if failures:
        lines += ["", "Runs not recovered:", ""] + failures
    return "\n".join(lines) + "\n"


def _meta(registry, spec: str) -> tuple[str, dict[str, Any]]:
    """The problem's title and its [paper] table (ID and the paper's figures), for files too."""
    from desyr.model.loading import load_problem

    try:
        problem = load_problem(spec, registry)
    except Exception:  # the table must still render for a run whose config is broken
        return spec, {}
    return problem.title, dict(problem.sections.get("paper") or {})


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def bench_unit(item: tuple) -> dict[str, Any]:
    """One configuration x seed (the unit an executor runs): its child run, then its outcome."""
    spec, seed, out, timeout, digest, verbose, extra = item
    return run_one(spec, seed, Path(out), timeout, Progress(verbose=verbose), digest, extra=extra)


def _run_all(jobs: list[tuple[str, int]], out: Path, timeout: float, progress: Progress,
             digests: dict[str, str], execution, registry) -> dict[tuple[str, int], dict[str, Any]]:
    """Every job through the executor; a job whose unit failed (its worker died twice) is recorded
    as failed and the others are kept: each finished run is already on disk."""
    from desyr.execution import make_executor
    from desyr.roles import UnitFailure

    executor = make_executor(registry, None, execution.executor if execution else None,
                             execution.workers if execution else None,
                             dict(execution.options or {}) if execution else None)
    # parallel bench: each child runs its units in process, or the cores would be oversubscribed;
    # a serial bench is serial all the way down
    extra: tuple[str, ...] = ("--executor", "serial") if executor.name == "serial" or (executor.workers > 1 and len(jobs) > 1) else ()
    if os.environ.get("DESYR_ALLOW_CALLABLE") == "1":
        extra += ("--allow-callable",)    # the consent travels with the job: a remote worker has its own env
    items = [(spec, seed, str(out), timeout, digests[spec], progress.verbose, extra) for spec, seed in jobs]
    with executor:
        answers = executor.map(bench_unit, items) if len(items) > 1 else [bench_unit(i) for i in items]
    outcomes = {}
    for (spec, seed), answer in zip(jobs, answers):
        if isinstance(answer, UnitFailure):
            answer = {"spec": spec, "seed": seed, "ok": False, "error": answer.message}
            progress.message(f"bench: {spec} seed {seed}: FAILED ({answer['error']})")
        outcomes[(spec, seed)] = answer
    return outcomes


def bench(registry, names: list[str], all_: bool, seeds: int, out: str | Path, timeout: float,
          progress: Progress, command: str, execution=None) -> dict[str, Any]:
    if not isinstance(seeds, int) or seeds < 1:
        raise ConfigError("--seeds must be at least 1")
    if not (isinstance(timeout, (int, float)) and timeout > 0 and timeout == timeout):
        raise ConfigError(f"--timeout must be a positive number of seconds, got {timeout!r}")
    specs = list(dict.fromkeys(resolve_names(registry, names, all_)))
    digests = {spec: config_digest(registry, spec) for spec in specs}
    out = Path(out)
    with run_lock(out), _signals_kill_children():
        jobs = [(spec, seed) for spec in specs for seed in range(seeds)]
        outcomes = _run_all(jobs, out, timeout, progress, digests, execution, registry)
        rows = collect(out, specs, seeds, digests, outcomes=outcomes)
        data = {"command": command, "specs": specs, "seeds": seeds, "runs": rows,
                "configs": {spec: digests[spec] for spec in specs}}
        try:
            write_json_atomic(out / "bench.json", data)
            write_text_atomic(out / "bench.md", render_markdown(rows, specs, registry, command))
        except (OSError, TypeError, ValueError) as exc:
            raise ConfigError(f"cannot write the bench summary in {out}: {getattr(exc, 'strerror', None) or exc}") \
                from None
    return data
