"""The stable import surface for plugin authors.

Everything a teacher, searcher, refiner, gate or executor needs is importable from here;
a plugin that uses nothing else keeps working when DeSyR's internals move::

    from desyr.plugin import Gate, GateDecision, Option, hookimpl

    class ParameterCountGate(Gate):
        name = "max_params"
        options = {"limit": Option(4, "most free constants", kind=int, low=0)}

        def apply(self, pool, context):
            ...

    @hookimpl
    def desyr_register_gates():
        return [ParameterCountGate]

Register it under the ``desyr`` entry-point group of your package, or in process
with :func:`load_registry` ``(extra_plugins=[module])`` (notebooks and tests).
Helpers for tests are in :mod:`desyr.testing`.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from desyr._version import __version__
from desyr.errors import ComponentError, ConfigError, DesyrError, PluginError
from desyr.extension.hookspecs import hookimpl, hookspec
from desyr.extension.options import CommandOption, Option

if TYPE_CHECKING:      # the rest is imported on first use (below); the names are kept in step by a test
    from desyr.config.loading import problem_from_dict, problem_from_toml
    from desyr.coupled.rates import TiedRates, tie_shared_rates
    from desyr.exact.laws import Law, Samples, find_law, identify_number
    from desyr.extension.contributed import BenchColumn, StudyBench
    from desyr.extension.registry import Registry, load_registry
    from desyr.extension.roles import (
        Component,
        ExactSearcher,
        Executor,
        Gate,
        GateDecision,
        Refiner,
        Searcher,
        Teacher,
        TeacherModel,
        UnitFailure,
        optional_import,
    )
    from desyr.model.candidates import Candidate, RefitOutcome
    from desyr.model.constants import METHOD, MethodConstants
    from desyr.model.context import RunContext
    from desyr.model.geometry import Geometry, Part
    from desyr.model.points import PointSets, all_constraint_points, constraint_points, interior_points
    from desyr.model.problem import Constraint, Face, Problem, ProblemSet
    from desyr.model.residuals import ResidualSystem, for_refinement, physics_scores
    from desyr.model.rotation import DataCentre, Rotation, data_centre, rotation
    from desyr.model.search import ParetoMember, Proposals, SearchResult, SearchTask, SolverAttempt, teacher_fit_mse
    from desyr.model.sets import integral_rule
    from desyr.model.shapes import Annulus, Disk
    from desyr.runtime.atomic import read_json, write_bytes_atomic, write_text_atomic
    from desyr.runtime.execution import serial_map, usable_cores
    from desyr.runtime.forks import child_context
    from desyr.runtime.jobserver import borrowed_tokens, jobserver_path
    from desyr.stages.completion import completable, complete_fields
    from desyr.stages.pool import empirical_front
    from desyr.stages.select import exact_series, physics_equivalent, preference_key
    from desyr.symbolic.eigenvalues import (
        EigenvalueFunction,
        besseljpzero,
        besseljzero,
        dinizero,
        robinroot,
        robinsinhroot,
    )
    from desyr.symbolic.expressions import ExpressionError, Vocabulary, complexity, expression_text, parse_expression
    from desyr.symbolic.numeric import broadcast, columns, evaluate, evaluate_series, lambdify
    from desyr.symbolic.operators import BINARY_OPERATORS, UNARY_OPERATORS, Operator, library_names, operator
    from desyr.symbolic.parameterize import MAX_PARAMS, Parameterization, constant_nodes, is_eligible, parameterize
    from desyr.symbolic.physics import Scores
    from desyr.symbolic.series import TailBound, series_index, tail_bound, truncate
    from desyr.symbolic.simplify import simplify_expression
    from desyr.symbolic.special import BESSEL_CLASSES, SPECIAL_CLASSES, bessel_order
    from desyr.symbolic.time_limit import OutOfTime, time_limit

#: where each name lives: a name is imported on first use (PEP 562), so a plugin module that needs only
#: ``hookimpl`` and ``Problem`` loads without SymPy or SciPy, and a wrong spec fails fast
_HOMES: dict[str, tuple[str, ...]] = {
    "desyr.config.loading": ("problem_from_dict", "problem_from_toml"),
    "desyr.coupled.rates": ("TiedRates", "tie_shared_rates"),
    "desyr.exact.laws": ("Law", "Samples", "find_law", "identify_number"),
    "desyr.extension.contributed": ("BenchColumn", "StudyBench"),
    "desyr.extension.registry": ("Registry", "load_registry"),
    "desyr.extension.roles": ("Component", "ExactSearcher", "Executor", "Gate", "GateDecision", "Refiner",
        "Searcher", "Teacher", "TeacherModel", "UnitFailure", "optional_import"),
    "desyr.model.candidates": ("Candidate", "RefitOutcome"),
    "desyr.model.constants": ("METHOD", "MethodConstants"),
    "desyr.model.context": ("RunContext",),
    "desyr.model.geometry": ("Geometry", "Part"),
    "desyr.model.points": ("PointSets", "all_constraint_points", "constraint_points", "interior_points"),
    "desyr.model.problem": ("Constraint", "Face", "Problem", "ProblemSet"),
    "desyr.model.residuals": ("ResidualSystem", "for_refinement", "physics_scores"),
    "desyr.model.search": ("ParetoMember", "Proposals", "SearchResult", "SearchTask", "SolverAttempt",
        "teacher_fit_mse"),
    "desyr.model.sets": ("integral_rule",),
    "desyr.model.rotation": ("DataCentre", "Rotation", "data_centre", "rotation"),
    "desyr.model.shapes": ("Annulus", "Disk"),
    "desyr.runtime.atomic": ("read_json", "write_bytes_atomic", "write_text_atomic"),
    "desyr.runtime.execution": ("serial_map", "usable_cores"),
    "desyr.runtime.forks": ("child_context",),
    "desyr.runtime.jobserver": ("borrowed_tokens", "jobserver_path"),
    "desyr.stages.pool": ("empirical_front",),
    "desyr.stages.select": ("preference_key", "physics_equivalent", "exact_series"),
    "desyr.symbolic.expressions": ("ExpressionError", "Vocabulary", "complexity", "expression_text",
        "parse_expression"),
    "desyr.symbolic.numeric": ("broadcast", "columns", "evaluate", "lambdify", "evaluate_series"),
    "desyr.symbolic.operators": ("BINARY_OPERATORS", "UNARY_OPERATORS", "Operator", "library_names", "operator"),
    "desyr.symbolic.parameterize": ("MAX_PARAMS", "Parameterization", "constant_nodes", "is_eligible",
        "parameterize"),
    "desyr.symbolic.physics": ("Scores",),
    "desyr.stages.completion": ("completable", "complete_fields"),
    "desyr.symbolic.simplify": ("simplify_expression",),
    "desyr.symbolic.special": ("BESSEL_CLASSES", "SPECIAL_CLASSES", "bessel_order"),
    "desyr.symbolic.series": ("series_index", "truncate", "tail_bound", "TailBound"),
    "desyr.symbolic.eigenvalues": ("EigenvalueFunction", "besseljzero", "besseljpzero", "robinroot", "dinizero",
                                   "robinsinhroot"),
    "desyr.symbolic.time_limit": ("OutOfTime", "time_limit"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'desyr.plugin' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value         # the next access is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME_OF))


__all__ = [
    # hooks and registration
    "hookimpl", "hookspec", "load_registry", "Registry",
    # roles
    "Component", "Teacher", "TeacherModel", "Searcher", "Refiner", "Gate", "GateDecision", "Option",
    # what a plugin declares beside components: command-line options (and config sections, as Options)
    "CommandOption",
    # what a plugin adds to the bench table and the quick studies
    "BenchColumn", "StudyBench",
    "Executor", "UnitFailure", "ExactSearcher",
    # data types
    "Problem", "ProblemSet", "problem_from_dict", "problem_from_toml", "PointSets", "RunContext", "SearchTask", "ParetoMember", "SearchResult", "Candidate", "RefitOutcome",
    "Proposals", "SolverAttempt",
    # where constraints hold: faces of a box, parts of a shape's boundary, the shape itself
    "Constraint", "Face", "Part", "Geometry", "Disk", "Annulus", "DataCentre", "Rotation", "data_centre", "rotation",
    # helpers
    "parameterize", "Parameterization", "for_refinement", "ResidualSystem", "physics_scores", "Scores", "evaluate",
    "teacher_fit_mse", "simplify_expression", "completable", "complete_fields", "complexity", "expression_text", "preference_key",
    "physics_equivalent", "exact_series", "optional_import",
    # the method's constants; coupled rate tying (refiners)
    "METHOD", "MethodConstants", "TiedRates", "tie_shared_rates",
    # searchers: the empirical front, the expression vocabulary and parser, the operator table
    "empirical_front", "Vocabulary", "parse_expression", "ExpressionError",
    "Operator", "BINARY_OPERATORS", "UNARY_OPERATORS", "operator", "library_names",
    # special functions: their SymPy classes and a Bessel function's order
    "SPECIAL_CLASSES", "BESSEL_CLASSES", "bessel_order",
    # series: the index symbol every producer shares, the named eigenvalue functions
    "series_index", "EigenvalueFunction", "besseljzero", "besseljpzero", "robinroot", "dinizero", "robinsinhroot",
    "truncate", "tail_bound", "TailBound", "evaluate_series",
    # coefficient laws from samples (issue 46, item 3); a wall-clock bound on a block of SymPy work
    "Samples", "Law", "find_law", "identify_number", "time_limit", "OutOfTime",
    # refiners: constant nodes, point sets on constraints, vectorised evaluation
    "MAX_PARAMS", "constant_nodes", "is_eligible", "constraint_points", "all_constraint_points", "integral_rule",
    "interior_points", "broadcast", "columns", "lambdify",
    # executors and caches: in-process mapping, usable cores, atomic files
    "serial_map", "usable_cores", "borrowed_tokens", "jobserver_path", "child_context", "read_json",
    "write_bytes_atomic", "write_text_atomic",
    "__version__",
    # errors
    "ComponentError", "ConfigError", "PluginError", "DesyrError",
]
