"""A run's settings, read once: the config checked against :data:`desyr.config.settings.SECTIONS`
and frozen into typed records.

Stages receive the record they need (``spec.search``, ``spec.coupled``, ...) instead of reading
the raw tables again, and escalation derives a new spec with :func:`dataclasses.replace`, so no
one edits the config's dicts.  Lists become tuples and tables read-only mappings: a component
that wants to change a value makes its own copy.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desyr.config.settings import check_sections, read_section, tables_of
from desyr.model.constants import MethodConstants
from desyr.model.frozen import ReadOnly
from desyr.model.frozen import frozen as frozen  # re-exported: escalation derives settings with it
from desyr.model.frozen import thawed as thawed

if TYPE_CHECKING:  # pragma: no cover
    from desyr.extension.registry import Registry
    from desyr.model.problem import Problem


class Settings:
    """Base of the section records: built from a checked section, and back to a plain table."""

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> Any:
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: frozen(v) for k, v in values.items() if k in names})

    def as_dict(self) -> dict[str, Any]:
        return {f.name: thawed(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True)
class PointsSettings(Settings):
    refine: int
    verify: int
    search: int
    validate: int
    constraint: int
    seed: int


@dataclass(frozen=True)
class ComponentChoice(Settings):
    """``[teacher]``, ``[refine]``: which component (None: the role's default) and its options."""

    plugin: str | None
    options: Mapping[str, Any]


@dataclass(frozen=True)
class SearchSettings(Settings):
    plugin: str | None
    binary: tuple[str, ...]
    unary: tuple[str, ...] | None        # None: chosen from the problem (desyr.unary.choice)
    max_size: int
    runs: int
    plugins: tuple[str, ...] | None
    seed_offset: int
    options: Mapping[str, Any]
    budget: Mapping[str, Any]
    add_unary: tuple[str, ...] = ()      # last, with defaults: code that built the settings before them keeps working
    seed_waves: bool = True


@dataclass(frozen=True)
class SelectionSettings(Settings):
    gates: tuple[str, ...] | None
    options: Mapping[str, Any]
    exact_tolerance: float


@dataclass(frozen=True)
class CoupledSettings(Settings):
    shortlist: int
    screening_points: int
    screened_groups: int
    screening_starts: int
    screening_max_nfev: int
    cluster_tolerance: float
    shared_clusters: int
    trig_factors: int
    added_per_field: int
    multiples: tuple[int, ...]


@dataclass(frozen=True)
class ExecutionSettings(Settings):
    plugin: str | None
    workers: int | None
    options: Mapping[str, Any]


@dataclass(frozen=True)
class EscalationSettings(Settings):
    budget: float | None
    steps: tuple[str, ...]


@dataclass(frozen=True)
class SolversSettings(Settings):
    """``[solvers]``: the exact searchers of the first attempt (docs/solvers.md)."""

    enabled: bool
    plugins: tuple[str, ...] | None
    time_limit: float
    options: Mapping[str, Any]


@dataclass(frozen=True)
class RunSpec:
    """Everything a run reads from its config, checked once; ``problem`` is never edited."""

    problem: Problem
    points: PointsSettings
    search: SearchSettings
    teacher: ComponentChoice
    refine: ComponentChoice
    selection: SelectionSettings
    coupled: CoupledSettings
    execution: ExecutionSettings
    escalation: EscalationSettings
    solvers: SolversSettings
    method: MethodConstants
    #: the settings as the config gave them (plain tables): what a spec derived by escalation is
    #: compared with (:func:`desyr.runtime.store.config_hash`)
    written: Mapping[str, Any] = field(default_factory=ReadOnly)

    def sections(self) -> dict[str, dict[str, Any]]:
        """The settings as plain tables, every default filled in (what identifies the config's choices)."""
        return {name: getattr(self, name).as_dict() for name in _SECTION_TYPES}


_SECTION_TYPES: dict[str, type[Settings]] = {
    "points": PointsSettings, "search": SearchSettings, "teacher": ComponentChoice, "refine": ComponentChoice,
    "selection": SelectionSettings, "coupled": CoupledSettings, "execution": ExecutionSettings,
    "escalation": EscalationSettings, "solvers": SolversSettings,
}


def section_settings(problem: Problem, name: str) -> Any:
    """One section of ``problem`` as its typed record."""
    return _SECTION_TYPES[name].of(read_section(problem, name))


def read_spec(problem: Problem, registry: Registry | None = None) -> RunSpec:
    """The config checked (every section, before any work) and read into a :class:`RunSpec`."""
    from desyr.config.components import constants_of

    # every section checked, and read, once; a plugin's section against its plugin's declaration
    tables = check_sections(problem, (lambda: tables_of(registry)) if registry is not None else None)
    typed = {name: _SECTION_TYPES[name].of(tables[name]) for name in _SECTION_TYPES}
    method = constants_of(tables["selection"], tables["refine"], registry, problem.source)
    written = {name: record.as_dict() for name, record in typed.items()}
    return RunSpec(problem=problem, method=method, written=frozen(written), **typed)
