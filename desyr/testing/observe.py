"""What the conformance checks look at: one component run on the check problem, each run made once.

A :class:`Subject` is a component class with its options and problem. Each named check
(:mod:`desyr.testing.conformance`) asks it for a run (``subject.once("first", ...)``); the run is made
on the first ask and remembered, so a dozen checks of one component cost about the two runs that a
determinism check needs anyway. A run that breaks a rule is remembered as its
:class:`ContractViolation`, raised again to every check that needs the run.
"""
from __future__ import annotations

import dataclasses
import json
import pickle
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from desyr.errors import DesyrError, PluginError
from desyr.extension.guard import contained
from desyr.extension.registry import check_contract
from desyr.extension.roles import Component
from desyr.model.context import RunContext
from desyr.model.problem import Problem
from desyr.testing.helpers import make_problem
from desyr.testing.snapshots import changed_paths, fingerprint

__all__ = ["ContractViolation", "Subject", "violation", "contained_call", "check_json_safe", "check_picklable",
           "context_parts", "unchanged"]

_T = TypeVar("_T")

#: context fields a component may not change but the core may (progress bars, the run's executor)
_CORE_OWNED = ("progress", "units")


class ContractViolation(PluginError):
    """A component breaks its role's contract; the message names the rule and the fix."""


def violation(component: Any, problem: str, fix: str) -> ContractViolation:
    cls: Any = component if isinstance(component, type) else type(component)
    named = f"{cls.role} '{cls.name}'"
    while problem.startswith(named):        # the core's own line names it already: say it once
        problem = problem[len(named):].lstrip(": ")
    return ContractViolation(f"{named} ({cls.__name__}): {problem}; {fix}")


class Subject:
    """One component class under check, with its options and problem, and its remembered runs."""

    def __init__(self, cls: Any, options: Mapping[str, Any], problem: Problem | None = None) -> None:
        self.cls, self.options = cls, dict(options)
        self.problem = problem if problem is not None else make_problem()
        self._memo: dict[str, tuple[bool, Any]] = {}

    def once(self, key: str, compute: Callable[[], _T]) -> _T:
        """``compute()`` on the first ask; its value, or its violation raised again, after."""
        if key not in self._memo:
            try:
                self._memo[key] = (True, compute())
            except ContractViolation as exc:
                self._memo[key] = (False, str(exc))
        ok, value = self._memo[key]
        if not ok:
            raise ContractViolation(value)
        return value  # type: ignore[no-any-return]

    @property
    def component(self) -> Any:
        """The instance every run uses (one instance, as a run uses one: state kept between calls shows)."""
        return self.once("instance", self._instantiate)

    def _instantiate(self) -> Component:
        check_class(self.cls)
        try:
            instance: Component = self.cls(**self.options)
        except DesyrError as exc:
            raise violation(self.cls, f"the options {self.options} are refused ({exc})",
                            "pass options the class declares, with values its Option specs accept") from None
        return instance


def check_class(cls: Any) -> None:
    """What the registry checks at load, with a hint for the usual slips."""
    if isinstance(cls, Component):
        raise ContractViolation(f"check_component got an instance of {type(cls).__name__}; pass the class, not an "
                                f"instance: check_component({type(cls).__name__}, **options)")
    if not (isinstance(cls, type) and issubclass(cls, Component)):
        raise ContractViolation(f"check_component got {cls!r}; pass a component class (a subclass of "
                                "desyr.plugin.Teacher, Searcher, Refiner, Gate or Executor)")
    try:
        check_contract(cls, cls.role)
    except PluginError as exc:
        raise ContractViolation(str(exc)) from None


def check_picklable(component: Component) -> None:
    """Searchers and refiners travel to worker processes with every unit."""
    try:
        pickle.loads(pickle.dumps(component))
    except Exception as exc:
        raise violation(component, f"the instance cannot be pickled ({type(exc).__name__}: {exc})",
                        "the processes executor sends components to workers: keep only picklable state "
                        "(no lambdas, locks, open files or clients; create those inside the method)") from None


def check_json_safe(component: Any, value: Any, what: str) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise violation(component, f"{what} is not JSON-safe ({exc})",
                        "put only str, int, finite float, bool, None, lists and dicts there (convert numpy "
                        "values with .tolist() or float())") from None


def contained_call(component: Component, call: Callable[[], _T]) -> _T:
    """A component's call with the core's containment: any error is one line naming it."""
    try:
        with contained(component.role, component.name):
            return call()
    except PluginError as exc:
        said = str(exc).removeprefix(f"{component.role} '{component.name}': ")
        raise violation(component, f"it failed on the check problem ({said})",
                        "make it run on desyr.testing.SINE_POISSON_1D (or pass problem=)") from None


def context_parts(ctx: RunContext, prefix: str = "context") -> dict[str, Any]:
    """The context's fields a component reads, named for a fingerprint (its problem is named apart)."""
    return {f"{prefix}.{f.name}": getattr(ctx, f.name) for f in dataclasses.fields(ctx)
            if f.name not in (*_CORE_OWNED, "problem")}


def unchanged(named: Mapping[str, Any], call: Callable[[], _T]) -> tuple[_T, list[str]]:
    """``call()``'s value and the paths of ``named`` it changed."""
    before = fingerprint(named)
    value = call()
    return value, changed_paths(before, fingerprint(named))


def mutation(component: Any, changed: list[str], fix: str) -> ContractViolation:
    shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
    return violation(component, f"it changed what it was given: {shown}",
                     f"treat its inputs as read-only ({fix}); the core hands the same objects to other components")


def require_unchanged(component: Any, changed: list[str], fix: str) -> None:
    """Raise :func:`mutation` when the component changed any of its inputs."""
    if changed:
        raise mutation(component, changed, fix)
