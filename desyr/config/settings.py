"""Config sections: their declared options, the method's constants, and the helpers that read them.

Every table of a problem config is declared here once (:data:`SECTIONS`), so the
loader can check each value before any work starts and ``docs/config.md`` can be
generated from the same declarations.  The method's constants (paper §3.4 and
§3.5) are defined once in :class:`MethodConstants`; a run reads them once from
its config (:func:`method_constants`), so the gates and the checked cleaning use
the same values.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from desyr.errors import ComponentError, ConfigError
from desyr.extension.options import Option, OptionError, validate

if TYPE_CHECKING:  # pragma: no cover
    from desyr.extension.registry import Registry
    from desyr.extension.roles import Component
    from desyr.model.problem import Problem

#: upper bound on every point count: beyond it one run would not fit in memory on a workstation
MAX_POINTS = 1_000_000
#: operators of the common vocabulary
BINARY_OPERATORS = ("+", "-", "*", "/", "^")
UNARY_OPERATORS = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "asin", "acos",
                   "atan", "abs", "square", "cube")


@dataclass(frozen=True)
class MethodConstants:
    """The numbers of the method, in one place; gates, cleaning and refits read these.

    The cleaning constants below ``rate_multiples`` only decide what Stage C *tries* to remove
    (with a refit of the reduced tree); whether it is kept is the acceptance check's decision
    (``physics_*`` and ``teacher_*``, the same as the relative gates)."""

    constraint_weight: float = 100.0          # lambda_c: PDE residual + 100 x constraint residuals
    teacher_factor: float = 3.0               # eps_T <= 3 eps_T,min + 1e-8
    teacher_absolute: float = 1e-8
    physics_factor: float = 1.05              # Phi <= 1.05 Phi_min + 1e-10
    physics_absolute: float = 1e-10
    clean_term_tolerance: float = 1e-8        # additive terms below this are proposed for removal
    snap_integer_tolerance: float = 1e-12     # constants this close to an integer are snapped
    exact_tolerance: float = 1e-8             # verified exact: max(R_eq, R_con) at most this
    rate_cluster_tolerance: float = 0.35      # coupled: relative spread of one rate cluster
    rate_match_tolerance: float = 1e-9        # coupled: a rate shared by two fields
    rate_multiple_tolerance: float = 1e-8     # coupled: k * shared rate
    rate_multiples: tuple[int, ...] = (1, 2, 3, 4)
    # Stage C: cleaning with a refit (desyr.symbolic.degenerate, desyr.stages.select.reduce_degenerate)
    degenerate_argument_tolerance: float = 1e-3
    """A function argument whose variable part stays within this of 0 on the domain points is a
    rate near 0: ``exp(c*x)``, ``cos(c*x)`` -> 1, ``sin(c*x)`` -> ``c*x``, ``exp(a + c*x)`` -> ``exp(a)``."""
    like_term_tolerance: float = 1e-6
    """Two terms ``c1*g1 + c2*g2`` of one sum whose shapes (same tree up to their floats) differ by at
    most this times their size on the domain points merge into ``(c1 + c2)*g1``."""
    near_integer_tolerance: float = 1e-6
    """A float within this (relative, at least absolute) of a nonzero integer is proposed as that integer."""
    cleaning_rounds: int = 3
    """Rounds of reduction: each finds the near-degenerate parts of the current tree and keeps the first
    reduced, refit tree that passes the acceptance check; stops at a round that keeps none."""
    cleaning_refits: int = 8
    """Refits of reduced trees per candidate, over all rounds."""
    cleaning_refit_seconds: float = 10.0
    """Cap on the refiner's ``timeout`` option (where it has one) for each of those refits."""


METHOD = MethodConstants()

_PLUGIN = Option(None, "component name (or PLUGIN:NAME); default: the component that declares itself default",
                 kind=str, nullable=True)
_TABLE = Option({}, "options of the selected component (checked against its declared options)", kind=dict)

#: escalation's steps, in their default order (desyr.escalation applies them)
ESCALATION_STEPS = ("more_searches", "other_searcher", "enrich_library", "larger_teacher")

SECTIONS: dict[str, dict[str, Option]] = {
    "points": {
        "refine": Option(2000, "interior points of the Stage-B refit", kind=int, low=1, high=MAX_POINTS),
        "verify": Option(2000, "independent interior points for R_eq and relative L2", kind=int, low=1,
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
        "unary": Option([], "unary operators", kind=list, item=str, choices=UNARY_OPERATORS),
        "max_size": Option(20, "complexity bound C_max of a searched tree (the dictionary searcher's sums may "
                           "exceed it unless its enforce_max_size is set)", kind=int, low=1, high=200),
        "runs": Option(2, "K: seeded searches per field", kind=int, low=1, high=1000),
        "plugins": Option(None, "several searchers whose candidates pool, e.g. [\"operon\", \"dictionary\"] "
                          "(each runs K searches); options of the first in [search.options], of the others in "
                          "[search.options.<name>]", kind=list, item=str, nullable=True, low=1),
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
        "exact_tolerance": Option(METHOD.exact_tolerance, "verified exact when max(R_eq, R_con) is at most this",
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
    "paper": {
        "id": Option(None, "the configuration's ID in the paper", kind=str, nullable=True),
        "refined_rel_l2": Option(None, "the paper's refined relative L2", kind=float, nullable=True, low=0.0),
        "total_seconds": Option(None, "the paper's total wall time", kind=float, nullable=True, low=0.0),
    },
}


def read_section(problem: Problem, name: str) -> dict[str, Any]:
    """The section's values checked against :data:`SECTIONS`, defaults filled in."""
    try:
        return validate(SECTIONS[name], problem.sections.get(name) or {}, f"[{name}]")
    except OptionError as exc:
        raise ConfigError(f"{problem.source}: {exc}") from None


def check_sections(problem: Problem) -> None:
    """Every declared section of the config, checked before any work starts."""
    _refuse_scheduler(problem)
    for name in SECTIONS:
        read_section(problem, name)
    if any(k < 1 for k in read_section(problem, "coupled")["multiples"]):
        raise ConfigError(f"{problem.source}: [coupled] multiples must be positive integers")


def _refuse_scheduler(problem: Problem) -> None:
    """A scheduler sends code for desyr to unpickle and run: trusted code, which whoever runs desyr
    names, never a config (whichever executor the command line picks; plugin executors list their
    own such options in ``Executor.command_line_only``)."""
    execution = problem.sections.get("execution")
    options = execution.get("options") if isinstance(execution, Mapping) else None
    for where, table in (("[execution]", execution), ("[execution.options]", options)):
        if isinstance(table, Mapping) and "scheduler" in table:
            raise ConfigError(f"{problem.source}: {where} scheduler: a config may not name a Dask scheduler "
                              "(a scheduler sends code for desyr to run); pass --scheduler ADDRESS on the "
                              "command line, or set DASK_SCHEDULER_ADDRESS or Dask's scheduler-address configuration")


def component(registry: Registry, problem: Problem, role: str, table: str,
              override: str | None = None) -> Component:
    """Instantiate the component a config section selects, with its checked options."""
    sec = read_section(problem, table)
    name = override or sec["plugin"] or registry.default(role)
    try:
        return registry.create(role, name, dict(sec["options"]))
    except ComponentError as exc:
        raise ConfigError(f"{problem.source}: [{table}.options]: {exc}") from None


def searcher_names(registry: Registry, problem: Problem) -> list[str]:
    """``[search] plugins``, else ``[search] plugin``, else the default searcher with every installed
    searcher that joins the default pool (``Searcher.joins_default_pool``)."""
    sec = read_section(problem, "search")
    if sec["plugins"] is None and sec["plugin"] is not None:
        return [sec["plugin"]]
    if sec["plugins"] is None:
        first = registry.default("searcher")
        return [first] + [n for n in registry.names("searcher")
                          if n != first and getattr(registry.get("searcher", n), "joins_default_pool", False)]
    names = list(dict.fromkeys(sec["plugins"]))
    if sec["plugin"] is not None and sec["plugin"] != names[0]:
        raise ConfigError(f"{problem.source}: [search] plugin = {sec['plugin']!r} and plugins = {names!r} "
                          "disagree; give plugins alone (its first entry takes [search.options])")
    return names


def searchers(registry: Registry, problem: Problem) -> list[Component]:
    """The configured searchers: the first with ``[search.options]`` (less the tables of the
    others), every other with its own ``[search.options.<name>]`` table."""
    names = searcher_names(registry, problem)
    options = dict(read_section(problem, "search")["options"])
    own = {n: options.pop(n) for n in names[1:] if n in options}
    made = []
    for i, name in enumerate(names):
        where = "[search.options]" if i == 0 else f"[search.options.{name}]"
        try:
            given = options if i == 0 else _table(own.get(name, {}), where)
            made.append(registry.create("searcher", name, dict(given)))
        except (ComponentError, OptionError) as exc:
            raise ConfigError(f"{problem.source}: {where}: {exc}") from None
    return made


def gate_sequence(registry: Registry, problem: Problem) -> list[Component]:
    """The configured gates, instantiated with their options (checked before any work)."""
    sec = read_section(problem, "selection")
    names = sec["gates"] if sec["gates"] is not None else registry.default_gates()
    options = sec["options"]
    if not names:
        raise ConfigError(f"{problem.source}: [selection] no gates configured and no installed gate is a default")
    for name in names:
        registry.info("gate", name)   # an unknown gate is reported before its options are looked at
    stray = sorted(set(options) - set(names))
    if stray:
        raise ConfigError(f"{problem.source}: [selection.options] names gate(s) {', '.join(stray)} "
                          f"that are not in [selection] gates ({', '.join(names)})")
    gates = []
    for name in names:
        try:
            gates.append(registry.create("gate", name, dict(_table(options.get(name, {}), f"[selection.options.{name}]"))))
        except (ComponentError, OptionError) as exc:
            raise ConfigError(f"{problem.source}: [selection.options.{name}]: {exc}") from None
    return gates


def method_constants(problem: Problem) -> MethodConstants:
    """The method's constants for this config: the declared defaults, with the values a config
    sets for the refiner's constraint weight and the relative gates read once, here."""
    refine_options = read_section(problem, "refine")["options"]
    selection = read_section(problem, "selection")
    gates = selection["options"]
    teacher = _table(gates.get("teacher_compatibility", {}), "[selection.options.teacher_compatibility]")
    physics = _table(gates.get("physics_equivalence", {}), "[selection.options.physics_equivalence]")
    weight = refine_options.get("constraint_weight", METHOD.constraint_weight)
    values = {"constraint_weight": weight, "exact_tolerance": selection["exact_tolerance"],
              "teacher_factor": teacher.get("factor", METHOD.teacher_factor),
              "teacher_absolute": teacher.get("absolute", METHOD.teacher_absolute),
              "physics_factor": physics.get("factor", METHOD.physics_factor),
              "physics_absolute": physics.get("absolute", METHOD.physics_absolute)}
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 or value == float("inf"):
            raise ConfigError(f"{problem.source}: {key} must be a finite number >= 0, got {value!r}")
    floats = {k: float(v) for k, v in values.items()}
    return replace(METHOD, **floats)  # type: ignore[arg-type]


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise OptionError(f"{where} must be a table, got {type(value).__name__}")
    return value
