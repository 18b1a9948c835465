"""The Python API: ``run`` (the whole pipeline), ``refine`` (Stages B and C on given candidates),
``load_problem``, ``sympy_problem`` (a problem written in SymPy, with its constraint types) and
``load_result``.

Both entry points share one start (:func:`desyr.api.ends.start`: check the output folder and the
settings, choose the components, snapshot the problem) and one end
(:func:`desyr.api.ends.finish`: verify on fresh points, assemble the typed result, write it).
Read top to bottom, ``run`` is the method in stage order.
"""
from __future__ import annotations

from desyr.api.ends import Execution, load_result, write_result
from desyr.api.pipeline import refine, run
from desyr.config.builder import sympy_problem
from desyr.config.loading import load_problem
from desyr.config.shorthands import Constraint, Dirichlet, Initial, Neumann, PointValue
from desyr.model.result import Result

__all__ = ["run", "refine", "load_problem", "load_result", "Result", "Execution", "write_result", "sympy_problem",
           "Constraint", "Dirichlet", "Neumann", "Initial", "PointValue"]
