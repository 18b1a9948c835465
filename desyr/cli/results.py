"""``desyr exact`` and ``desyr export``: work on a finished ``result.json`` without re-running anything."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sympy import Sum

from desyr.api import write_result
from desyr.config.loading import load_problem
from desyr.errors import ConfigError
from desyr.exact import FORMATS, export
from desyr.extension.registry import Registry
from desyr.model.points import make_verification_points
from desyr.model.result import load_result
from desyr.runtime.atomic import run_lock, write_text_atomic
from desyr.stages.closed_form import identify
from desyr.verify.attach import attach_verdict
from desyr.verify.child import VerifierError, request_verdict
from desyr.verify.command import result_request
from desyr.verify.verdict import read_problem


def exact_command(registry: Registry, args: argparse.Namespace) -> int:
    """Identify constants and canonical forms again (the teacher and search are not needed)."""
    path = _result_path(args.result)
    result = load_result(path)
    exprs = result.solution(exact=False)
    if exprs is None:
        raise ConfigError(f"{path}: the result has no selected expression")
    exprs = {**exprs, **result.unknown_values(exact=False)}     # an inverse problem's values go along
    if result.config is not None:       # the config the result carries (its hash is in the file)
        problem = read_problem({"format": result.config.format, "text": result.config.text,
                                "source": result.config.source})
    else:
        problem = load_problem(result.problem.source, registry)
    if list(problem.fields) != result.problem.fields or problem.variable_names != result.problem.variables:
        raise ConfigError(f"{path}: the problem at {result.problem.source} no longer has the result's fields "
                          "and variables")
    folder = Path(args.out) if getattr(args, "out", None) else path.parent
    with run_lock(folder):
        result.exact_form = identify(problem, exprs, make_verification_points(problem, result.seed), result.seed)
        # the file's own verdict is a claim: the verifier decides again before the report is rewritten
        result.verification = None
        attach_verdict(result, problem)
        write_result(result, folder)
    for f, e in result.exact_form.expressions.items():
        print(f"{f} = {e}")
    from desyr.report.markdown import visible

    print(f"verdict: {result.verdict} ({visible(result.verification.reason) if result.verification else ''})")
    print(_written(folder, in_place=folder.resolve() == path.parent.resolve()))
    return 0


def _written(folder: Path, in_place: bool) -> str:
    """What ``desyr exact`` wrote; rewriting the run's own files in place is said, with the way to avoid it."""
    names = f"{folder / 'result.json'}, {folder / 'report.md'} and {folder / 'report.html'}"
    if in_place:
        return f"rewrote in place (the previous versions are replaced; --out DIR writes elsewhere): {names}"
    return f"wrote {names}"


def export_command(registry: Registry, args: argparse.Namespace) -> int:
    if args.to not in FORMATS:
        raise ConfigError(f"--to {args.to!r}: choose one of {', '.join(FORMATS)}")
    path = _result_path(args.result)
    result = load_result(path)
    line, answer = _verdict_line(path, registry)
    # the exact form only where the verifier proved it: a verdict line must describe the formula below it
    form = answer.get("exact_form") if answer else None
    exact = not args.numeric and isinstance(form, dict) and form.get("proved") is True
    exprs = result.solution(exact=exact)
    if exprs is None:
        raise ConfigError(f"{args.result}: the result has no selected expression")
    unknowns = result.unknown_values(exact=exact)
    text = _comment(args.to, line) + _comment(args.to, "exported: " + ("the proved exact form" if exact else
                                                                      "the printed formula"))
    if unknowns:        # the formula holds with these coefficients: say so beside it
        text += _comment(args.to, "unknown coefficients: " + ", ".join(f"{n} = {v}" for n, v in unknowns.items()))
    text += export(exprs, result.problem.variables, args.to, domain=_domain(result) if _is_series(exprs) else None)
    if args.output:
        target = Path(args.output)
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise ConfigError(f"-o {args.output}: not a regular file (a folder, link, device or pipe); name a file")
        try:
            write_text_atomic(target, text if text.endswith("\n") else text + "\n")
        except OSError as exc:
            raise ConfigError(f"-o {args.output}: cannot write it ({exc.strerror or exc})") from None
        print(f"wrote {args.output}")
    else:
        print(text)
    return 0


def _is_series(exprs: dict[str, Any]) -> bool:
    return any(getattr(e, "has", lambda *_: False)(Sum) for e in exprs.values())


def _domain(result: Any) -> dict[str, tuple[float, float]] | None:
    """Each variable's range, from the config the result carries (a series' tail bound holds over it)."""
    if result.config is None:
        return None
    problem = read_problem({"format": result.config.format, "text": result.config.text,
                            "source": result.config.source})
    return {v.name: (float(v.lo), float(v.hi)) for v in problem.variables}


#: how each export format starts a comment line
_COMMENT = {"latex": "%", "c": "//", "fortran": "!"}


def _comment(fmt: str, line: str) -> str:
    return f"{_COMMENT.get(fmt, '#')} {line}\n"


def _verdict_line(path: Path, registry: Registry) -> tuple[str, dict[str, Any] | None]:
    """The verdict of a fresh verifier run, and its answer: a hand-edited ``"exact": true`` in the file counts
    for nothing."""
    try:
        answer = request_verdict(result_request(path, lambda: registry, None, None))
    except (VerifierError, ConfigError) as exc:
        return f"desyr verdict: unverified ({' '.join(str(exc).split())[:160]})", None
    return f"desyr verdict: {answer['verdict']} (re-verified by desyr verify; {' '.join(answer['reason'].split())})", answer


def _result_path(given: str) -> Path:
    path = Path(given)
    return path / "result.json" if path.is_dir() else path
