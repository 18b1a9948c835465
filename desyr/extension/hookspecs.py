"""Hook specifications: what a DeSyR plugin may implement.

A plugin is any importable module or object registered under the ``desyr``
entry-point group, for example in a plugin's ``pyproject.toml``::

    [project.entry-points.desyr]
    my_gates = "my_package.desyr_plugin"

Implementations are marked with :data:`desyr.plugin.hookimpl`.  The component
hooks collect from every plugin (on a name clash the first plugin loaded wins,
see :mod:`desyr.extension.registry`); ``desyr_load_problem`` stops at the first answer.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

    from desyr.extension.contributed import BenchColumn, StudyBench
    from desyr.extension.options import CommandOption, Option
    from desyr.extension.roles import Executor, Gate, Refiner, Searcher, Teacher
    from desyr.model.problem import Problem, ProblemSet

hookspec = pluggy.HookspecMarker("desyr")
#: Mark a plugin function as an implementation of a DeSyR hook.
hookimpl = pluggy.HookimplMarker("desyr")


@hookspec
def desyr_register_teachers() -> list[type[Teacher]]:
    """Contribute teacher components.

    Return a list of :class:`desyr.extension.roles.Teacher` subclasses.  Each class
    has a unique ``name`` (selected by ``[teacher] plugin = NAME``), an
    ``options`` mapping of accepted options with defaults, and implements
    ``prepare(problem, context) -> TeacherModel``; ``TeacherModel.predict(X)``
    returns an (n, n_fields) array.  A teacher must never read reference values.
    Under ``--budget``, ``context.deadline`` is when ``prepare`` returns its best model so far; a
    teacher still working at its stop time is stopped (docs/escalation.md, *The budget is a wall*).
    """


@hookspec
def desyr_register_searchers() -> list[type[Searcher]]:
    """Contribute symbolic-search components.

    Return a list of :class:`desyr.extension.roles.Searcher` subclasses.  Each
    declares the operators of the common vocabulary it supports
    (``supported_binary``, ``supported_unary``) and implements
    ``search(task: SearchTask) -> SearchResult``: one seeded search whose
    result is the empirical Pareto front, each member a sympy expression with
    Float constants in the task's variables, its raw search complexity and its
    teacher-fit MSE, plus JSON-safe ``info``.  The core checks every member and
    drops (with a warning naming the searcher) those that are not sympy
    expressions, not finite, or use symbols that are not the problem's variables.
    Under ``--budget``, ``task.deadline`` (``task.seconds_left()``) is when the search returns its
    best front so far; a search still running at its stop time is stopped and left out of the pool.
    """


@hookspec
def desyr_register_refiners() -> list[type[Refiner]]:
    """Contribute Stage-B refiner components.

    Return a list of :class:`desyr.extension.roles.Refiner` subclasses.  Each
    implements ``refine(candidate, problem, points) -> RefitOutcome``: the
    candidate's tree stays frozen and only its constants are re-estimated from
    the governing equation and constraints, never from teacher data.  Under
    ``--budget`` each refit gets the seconds left (``within(seconds)``); a refit still
    running at its stop time is stopped, and its candidate counts as not refit.
    """


@hookspec
def desyr_register_gates() -> list[type[Gate]]:
    """Contribute Stage-C selection gates.

    Return a list of :class:`desyr.extension.roles.Gate` subclasses.  Each
    implements ``apply(pool, context) -> GateDecision`` listing the candidates
    it keeps (at least one of a non-empty pool) and, for each removed one, the
    reason.  Gates run in the order of ``[selection] gates`` in the config, or
    in the order of their ``default_position`` when the config names none.
    Under ``--budget`` the gates share ``context.deadline``; a gate still deciding at
    their stop time is stopped and removes no candidate, no gate starts after it, and
    the core's own physics check decides among the candidates kept (docs/escalation.md).
    """


@hookspec
def desyr_register_executors() -> list[type[Executor]]:
    """Contribute executor components (where independent units of work run).

    Return a list of :class:`desyr.extension.roles.Executor` subclasses.  Each implements
    ``map(fn, items) -> list``: ``fn(item)`` for every item, results in input
    order, a :class:`desyr.extension.roles.UnitFailure` in place of a unit that raised or
    whose worker died.  Selected by ``[execution] plugin = NAME`` or
    ``--executor NAME``; the executor never changes a unit's result.  Under
    ``--budget`` the core calls ``map_until(fn, items, deadline)``: an executor that
    can stop a worker answers a unit not back by then with ``UnitFailure(stopped=True)``.
    A ``map_until`` still running 2 s past its deadline is stopped itself (it is called on
    the run's main thread) and named, as any component that overruns.
    """


@hookspec(firstresult=True)
def desyr_load_problem(spec: str) -> Problem | None:
    """Resolve a problem reference that is not a file path.

    Return a :class:`desyr.model.problem.Problem` for ``spec`` (for example
    ``"paper:burgers"``), or ``None`` to let the next plugin try.  The first
    non-``None`` answer wins.
    """


@hookspec
def desyr_problem_library() -> list[tuple[str, str]]:
    """List problems a plugin ships.

    Return a list of ``(spec, title)`` pairs that ``desyr_load_problem`` can
    resolve; ``desyr problems`` and ``desyr bench --all`` use the union over
    all plugins.
    """


@hookspec
def desyr_problem_sets() -> list[ProblemSet]:
    """Declare named problem sets.

    Return a list of :class:`desyr.plugin.ProblemSet`.  ``desyr bench --all --set NAME`` runs a set's specs; the set marked
    ``default`` (at most one over all plugins; the first loaded wins) is what
    ``--all`` runs without ``--set`` and where bare problem names are looked up
    first.  The core itself names no set.
    """


@hookspec
def desyr_cli_options() -> list[CommandOption]:
    """Declare command-line options (as tox's ``tox_add_option``).

    Return a list of :class:`desyr.plugin.CommandOption`: the flag, its help, the commands that take
    it, where its value goes (an executor option, an environment variable) and the config places
    that may not set it (``command_line_only``).  ``desyr run --help`` lists them; a flag that clashes
    with the core's or another plugin's is left out, with a warning naming the plugin.  The core
    itself declares no plugin's option.
    """


@hookspec
def desyr_config_sections() -> dict[str, Mapping[str, Option]]:
    """Declare config sections (tables) a plugin reads.

    Return ``{section name: {key: Option}}``.  A config may then carry ``[name]``; its keys are
    checked against the declared options when the config is loaded, with the same one-line errors
    as the core's sections, and ``problem.sections[name]`` holds the table as written (read-only).  A name the
    core or an earlier plugin already declares is left out, with a warning naming the plugin.
    """


@hookspec
def desyr_bench_columns() -> list[BenchColumn]:
    """Add columns to the bench table.

    Return a list of :class:`desyr.plugin.BenchColumn`: a header and ``value(problem)``, the cell of
    one configuration (a number, a text, or ``None`` for a dash), for example the figures a problem
    set's own table (``[paper]``) records for it.  ``lead`` columns come before the problem's title
    (and appear in ``bench.html`` too), the others after the timings.  A header an earlier plugin
    gives is left out; a value that raises prints a dash.  The core itself adds no plugin's column.
    """


@hookspec(firstresult=True)
def desyr_study_bench() -> StudyBench | None:
    """Offer the tiny bench the quick studies run.

    Return a :class:`desyr.plugin.StudyBench` (config name -> TOML text, the environment its runs
    need, a note for the study), or ``None``.  ``desyr study NAME --quick`` runs it with the real
    ``desyr bench`` when a study reads archived runs and no ``--bench`` is given; the first answer
    wins.  The core itself names no component for it.
    """
