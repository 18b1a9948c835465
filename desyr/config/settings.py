"""Config sections: their declared options and the function that reads one checked section.

Every table of a problem config is declared here once (:data:`SECTIONS`), so the
loader can check each value before any work starts and ``docs/config.md`` can be
generated from the same declarations.  The method's constants are
:class:`desyr.model.constants.MethodConstants`; building components from a config is
:mod:`desyr.config.components`; a run's typed settings are :mod:`desyr.config.spec`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desyr.errors import ConfigError
from desyr.extension.bases import ACTIVE
from desyr.extension.options import Option, OptionError, validate
from desyr.model.constants import METHOD
from desyr.model.frozen import thawed
from desyr.symbolic import operator_names

if TYPE_CHECKING:  # pragma: no cover
    from desyr.extension.declared import Declared
    from desyr.extension.registry import Registry
    from desyr.model.problem import Problem

#: upper bound on every point count: beyond it one run would not fit in memory on a workstation
MAX_POINTS = 1_000_000
#: operators of the common vocabulary (their meaning: desyr.symbolic.operators; names only here, so
#: a config's sections are checked before SymPy loads)
BINARY_OPERATORS = operator_names.BINARY
UNARY_OPERATORS = operator_names.UNARY



_PLUGIN = Option(None, "component name (or PLUGIN:NAME); default: the component that declares itself default",
                 kind=str, nullable=True)
_TABLE = Option({}, "options of the selected component (checked against its declared options)", kind=dict)

#: escalation's steps, in their default order (desyr.escalation applies them)
ESCALATION_STEPS = ("enrich_library", "other_searcher", "more_searches", "larger_teacher")

SECTIONS: dict[str, dict[str, Option]] = {
    "points": {
        "refine": Option(2000, "interior points of the Stage-B refit", kind=int, low=1, high=MAX_POINTS),
        "verify": Option(2000, "independent interior points for the run's own check (the verifier draws at least 2000)", kind=int, low=1,
                         high=MAX_POINTS),
        "search": Option(500, "structure-search points X_S (teacher samples)", kind=int, low=1, high=MAX_POINTS),
        "validate": Option(2000, "points of the teacher's physics-validation score S_val", kind=int, low=1,
                           high=MAX_POINTS),
        "constraint": Option(200, "default points per constraint set", kind=int, low=1, high=MAX_POINTS),
        "seed": Option(0, "default seed of point sets, teacher and searches", kind=int, low=0, high=2**32 - 1),
    },
    "search": {
        "plugin": _PLUGIN,
        "binary": Option(["+", "-", "*", "/"], "binary operators", kind=list, item=str, choices=BINARY_OPERATORS,
                         low=1),
        "unary": Option(None, "unary operators: the whole library (restricts it); None (not given): chosen from "
                        "the problem and grown by escalation (docs/escalation.md)", kind=list, item=str,
                        choices=UNARY_OPERATORS, nullable=True),
        "add_unary": Option([], "unary operators added to the chosen library (only without unary)", kind=list,
                            item=str, choices=UNARY_OPERATORS),
        "max_size": Option(20, "complexity bound C_max of a searched tree (the dictionary searcher's sums may "
                           "exceed it unless its enforce_max_size is set)", kind=int, low=1, high=200),
        "runs": Option(2, "K: seeded searches per field", kind=int, low=1, high=1000),
        "plugins": Option(None, "several searchers whose candidates pool, e.g. [\"operon\", \"dictionary\"] "
                          "(each runs K searches); options of the first in [search.options], of the others in "
                          "[search.options.<name>]", kind=list, item=str, nullable=True, low=1),
        "seed_waves": Option(True, "search the K seeds in two waves and skip the second when the first is verified "
                             "exact (docs/searchers.md); the first wave holds the fewest seeds that give two "
                             "searches, whatever the executor", kind=bool),
        "seed_offset": Option(0, "index of the first search seed (escalation uses it to run new seeds)", kind=int,
                              low=0, high=999),
        "options": _TABLE,
        "budget": Option({}, "generic budget (iterations, populations, time_limit) mapped to the searcher's options",
                         kind=dict),
    },
    "teacher": {"plugin": _PLUGIN, "options": _TABLE},
    "refine": {"plugin": _PLUGIN, "options": _TABLE},
    "selection": {
        "gates": Option(None, "gate names in order; default: the installed gates' default sequence", kind=list,
                        item=str, nullable=True, low=1),
        "options": Option({}, "a table per gate name: [selection.options.<gate>]", kind=dict),
        "exact_tolerance": Option(METHOD.exact_tolerance, "verified exact when every residual, relative to the problem's scale, is at most this",
                                  kind=float, low=0.0, high=1.0, open_low=True),
    },
    "coupled": {
        "shortlist": Option(12, "candidates per field", kind=int, low=1, high=1000),
        "screening_points": Option(750, "interior subset of the refinement set for screening", kind=int, low=1,
                                   high=MAX_POINTS),
        "screened_groups": Option(16, "best-ranked groups screened by a joint refit", kind=int, low=1, high=10000),
        "screening_starts": Option(1, "starts of a screening refit", kind=int, low=1, high=100),
        "screening_max_nfev": Option(1000, "evaluation cap of a screening refit", kind=int, low=1, high=10**7),
        "cluster_tolerance": Option(METHOD.rate_cluster_tolerance, "relative spread of one rate cluster",
                                    kind=float, low=0.0, high=10.0, open_low=True),
        "shared_clusters": Option(2, "shared rate clusters kept", kind=int, low=1, high=100),
        "trig_factors": Option(3, "trigonometric factors per field for augmentation", kind=int, low=1, high=100),
        "added_per_field": Option(6, "augmented candidates per field", kind=int, low=1, high=1000),
        "multiples": Option(list(METHOD.rate_multiples), "multiples k of a shared rate", kind=list, item=int,
                            low=1, high=16),
    },
    "solvers": {
        "enabled": Option(True, "try the exact searchers (e.g. SymPy's dsolve) in a first attempt, before any "
                          "teacher is trained; a verified candidate ends the run there", kind=bool),
        "plugins": Option(None, "exact searchers to try, in order; None: every installed one", kind=list, item=str,
                          nullable=True),
        "time_limit": Option(10.0, "seconds for each solver call (a call past it is stopped and recorded)",
                             kind=float, low=0.0, high=3600.0, open_low=True),
        "options": Option({}, "a table per exact searcher: [solvers.options.<name>]", kind=dict),
    },
    "execution": {
        "plugin": Option(None, "executor (serial, processes, dask, ...); default: the executor that declares itself "
                         "default (processes: the local cores)", kind=str, nullable=True),
        "workers": Option(None, "units run at once; None: the executor's own default (the usable local cores)",
                          kind=int, low=1, high=100_000, nullable=True),
        "options": _TABLE,
    },
    "escalation": {
        "budget": Option(None, "wall-clock seconds for the whole run, retries included; None: one attempt "
                         "(--budget overrides)", kind=float, low=0, high=30 * 86400, open_low=True, nullable=True),
        "steps": Option(list(ESCALATION_STEPS), "the policy's steps, in order (docs/escalation.md)", kind=list,
                        item=str, choices=ESCALATION_STEPS),
    },
}


def read_section(problem: Problem, name: str) -> dict[str, Any]:
    """The section's values checked against :data:`SECTIONS`, defaults filled in (``[points]``: the
    problem's point counts)."""
    table = problem.points if name == "points" else problem.sections.get(name)
    try:
        return validate(SECTIONS[name], thawed(table or {}), f"[{name}]")
    except OptionError as exc:
        raise ConfigError(f"{problem.source}: {exc}") from None


def check_sections(problem: Problem, plugins: Callable[[], PluginTables] | None = None) -> dict[str, dict[str, Any]]:
    """Every section of the config, checked before any work starts; the core's checked tables.

    The plugins' sections and rules are checked where the plugins are known (``plugins``, else the
    context's :func:`declared_by_plugins`, else the registry of a spec being answered), and asked for
    only when the config holds something the core does not know; where they are not known (the
    verifier loads no plugin), a plugin's section is carried as written and the run checks it."""
    provider = plugins or _PROVIDER.get() or _answering()
    plugins_known = provider() if provider is not None and _needs_plugins(problem) else None
    if plugins_known is not None:
        _refuse(problem, plugins_known.refused)
    tables = {name: read_section(problem, name) for name in SECTIONS}
    if tables["search"]["unary"] is not None and tables["search"]["add_unary"]:
        raise ConfigError(f"{problem.source}: [search] give unary (the whole library) or add_unary (added to the "
                          "library chosen from the problem), not both")
    if any(k < 1 for k in tables["coupled"]["multiples"]):
        raise ConfigError(f"{problem.source}: [coupled] multiples must be positive integers")
    if plugins_known is not None:
        _check_plugin_sections(problem, plugins_known)
    return tables


@dataclass(frozen=True)
class PluginTables:
    """What the loaded plugins declare about configs: their sections, and the places a config may not
    set (``execution.options.address`` -> why, and where to set it instead)."""

    sections: Mapping[str, Mapping[str, Option]] = field(default_factory=dict)
    refused: Mapping[str, str] = field(default_factory=dict)


#: who answers for the plugins while a config is loaded (the run's loader sets it; None: not known here)
_PROVIDER: ContextVar[Callable[[], PluginTables] | None] = ContextVar("plugin_tables", default=None)


@contextmanager
def declared_by_plugins(provider: Callable[[], PluginTables] | None) -> Iterator[None]:
    """Configs read inside the block check plugin sections and rules against ``provider()``,
    called at most when a config holds something the core does not know."""
    token = _PROVIDER.set(provider)
    try:
        yield
    finally:
        _PROVIDER.reset(token)


def tables_of(registry: Registry) -> PluginTables:
    """What ``registry``'s plugins declare about configs (their declarations are asked once)."""
    found = plugin_declarations(registry)
    return PluginTables(found.sections, found.refused())


def plugin_declarations(registry: Registry) -> Declared:
    """Every declaration of ``registry``'s plugins (command-line options, config sections with their
    plugins), the core's own section names reserved; asked once per registry."""
    from desyr.extension.declared import declared

    return declared(registry, reserved=(*PROBLEM_KEYS, *SECTIONS, *UNCHECKED, "extends"))


def _answering() -> Callable[[], PluginTables] | None:
    """The registry of the spec a plugin is answering, if any (its configs are checked with it)."""
    loading = ACTIVE.get()
    registry = loading.registry if loading is not None else None
    if registry is None or not hasattr(registry, "load_problem"):
        return None
    return lambda: tables_of(registry)


#: the problem's own top-level keys; any other table is a section (the core's or a plugin's)
PROBLEM_KEYS = ("name", "title", "description", "domain", "time", "fields", "equations", "constraints", "reference",
                "parameters", "unknowns", "observations")
#: sections every problem carries as written, whose keys no one checks (kept for the configs' identities)
UNCHECKED = ("plugins",)


def foreign_sections(problem: Problem) -> list[str]:
    """The problem's sections that are not the core's (a plugin's, or unknown)."""
    return [k for k, table in problem.sections.items() if k not in SECTIONS and (table or k not in UNCHECKED)]


def _needs_plugins(problem: Problem) -> bool:
    """Whether the config holds anything the core itself does not check: a section not its own, a key
    its sections do not declare, or a component's options table."""
    if foreign_sections(problem):
        return True
    for name, specs in SECTIONS.items():
        table = problem.sections.get(name)
        if isinstance(table, Mapping) and (set(table) - set(specs) or table.get("options")):
            return True
    return False


def _refuse(problem: Problem, refused: Mapping[str, str]) -> None:
    for place, why in refused.items():
        table: Any = problem.sections
        *path, key = place.split(".")
        for part in path:
            table = table.get(part) if isinstance(table, Mapping) else None
        if isinstance(table, Mapping) and key in table:
            where = "[" + ".".join(path) + "]"
            raise ConfigError(f"{problem.source}: {where} {key}: {why}")


def _check_plugin_sections(problem: Problem, plugins: PluginTables) -> None:
    unknown = [k for k in foreign_sections(problem) if k not in plugins.sections]
    if unknown:
        allowed = ", ".join(sorted({*SECTIONS, *plugins.sections}))
        raise ConfigError(f"{problem.source}: unknown section(s) {', '.join(f'[{k}]' for k in unknown)}; "
                          f"sections: {allowed} (a plugin's section needs its plugin: see 'desyr plugins')")
    for name in foreign_sections(problem):
        try:
            validate(plugins.sections[name], thawed(problem.sections.get(name) or {}), f"[{name}]")
        except OptionError as exc:
            raise ConfigError(f"{problem.source}: {exc}") from None
