"""Config sections: their declared options and the function that reads one checked section.

Every table of a problem config is declared here once (:data:`SECTIONS`), so the
loader can check each value before any work starts and ``docs/config.md`` can be
generated from the same declarations.  The method's constants are
:class:`desyr.model.constants.MethodConstants`; building components from a config is
:mod:`desyr.config.components`; a run's typed settings are :mod:`desyr.config.spec`.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from desyr.errors import ConfigError
from desyr.extension.options import Option, OptionError, validate
from desyr.model.constants import METHOD
from desyr.symbolic import operators

if TYPE_CHECKING:  # pragma: no cover
    from desyr.model.problem import Problem

#: upper bound on every point count: beyond it one run would not fit in memory on a workstation
MAX_POINTS = 1_000_000
#: operators of the common vocabulary (their table: desyr.symbolic.operators)
BINARY_OPERATORS = tuple(operators.BINARY_OPERATORS)
UNARY_OPERATORS = tuple(operators.UNARY_OPERATORS)



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


def check_sections(problem: Problem) -> dict[str, dict[str, Any]]:
    """Every declared section of the config, checked before any work starts; the checked tables."""
    _refuse_scheduler(problem)
    tables = {name: read_section(problem, name) for name in SECTIONS}
    if any(k < 1 for k in tables["coupled"]["multiples"]):
        raise ConfigError(f"{problem.source}: [coupled] multiples must be positive integers")
    return tables


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
