"""The ``desyr`` command line."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from desyr._version import __version__
from desyr.cli.plugins import (
    LeftOut,
    add_plugin_options,
    apply_plugin_options,
    list_plugins,
    list_problems,
    loaded_registry,
    parse_with_plugins,
    plugin_option,
    plugins_for_children,
)
from desyr.errors import DesyrError

if TYPE_CHECKING:
    from desyr.api import Execution
    from desyr.extension.options import CommandOption
    from desyr.extension.registry import Registry
    from desyr.model.problem import Problem

EXIT_USAGE = 2
EXIT_NOTHING_SELECTED = 1     # run/refine finished but selected nothing: not a success (docs/results.md)


class _Parser(argparse.ArgumentParser):
    """argparse, with every usage error on one line like DeSyR's own (``desyr: error: ...``), exit 2."""

    def error(self, message: str) -> NoReturn:
        print(f"desyr: error: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _parser(declared: Sequence[tuple[str, CommandOption]] = (), left_out: list[LeftOut] | None = None
            ) -> argparse.ArgumentParser:
    """The command line; ``declared`` adds the plugins' options (hook ``desyr_cli_options``); a flag a
    command already has is left out with a warning, or noted in ``left_out`` where given."""
    p = _Parser(prog="desyr", description="Recover exact closed-form solutions of differential equations.")
    p.add_argument("--version", action="version", version=f"desyr {__version__}")
    plugin_option(p, "plugins")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("plugins", help="list installed components, shadowed ones and failed plugins")
    s.add_argument("--json", action="store_true",
                   help="print JSON: components (role, name, origin, entry point, options), shadowed, failures")

    sub.add_parser("problems", help="list the bundled problems (e.g. paper:burgers)")

    s = sub.add_parser("refine", help="Stages B and C on given candidates")
    s.add_argument("config", help="problem TOML file or spec such as paper:sine_poisson_1d")
    s.add_argument("--candidate", action="append", default=[], metavar="EXPR",
                   help="candidate expression; repeat for several; 'u = ...; v = ...' for several fields")
    _common(s)
    s.add_argument("--teacher", action="store_true",
                   help="use the configured teacher for the teacher-compatibility gate")

    s = sub.add_parser("run", help="the full pipeline: teacher, search, refit, gates, verification")
    s.add_argument("config", help="problem TOML file or spec such as paper:burgers")
    _common(s)
    s.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="wall time for the run with retries: while the result is not verified exact, escalate "
                        "(more searches, the other searcher, a richer library, a larger teacher); the run returns "
                        "its best result within it, plus the verdict's few seconds; overrides [escalation] budget "
                        "(docs/escalation.md)")

    s = sub.add_parser("exact", help="re-run constant identification and canonical forms on an existing result")
    s.add_argument("result", help="result.json (or the folder holding it)")
    s.add_argument("--out", default=None, metavar="DIR",
                   help="write result.json and the reports to DIR (default: rewrite the result's own, in place)")
    s.add_argument("--quiet", action="store_true", help="no progress output")

    from desyr.verify.command import add_parser as add_verify

    add_verify(sub)

    s = sub.add_parser("export", help="write the solution of a result as code or LaTeX")
    s.add_argument("result", help="result.json (or the folder holding it)")
    s.add_argument("--to", required=True, metavar="FORMAT",
                   help="latex, sympy, numpy, torch, jax, c, fortran or julia")
    s.add_argument("--output", "-o", default=None, help="file to write (default: standard output)")
    s.add_argument("--numeric", action="store_true", help="export the numeric expression, not the exact form")

    s = sub.add_parser("bench", help="run problems over several seeds (resumable) and tabulate like the paper")
    s.add_argument("names", nargs="*", help="problem names or IDs (see 'desyr problems'), or TOML files")
    s.add_argument("--all", action="store_true", help="every problem of a bundled set (--set; default: the set "
                   "an installed plugin declares default, the paper's configurations)")
    s.add_argument("--set", default=None, dest="problem_set", metavar="NAME",
                   help="the problem set --all takes, e.g. paper or examples (see 'desyr problems')")
    s.add_argument("--seeds", type=int, default=1, help="teacher seeds per problem (0..N-1)")
    s.add_argument("--out", required=True, help="directory for runs/, bench.json and bench.md")
    s.add_argument("--timeout", type=float, default=3600.0,
                   help="seconds per run before it is recorded as failed (inf: no limit)")
    s.add_argument("--quiet", action="store_true", help="no progress output")
    _plots(s)
    _execution(s)

    from desyr.studies import describe

    s = sub.add_parser("study", help="run one of the paper's mechanism studies (see docs/studies.md)",
                       description="Studies:\n" + describe(), formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("name", metavar="NAME", help="the study (listed above)")
    s.add_argument("--out", required=True, help="directory for study.json, study.md and the figures")
    s.add_argument("--bench", default=None, metavar="DIR", help="a desyr bench folder with archived runs")
    s.add_argument("--quick", action="store_true", help="tiny budgets (seconds); CI-sized")
    s.add_argument("--quiet", action="store_true", help="no progress output")
    _plots(s)
    _execution(s)
    for command in sub.choices.values():     # a global option, before or after the command (as pytest's -p)
        plugin_option(command, "plugins_after")
    add_plugin_options(sub.choices, declared, left_out)
    return p


def _execution(s: argparse.ArgumentParser) -> None:
    s.add_argument("--executor", default=None, metavar="NAME",
                   help="where units run: serial, processes (default: the local cores), dask, or a plugin's")
    s.add_argument("--workers", type=int, default=None, help="units at once (default: the usable local cores)")


def _plots(s: argparse.ArgumentParser) -> None:
    s.add_argument("--no-plots", action="store_true", help="do not draw figures (they need matplotlib)")


def _common(s: argparse.ArgumentParser) -> None:
    s.add_argument("--out", default=None, help="directory for result.json and report.md")
    s.add_argument("--seed", type=int, default=None, help="seed for point sets, teacher and searches")
    s.add_argument("--retrain", action="store_true", help="train the teacher even if a cached one exists")
    s.add_argument("--cache-dir", default=".desyr-cache", help="where trained teachers are cached")
    s.add_argument("--quiet", action="store_true", help="no progress output")
    s.add_argument("--resume", action="store_true",
                   help="reuse the finished units of an interrupted run in OUT/store (same config and seed)")
    _plots(s)
    _execution(s)


def execution_of(args: argparse.Namespace) -> Execution:
    """The command line's execution settings (``[execution]`` of the config fills in the rest)."""
    from desyr.api import Execution

    if args.workers is not None and args.workers < 1:
        raise DesyrError(f"--workers must be at least 1, got {args.workers}")
    given = getattr(args, "plugin_options", {})      # the plugins' options given: those meant for the executor
    options = {option.executor_option: value for option, value in given.items() if option.executor_option} or None
    return Execution(args.executor, args.workers, options, bool(getattr(args, "resume", False)))


#: options whose value is an expression, which may start with a minus sign (``--candidate -1/x``)
EXPRESSION_OPTIONS = ("--candidate",)


def glued_expressions(argv: list[str]) -> list[str]:
    """``--candidate -1/x`` as ``--candidate=-1/x``: argparse takes a value that starts with ``-`` and is
    not a plain number for an option, and says the option expected an argument."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in EXPRESSION_OPTIONS and i + 1 < len(argv) and argv[i + 1].startswith("-") \
                and not argv[i + 1].startswith("--") and argv[i + 1] not in ("-h", "-p"):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
            continue
        if argv[i] == "--":
            return out + argv[i:]
        out.append(argv[i])
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    import time

    started = time.time()        # a run's --budget counts from here: the command's start-up is in it
    try:
        args = parse_with_plugins(_parser, glued_expressions(list(sys.argv[1:] if argv is None else argv)))
        args.started = started
        return _dispatch(args)
    except DesyrError as exc:     # ExpressionError is one too; importing it here would load SymPy
        print(f"desyr: error: {_one_line(exc)}{_traceback(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("desyr: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `desyr problems | head`: the reader left; say nothing more and keep Python quiet at exit.
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def entry() -> NoReturn:
    """The ``desyr`` command and ``python -m desyr``: :func:`main`, then :func:`leave`."""
    leave(main())


def leave(code: int) -> NoReturn:
    """Exit without the interpreter's teardown, everything being written: freeing SymPy's and
    SciPy's objects one by one took 0.6 s of a 4 s run. The atexit handlers still run (spare
    processes, temporary folders, Dask clients); while another thread runs, or where atexit has
    no ``_run_exitfuncs`` (not CPython), this is the normal exit."""
    import atexit
    import os
    import threading

    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if run_exitfuncs is None or threading.active_count() > 1:
        sys.exit(code)
    run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):    # a reader that left: nothing more can be said to it
        pass
    os._exit(code)


def _traceback(exc: BaseException) -> str:
    """A component's own failure behind a one-line error: its traceback when ``DESYR_TRACEBACK=1``
    (printed first), else a hint that it exists.  Users get one line; plugin authors get the line
    of their bug."""
    import os

    cause = exc.__cause__
    if cause is None:
        return ""
    if os.environ.get("DESYR_TRACEBACK", "") in ("", "0"):
        # a component's own ComponentError is a message for users, not a bug to locate
        return "" if isinstance(cause, DesyrError) else " (DESYR_TRACEBACK=1 shows where)"
    import traceback

    traceback.print_exception(cause, file=sys.stderr)
    return ""


def _one_line(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return " | ".join(line.strip() for line in lines if line.strip()) or type(exc).__name__


def _dispatch(args: argparse.Namespace) -> int:
    if getattr(args, "out", None) is not None and not args.out.strip():   # Path("") would be the working dir
        raise DesyrError("--out is empty; name a folder (--out . for the current one)")
    if getattr(args, "seed", None) is not None and not 0 <= args.seed < 2**32:
        raise DesyrError(f"--seed must be an integer in [0, 2**32), got {args.seed}")
    _check_numbers(args)
    apply_plugin_options(args)       # an environment variable a plugin reads: bench children inherit it
    _check_paths(args)
    if args.command == "verify":      # plugins are loaded only to resolve a spec such as paper:X
        from desyr.verify.command import verify_command

        return verify_command(lambda: loaded_registry(args), args)
    registry = loaded_registry(args)      # the one the options were parsed with, if any
    if args.command == "plugins":
        from desyr.extension.declared import cli_options

        left_out: list[LeftOut] = []
        _parser(cli_options(registry), left_out)       # which plugin flags the commands already have
        return list_plugins(registry, args.json, left_out)
    if args.command == "problems":
        return list_problems(registry)
    if args.command == "bench":
        return _bench(registry, args)
    if args.command == "study":
        return _study(registry, args)
    if args.command in ("exact", "export"):
        from desyr.cli.results import exact_command, export_command

        return exact_command(registry, args) if args.command == "exact" else export_command(registry, args)
    problem = _problem(args.config, registry, lambda: _start_spares(args))
    from desyr.runtime.progress import Progress

    if args.executor is not None:
        registry.info("executor", args.executor)      # an unknown name is an error even where no unit runs
    from desyr.cli.summary import print_summary, results_apart

    progress = Progress(verbose=not args.quiet)
    with results_apart():       # what the components print goes to stderr: stdout is the result's lines
        if args.command == "refine":
            from desyr.api import refine

            result = refine(problem, args.candidate, seed=args.seed, registry=registry, use_teacher=args.teacher,
                            out=args.out, progress=progress, retrain=args.retrain, cache_dir=args.cache_dir,
                            execution=execution_of(args), plots=not args.no_plots)
        else:
            from desyr.api import run

            result = run(problem, seed=args.seed, registry=registry, out=args.out, progress=progress,
                         retrain=args.retrain, cache_dir=args.cache_dir, execution=execution_of(args),
                         plots=not args.no_plots, budget=args.budget, budget_from=args.started)
    print_summary(result, args.out)
    return EXIT_NOTHING_SELECTED if result.expression is None else 0


def _problem(config: str, registry: Registry, start_spares: Callable[[], None]) -> Problem:
    """The problem of ``run`` or ``refine``; a spec goes to the plugins' problem hook directly, without
    the config reader's imports (SymPy), so a wrong one fails in a fraction of a second. The spares
    start once the outline is checked: their imports run on the core SymPy's import leaves idle."""
    import os

    if not os.path.isfile(config) and not config.endswith(".toml"):
        problem = registry.load_problem(config)       # a wrong spec fails at once, no process started
        start_spares()
        return problem
    from desyr.config.loading import load_problem, precheck_file

    precheck_file(config, registry)
    start_spares()
    return load_problem(config, registry)


def _start_spares(args: argparse.Namespace) -> None:
    """The verifier, and the figure drawer where figures will be drawn (it draws while the verifier checks)."""
    from desyr.verify.child import start_verifier

    start_verifier()
    if args.out is not None and not args.no_plots:
        from desyr.report.drawer import start_drawer

        start_drawer()


def _check_numbers(args: argparse.Namespace) -> None:
    """Option values that are wrong whatever the plugins: they fail before any plugin loads."""
    import math

    if getattr(args, "workers", None) is not None and args.workers < 1:
        raise DesyrError(f"--workers must be at least 1, got {args.workers}")
    budget = getattr(args, "budget", None)
    if budget is not None and not (0 < budget < math.inf):
        raise DesyrError(f"--budget must be a positive finite number of seconds, got {budget}")
    timeout = getattr(args, "timeout", None)
    if timeout is not None and not timeout > 0:        # NaN too
        raise DesyrError(f"--timeout must be a number of seconds in (0, inf] (inf: no limit), got {timeout}")


def _check_paths(args: argparse.Namespace) -> None:
    """Input paths that cannot exist fail here, in a fraction of a second, before the plugins load."""
    import os

    if args.command in ("run", "refine"):
        _must_exist(args.config, "config file")
        if os.path.isfile(args.config):
            from desyr.config.toml_text import read_toml

            read_toml(args.config)      # malformed TOML fails here, before the plugins load
        if args.out is not None:
            from desyr.runtime.atomic import check_out_dir

            check_out_dir(args.out)   # before loading anything heavy
    elif args.command in ("exact", "export"):
        _must_exist(args.result, "result", spec_allowed=False)
        if args.command == "exact" and args.out is not None:
            from desyr.runtime.atomic import check_out_dir
            check_out_dir(args.out)
    elif args.command == "verify":
        _must_exist(args.target, "result or problem", spec_allowed=args.candidate is not None)
    elif args.command == "bench":
        if args.seeds < 1:
            raise DesyrError("--seeds must be at least 1")
        for name in args.names:
            _must_exist(name, "config file")


def _must_exist(target: str, what: str, spec_allowed: bool = True) -> None:
    """A path-like target (a folder separator or a file suffix, or anything where no spec may stand) must exist."""
    import os

    path_like = not spec_allowed or os.sep in target or "/" in target or target.endswith((".toml", ".json"))
    if path_like and not os.path.exists(target):
        raise DesyrError(f"{what} not found: {target}")


def _bench(registry: Registry, args: argparse.Namespace) -> int:
    from desyr.bench.suite import bench
    from desyr.runtime.progress import Progress

    command = "desyr bench " + " ".join(sys.argv[2:] if sys.argv[1:2] == ["bench"] else [])
    with plugins_for_children(args):       # each run loads the -p modules this bench loaded
        data = bench(registry, args.names, args.all, args.seeds, args.out, args.timeout,
                     Progress(verbose=not args.quiet), command.strip(), execution=execution_of(args),
                     plots=not args.no_plots, problem_set=args.problem_set)
    failed = sum(1 for r in data["runs"] if "error" in r)
    print(f"wrote {args.out}/bench.json and {args.out}/bench.md ({len(data['runs'])} runs, {failed} failed)")
    return 0


def _study(registry: Registry, args: argparse.Namespace) -> int:
    from desyr.studies import run_study

    run_study(args.name, args.out, quick=args.quick, bench=args.bench, plots=not args.no_plots,
              registry=registry, verbose=not args.quiet)
    print(f"wrote {args.out}/study.json and {args.out}/study.md")
    return 0
