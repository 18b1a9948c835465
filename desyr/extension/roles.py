"""The abstract base classes of the plugin roles (teacher, searcher, refiner, gate, executor).

A plugin contributes *component classes*.  The core checks each class against
its role's contract when the plugin is loaded (a name, declared options, every
abstract method implemented), instantiates it with the options from the config
(``[teacher.options]`` and so on, checked against the declared specs) and calls
the methods below.  Everything crossing these boundaries is plain numpy, sympy
or a dataclass of :mod:`desyr.model`, so no plugin needs another plugin's libraries.
"""
from __future__ import annotations

import abc
import importlib
import inspect
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import sympy as sp

from desyr.errors import ComponentError, DesyrError, PluginError
from desyr.extension.options import Option, OptionError, checked_specs, validate
from desyr.extension.role_names import ROLES
from desyr.model.search import ParetoMember, Proposals, SearchResult, SearchTask, teacher_fit_mse

if TYPE_CHECKING:  # pragma: no cover
    from desyr.model.candidates import Candidate, RefitOutcome
    from desyr.model.context import RunContext
    from desyr.model.points import PointSets
    from desyr.model.problem import Problem


__all__ = ["ROLES", "Component", "ComponentError", "Teacher", "TeacherModel", "Searcher", "SearchTask",
           "SearchResult", "ParetoMember", "Refiner", "Gate", "GateDecision", "Executor", "UnitFailure", "Option",
           "optional_import"]


def optional_import(who: str, module: str, package: str, extra: str) -> ModuleType:
    """Import a plugin's optional library when the component is used, or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ComponentError(f"{who} needs {package} ({exc}); install it with `pip install {package}` "
                             f"or `pip install desyr[{extra}]`") from None


class Component(abc.ABC):
    """Base of every component.

    ``name`` is how configs select the component. ``options`` declares the
    options it accepts, each an :class:`desyr.extension.options.Option` (a bare default
    value is accepted too, and its type is inferred); unknown or ill-typed values
    are a config error raised by :meth:`validate_options` before any work starts.
    ``default = True`` offers the component as its role's default, used when a
    config names none; gates use ``default_position`` (their place in the default
    sequence) instead.
    """

    name: ClassVar[str]
    role: ClassVar[str]
    options: ClassVar[Mapping[str, Any]] = {}
    default: ClassVar[bool] = False
    #: options whose configured value becomes a field of the run's MethodConstants (option -> field), so
    #: that the core's cleaning and coupled shortlists use the same number as this component
    method_fields: ClassVar[Mapping[str, str]] = {}
    #: markdown tables the component offers to the docs, by key: a doc's block ``<!-- table: ROLE NAME KEY -->``
    #: ... ``<!-- /table -->`` is rendered from it by ``python -m desyr.cli.docgen`` (e.g. an exact searcher's methods)
    doc_tables: ClassVar[Mapping[str, str]] = {}

    def __init__(self, **options: Any) -> None:
        self.settings = self.validate_options(options)

    @classmethod
    def validate_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults merged with ``given``, each value checked against its :class:`desyr.extension.options.Option`."""
        try:
            return validate(cls.options, given, f"{cls.role} '{cls.name}'")
        except OptionError as exc:
            raise ComponentError(str(exc)) from None


# --------------------------------------------------------------------- teacher
class TeacherModel(abc.ABC):
    """A frozen field approximation: the thing Stage A samples."""

    fields: Sequence[str]

    @abc.abstractmethod
    def predict(self, X: np.ndarray) -> np.ndarray:
        """Values at points ``X`` (n, d): an array (n, n_fields) in ``fields`` order."""

    def info(self) -> dict[str, Any]:
        """Facts for the report (training time, S_val history, cache key, ...)."""
        return {}


class Teacher(Component):
    """Stage A's field approximation: ``prepare`` trains or loads a :class:`TeacherModel` whose
    ``predict(X)`` gives finite values of shape (n, n_fields); it never reads reference values."""

    role = "teacher"

    def larger_budget(self) -> dict[str, Any] | None:
        """Options for a larger training budget (escalation's ``larger_teacher`` step); None: no such step."""
        return None

    def smaller_budget(self) -> dict[str, Any] | None:
        """Options for a smaller, cheaper teacher that the configured one can continue from (the anytime
        order: the quick searchers try its values first); None: the configured teacher is trained at once."""
        return None

    @abc.abstractmethod
    def prepare(self, problem: Problem, context: RunContext) -> TeacherModel:
        """Train or load a teacher for ``problem``; never touches reference values."""


# -------------------------------------------------------------------- searcher
class Searcher(Component):
    """One seeded symbolic search on teacher samples: ``search(task)`` returns the empirical Pareto
    front in the task's variables, using only the declared (and configured) operators."""

    role = "searcher"
    #: operators of the common vocabulary this searcher can express
    supported_binary: ClassVar[frozenset[str]] = frozenset()
    supported_unary: ClassVar[frozenset[str]] = frozenset()
    #: generic budget keys (SearchTask.budget) -> option names of this searcher
    budget_aliases: ClassVar[Mapping[str, str]] = {}
    #: generic budget keys this searcher has no use for (ignored, and listed in the run info)
    budget_ignored: ClassVar[frozenset[str]] = frozenset()
    #: options a budget may not override
    budget_protected: ClassVar[frozenset[str]] = frozenset()
    #: a cheap searcher that joins the default searcher when a config names none
    joins_default_pool: ClassVar[bool] = False
    #: its searches take seconds: pooled with slower searchers on one field, it runs first, alone, and a
    #: verified answer from its candidates ends the attempt before the others start (the anytime order)
    quick: ClassVar[bool] = False
    #: escalation's ``other_searcher`` step may add this searcher to the pool; lower ranks are tried first
    escalation_rank: ClassVar[int | None] = None
    #: False for an :class:`ExactSearcher`, which proposes from the equations alone
    needs_teacher: ClassVar[bool] = True

    def settings_for(self, task: SearchTask) -> tuple[dict[str, Any], list[str]]:
        """The options with ``task.budget`` applied, and the budget keys that were ignored."""
        settings, ignored = dict(self.settings), []
        for key, value in dict(task.budget or {}).items():
            if key in self.budget_ignored:
                ignored.append(key)
                continue
            name = self.budget_aliases.get(key, key)
            if name not in self.options or name in self.budget_protected:
                accepted = sorted((set(self.options) - self.budget_protected) | set(self.budget_aliases)
                                  | self.budget_ignored)
                raise ComponentError(f"searcher '{self.name}' does not understand budget key '{key}'; "
                                     f"accepted: {', '.join(accepted)}")
            settings[name] = value
        return settings, ignored

    def task_arrays(self, task: SearchTask) -> tuple[np.ndarray, np.ndarray]:
        """X (n, d) and y (n,) as writable float copies (the task's own arrays are read-only; a library
        may write into what it is given), checked against the variable names."""
        X = np.array(task.X, dtype=float)
        y = np.array(task.y, dtype=float).ravel()
        if X.ndim != 2 or X.shape[1] != len(task.variables) or X.shape[0] != y.shape[0]:
            raise ComponentError(f"searcher '{self.name}': X has shape {X.shape}, y {y.shape}, "
                                 f"variables {list(task.variables)}")
        return X, y

    def scored_members(self, raw: Iterable[tuple[str, int, Callable[[], sp.Expr]]], task: SearchTask
                       ) -> tuple[list[ParetoMember], int]:
        """Front members from ``(label, complexity, build_expression)`` triples, each scored by its
        teacher-fit MSE; a member that cannot be converted or is not finite is dropped with a
        warning (a search result is still useful without it). Returns the members and the number dropped."""
        from desyr.symbolic.expressions import Vocabulary

        X, y = self.task_arrays(task)
        symbols = list(Vocabulary(list(task.variables)).var_symbols.values())
        members, dropped = [], []
        for label, size, build in raw:
            try:
                expr = build()
            except ValueError as exc:
                dropped.append(f"{label}: {exc}")
                continue
            loss = teacher_fit_mse(expr, symbols, X, y)
            if not math.isfinite(loss):
                dropped.append(f"{label}: non-finite loss")
                continue
            members.append(ParetoMember(expr, int(size), loss))
        if dropped:
            warnings.warn(f"searcher '{self.name}' dropped {len(dropped)} front member(s): " + "; ".join(dropped[:3]),
                          RuntimeWarning, stacklevel=2)  # the searcher's own search()
        return members, len(dropped)

    def check_operators(self, binary: Sequence[str], unary: Sequence[str]) -> None:
        """Raise a one-line error naming the configured operators this searcher cannot express
        (``supported_binary``, ``supported_unary``); called before any search runs."""
        missing = [op for op in binary if op not in self.supported_binary]
        missing += [op for op in unary if op not in self.supported_unary]
        if missing:
            raise ComponentError(
                f"searcher '{self.name}' cannot express operator(s) {', '.join(missing)}"
            )

    @abc.abstractmethod
    def search(self, task: SearchTask) -> SearchResult | list[ParetoMember]:
        """Run one seeded search: a :class:`SearchResult` (front and info), or the front alone."""


class ExactSearcher(Searcher):
    """A searcher that needs no teacher: ``propose(problem, time_limit)`` returns complete candidates
    from the equations and constraints alone (a computer-algebra solver, a table of known solutions).

    Exact searchers run first, in an attempt of their own before any teacher is trained
    (``[solvers]`` in the config); their candidates go through the same Stage B, gates and
    verifier as a search's, so a wrong proposal costs time, never a wrong verdict."""

    needs_teacher: ClassVar[bool] = False

    @abc.abstractmethod
    def propose(self, problem: Problem, time_limit: float) -> Proposals:
        """Candidates for ``problem``; each solver call bounded by ``time_limit`` seconds (a solver
        that can hang runs where it can be stopped). Failures are attempts, not exceptions."""

    def search(self, task: SearchTask) -> SearchResult | list[ParetoMember]:
        raise ComponentError(f"searcher '{self.name}' needs no teacher samples: it proposes through propose()")


# --------------------------------------------------------------------- refiner
class Refiner(Component):
    """Stage B: re-estimates a candidate's constants from the equations and constraints alone;
    ``refine`` returns a :class:`desyr.model.candidates.RefitOutcome` for the candidate's own fields."""

    role = "refiner"
    #: modules :meth:`refine` imports on its first call rather than at the top (heavy ones): a run
    #: imports them ahead, on a side thread, while it waits on stage 0's solver children
    imports_ahead: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def refine(self, candidate: Candidate, problem: Problem, points: PointSets) -> RefitOutcome:
        """Re-estimate the constants of ``candidate`` from physics alone."""

    def screening(self, starts: int, evaluations: int) -> Refiner:
        """A cheaper variant for the coupled screening refits (at most ``starts`` starts and about
        ``evaluations`` residual evaluations); a refiner without such knobs screens as itself."""
        return self

    def within(self, seconds: float) -> Refiner:
        """A variant that returns within about ``seconds``, with the best constants it has by then
        (``--budget``: a refit started before the wall must not run far past it); a refiner without
        such a knob returns itself."""
        return self


# ------------------------------------------------------------------------ gate
@dataclass
class GateDecision:
    """What one gate did: who survived, who was removed and why."""

    kept: list[Candidate]
    removed: dict[str, str] = field(default_factory=dict)   # candidate id -> reason
    active: bool = True
    note: str = ""


class Gate(Component):
    """Stage C: one selection step over the refit pool; ``apply`` returns a :class:`GateDecision`
    that keeps some of the given candidates and gives a reason for each one removed."""

    role = "gate"
    #: place in the default gate sequence (used when a config has no ``[selection] gates``); None: not in it
    #: True for a gate that ranks by complexity (the method's last gate): the gates study, replaying a
    #: sequence without it, breaks remaining ties by Phi instead
    ranks_by_complexity: ClassVar[bool] = False
    default_position: ClassVar[int | None] = None

    @abc.abstractmethod
    def apply(self, pool: list[Candidate], context: RunContext) -> GateDecision:
        """Filter the refined pool: the kept candidates and a reason for each removed one.

        A gate must keep at least one candidate of a non-empty pool (unless it gives a reason
        for removing every one); the core checks this and stops with an error naming the gate."""



# -------------------------------------------------------------------- executor
@dataclass
class UnitFailure:
    """The answer of :meth:`Executor.map` for a unit that did not finish: one failed unit must not
    lose the others. ``error`` is the unit's own exception when there is one (re-raise it to keep
    its message); ``lost`` says the worker died (killed, out of memory) rather than the unit raising;
    ``stopped`` that :meth:`Executor.map_until` stopped waiting on it at its deadline."""

    message: str
    error: BaseException | None = None
    lost: bool = False
    stopped: bool = False


class Executor(Component):
    """Runs independent units of work (searches, refits, bench runs) somewhere: in process, on local
    cores, on a cluster.

    ``fn`` is a module-level function and every item is picklable (component instances, tasks,
    candidates, the problem, point arrays), so a unit can run in another process or machine. A unit's
    result never depends on where it ran: seeds belong to units, never to workers.
    """

    role = "executor"
    #: options a config may not set, each with where to set it instead: options that make desyr trust
    #: something outside the config (a Dask scheduler sends code for desyr to unpickle and run) belong
    #: to whoever runs desyr (command line, environment, Python API), never to a config file
    command_line_only: ClassVar[Mapping[str, str]] = {}
    #: True for an executor that runs every unit in the calling process, in order: what the Python API
    #: uses without ``execution=`` and what each child of a parallel ``desyr bench`` runs its units on
    #: where the bench's executor does not honour a jobserver
    in_process: ClassVar[bool] = False
    #: True for a local executor that honours the jobserver of a parallel ``desyr bench``
    #: (:mod:`desyr.runtime.jobserver`): in a bench's child it runs a map's units side by side only on
    #: tokens it borrows without waiting (``borrowed_tokens``), returns them when the map ends, and runs
    #: the units in process when it borrows none. A parallel bench on such an executor hands it to its
    #: children, so a long job uses the cores the finished ones left; on any other, its in-process one
    jobserver: ClassVar[bool] = False

    @property
    def workers(self) -> int:
        """How many units run at once (1: in order, in this process)."""
        return 1

    @abc.abstractmethod
    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """``[fn(item) for item in items]`` in input order, run wherever this executor runs units.

        A unit that raises, or whose worker dies (retried once first where the executor can),
        is answered by a :class:`UnitFailure` in its place; the other units still complete."""

    def map_until(self, fn: Callable[[Any], Any], items: Sequence[Any], deadline: float) -> list[Any]:
        """:meth:`map`, under a run's budget: a unit not back by ``deadline`` (``time.time()``) is answered
        by ``UnitFailure(..., stopped=True)`` and abandoned where it runs (an executor that can stops
        its worker). Each unit stops itself at its own stop time where a signal reaches it (a worker
        process's main thread), so this is the backstop for a unit that cannot be interrupted.

        The default calls :meth:`map`: an executor that runs units in this process has no worker to stop,
        and one that cannot stop a worker should override this to stop waiting. Either way the core stops
        the call itself 2 s past ``deadline`` where a signal reaches it (the map is called on the run's
        main thread: a map that sleeps or waits there is stopped), names the executor, keeps the units
        answered in this process, and counts the others as not run (docs/plugins.md, "How each role is
        bounded")."""
        return self.map(fn, items)

    def close(self) -> None:
        """Release workers or cluster connections; called once at the end of a run or bench."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_contract(cls: Any, role: str) -> None:
    """The role contract, checked at load: a concrete subclass with a name and valid option specs."""
    if not isinstance(cls, type) and isinstance(cls, Component):
        raise PluginError(f"{type(cls).__name__}(...) is an instance; return the class {type(cls).__name__} "
                          f"itself from the hook (pass the class, not an instance)")
    if not (isinstance(cls, type) and issubclass(cls, Component)):
        raise PluginError(f"{cls!r} is not a {role} component class; return subclasses of "
                          f"desyr.plugin.{role.capitalize()} (pass the class, not an instance)")
    if cls.role != role:
        raise PluginError(f"{cls.__name__} is a {cls.role} component, contributed as a {role}; return it from "
                          f"desyr_register_{cls.role}s instead")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name or ":" in name or name != name.strip():
        raise PluginError(f"{cls.__name__} has no valid name (a non-empty string without ':')")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise PluginError(f"{role} '{name}' ({cls.__name__}) does not implement {missing}")
    try:
        checked_specs(cls.options)
    except (DesyrError, TypeError, AttributeError) as exc:
        raise PluginError(f"{role} '{name}' declares invalid options: {exc}") from None
