"""The plugin module named by the ``desyr`` entry point: one hook per contribution."""
from __future__ import annotations

from desyr.plugin import hookimpl

from desyr_oot import problems
from desyr_oot.gate import ParameterCountGate
from desyr_oot.refiner import BFGSRefiner
from desyr_oot.searcher import SparseSearcher
from desyr_oot.teacher import PolynomialTeacher


@hookimpl
def desyr_register_teachers():
    return [PolynomialTeacher]


@hookimpl
def desyr_register_searchers():
    return [SparseSearcher]


@hookimpl
def desyr_register_refiners():
    return [BFGSRefiner]


@hookimpl
def desyr_register_gates():
    return [ParameterCountGate]


@hookimpl
def desyr_load_problem(spec):
    return problems.load(spec)


@hookimpl
def desyr_problem_library():
    return problems.listing()
