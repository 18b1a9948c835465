"""``desyr verify``: re-verify a result from scratch, or any formula against any problem.

A result folder is untrusted: its ``exact`` flag, residuals and verdict are never read.
What is sent to the verifier is the config text the result carries (or the problem given
with ``--problem``), the printed expressions, the exact form and the seed.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from desyr.errors import ConfigError

if TYPE_CHECKING:  # the parser is built by `desyr --help`, which must not load SymPy
    from desyr.config.loading import RegistryLike
    from desyr.model.problem import Problem

#: the installed plugins (a function that loads them when a spec such as paper:X must be resolved); the
#: verifier's side never looks inside: it hands them to the config loader (no plugin machinery here)
Plugins: TypeAlias = "RegistryLike"



def add_parser(sub: Any) -> None:
    s = sub.add_parser("verify", help="re-verify a result, or a formula against a problem, in a separate process",
                       description="Decide Proved / Verified / Not exact in a clean verifier process that imports "
                                   "no plugin (docs/security.md).")
    s.add_argument("target", help="a result folder or result.json; or, with --candidate, a problem TOML or spec")
    s.add_argument("--candidate", default=None, metavar="EXPR",
                   help="the formula to verify against the problem TARGET ('u = ...; v = ...' for several fields)")
    s.add_argument("--exact-form", default=None, metavar="EXPR", help="an exact form of the candidate to prove (it must agree with --candidate numerically)")
    s.add_argument("--problem", default=None, metavar="SPEC",
                   help="verify a result against this problem instead of the config the result carries")
    s.add_argument("--seed", type=int, default=None,
                   help="replay the verifier's points of an earlier verdict (its seed; default: fresh points from the "
                        "operating system's entropy, the seed printed)")
    s.add_argument("--json", action="store_true", help="print the verifier's JSON answer")
    s.add_argument("--require", choices=("proved", "verified"), default=None,
                   help="exit with status 1 unless the verdict is at least this")


def request_verdict(request: dict[str, Any]) -> dict[str, Any]:
    """The separate verifier's answer (imported on use: ``desyr --help`` builds this parser without SymPy)."""
    from desyr.verify.child import START
    from desyr.verify.child import request_verdict as ask

    bound = request.get("bound")
    return ask(request, float(bound) + START) if isinstance(bound, float) else ask(request)


def verify_command(registry: Plugins, args: argparse.Namespace) -> int:
    import time

    from desyr.symbolic.time_limit import OutOfTime, time_limit
    from desyr.verify.budget import BOUND, SHARES
    from desyr.verify.request import config_of

    clock = time.monotonic()
    try:
        # the whole command answers within the verifier's bound: reading the problem here is part of it
        with time_limit(SHARES["reading"]):
            if args.candidate is not None:
                problem = _problem(args.target, registry)
                request = _request(config_of(problem), split_candidate(problem, args.candidate),
                                   split_candidate(problem, args.exact_form) if args.exact_form else None,
                                   args.seed)
            else:
                request = result_request(Path(args.target), registry, args.problem, args.seed)
    except OutOfTime:
        raise ConfigError(f"no verdict within the verifier's time bound of {BOUND:g} s: reading the problem took "
                          f"more than its {SHARES['reading']:g} s") from None
    request["bound"] = round(BOUND - (time.monotonic() - clock), 3)
    answer = request_verdict(request)
    if args.candidate is None:
        _compare_data(Path(args.target), answer)
    _warn_uninformative(answer)
    if args.json:
        print(json.dumps(answer, indent=2))
    else:
        _print(answer)
    rank = {"proved": 2, "verified": 1, "not_exact": 0}
    return 1 if args.require and rank[answer["verdict"]] < rank[args.require] else 0


def result_request(path: Path, registry: Plugins, problem_spec: str | None, seed: int | None) -> dict[str, Any]:
    """A request from an untrusted ``result.json``: only its expressions, exact form, seed and config."""
    from desyr.verify.request import config_of

    data = read_result_json(path)
    exprs = data.get("expression")
    if not exprs:
        raise ConfigError(f"{path}: the result has no selected expression")
    form = data.get("exact_form")
    exact = form.get("expressions") if isinstance(form, dict) else None
    if problem_spec is not None:
        config = config_of(_problem(problem_spec, registry))
    elif isinstance(data.get("config"), dict):
        config = {k: data["config"].get(k) for k in ("format", "text", "source")}
        _compare_with_source(path, config, registry)
    else:
        source = (data.get("problem") or {}).get("source") if isinstance(data.get("problem"), dict) else None
        if not isinstance(source, str):
            raise ConfigError(f"{path}: the result carries no config; name the problem with --problem")
        config = config_of(_problem(source, registry))
    return _request(config, exprs, exact, seed)     # the run's seed is not the verifier's: fresh unless replayed


def _compare_with_source(path: Path, config: dict[str, Any], registry: Plugins) -> None:
    """Warn when the config a result carries is not the one its source names today: a result file can
    carry any config, and a user reading 'Proved' should know which problem was proved."""
    import sys

    from desyr.verify.request import config_of
    from desyr.verify.verdict import config_sha256

    source = config.get("source")
    if not isinstance(source, str) or not isinstance(config.get("text"), str):
        return
    try:
        installed = config_of(_problem(source, registry))
    except Exception:  # noqa: BLE001 - an unloadable source is only a missing comparison
        return
    if installed["text"] != config["text"]:
        print(f"desyr: warning: the config in {path} differs from {source} as it reads now; verifying against "
              f"the result's copy (sha256 {config_sha256(config['text'])[:16]}); use --problem {source} to verify "
              "against yours", file=sys.stderr)


def _warn_uninformative(answer: dict[str, Any]) -> None:
    """Observations that cannot tell one candidate from another are padding, whoever put them there; and
    a tolerance the config sets for itself is said."""
    import sys

    warning = _get(answer, "observations", "warning")
    if isinstance(warning, str) and warning:
        print(f"desyr: warning: {warning}", file=sys.stderr)
    # a result folder carries its config, tolerance included: one looser than the default is said
    tolerance = answer.get("tolerance_warning")
    if isinstance(tolerance, str) and tolerance:
        print(f"desyr: warning: {tolerance}", file=sys.stderr)


def _compare_data(path: Path, answer: dict[str, Any]) -> None:
    """Warn when the observations verified now are not the ones the run recorded: a config names its
    data file by path, and the file may have changed since (the run's digest is only a hint, as
    untrusted as the rest of the folder, so this warns and decides nothing)."""
    import sys

    now = _get(answer, "observations", "sha256")
    recorded = _get(read_result_json(path), "verification", "answer", "observations", "sha256")
    if isinstance(now, str) and isinstance(recorded, str) and now != recorded:
        print(f"desyr: warning: the observations verified now (sha256 {now[:16]}) are not those the run recorded "
              f"(sha256 {recorded[:16]}): the data file changed since the run, or --problem names other data",
              file=sys.stderr)


def _get(data: Any, *keys: str) -> Any:
    """``data[k1][k2]...``, or None where a level is missing or not a table (a result file is untrusted)."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def read_result_json(path: Path) -> dict[str, Any]:
    from desyr.model.result import read_result_data

    path, data = read_result_data(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a DeSyR result")
    return data


def split_candidate(problem: Problem, text: str) -> dict[str, str]:
    """``"u = ...; v = ..."`` (or one expression for a one-field problem) as text per field, and
    ``"...; nu = 1/10"`` for each unknown of an inverse problem."""
    if "=" not in text:
        if len(problem.fields) != 1:
            raise ConfigError(f"the problem has fields {', '.join(problem.fields)}: write 'u = ...; v = ...'")
        return {problem.fields[0]: text}
    out: dict[str, str] = {}
    for part in text.split(";"):
        name, eq, expr = part.partition("=")
        name = name.strip()
        if not eq or name not in problem.solution_names or name in out:
            raise ConfigError(f"cannot read {part.strip()!r:.60}: write 'u = ...; v = ...' with each field of "
                              f"{', '.join(problem.solution_names)} once")
        out[name] = expr.strip()
    return out


def _request(config: dict[str, Any], exprs: Any, exact: Any, seed: Any) -> dict[str, Any]:
    from desyr.verify.request import REQUEST_SCHEMA

    return {"schema": REQUEST_SCHEMA, "config": config, "expressions": exprs, "exact_expressions": exact,
            "seed": seed}


def _problem(spec: str, registry: Plugins) -> Problem:
    from desyr.config.loading import load_problem

    return load_problem(spec, registry)     # the plugins are loaded only for a spec, or a file that extends one


def _points_said(points: dict[str, Any]) -> str:
    """How many fresh points, and the config's ask where the verifier's floor raised it."""
    said = f"{points['interior']} fresh interior points"
    asked, floor = points.get("asked") or {}, points.get("floor") or {}
    if isinstance(asked.get("interior"), int) and asked["interior"] < points["interior"]:
        said += f" (the config asks for {asked['interior']}; the verifier draws at least {floor.get('interior')})"
    return said


def _print(answer: dict[str, Any]) -> None:
    words = {"proved": "Proved", "verified": "Verified (not proved)", "not_exact": "Not exact"}
    res = answer["residuals"]
    print(f"{words[answer['verdict']]}: {answer['reason']}")
    for f, e in {**answer["expressions"], **answer.get("unknowns", {})}.items():
        print(f"  {f} = {e}")
    if answer.get("observations"):
        print(f"  observations: {answer['observations']['reason']}")
    form = answer.get("exact_form") or {}
    if form.get("proved"):
        for f, e in {**form["expressions"], **form.get("unknowns", {})}.items():
            print(f"  exact form: {f} = {e}")
    print(f"  relative residual={res.get('relative')} (problem's scale {res.get('scale')}) R_eq={res['R_eq']} "
          f"R_con={res['R_con']} rel_l2={res['rel_l2']}")
    print(f"  tolerance {answer['exact_tolerance']:g}; {_points_said(answer['points'])}, seed {answer['seed']} "
          f"({'replayed' if answer.get('seed_from') == 'request' else 'fresh'}: --seed {answer['seed']} replays them); "
          f"{answer['seconds']:.2f} s")
    print(f"  problem: {answer['source']}, config sha256 {answer['config_sha256']}")
