"""Exact methods on SymPy that propose candidates before any teacher is trained (issue 22).

    from desyr.plugin import problem_from_toml
    from desyr_sympy import propose

    proposals = propose(problem_from_toml(text), time_limit=10.0)
    proposals.candidates   # [{"u": exp(-t)*(0.8*sin(2*t) + 0.4*cos(2*t))}, ...]
    proposals.attempts     # [Attempt("dsolve", 0.41, "candidates: 1"), ...]

Candidates carry their free constants as floats, so Stage B's parameterization makes
each of them a refit parameter; they earn no shortcut past the gates and the verifier.
Each method is an :class:`ExactMethod` in its own module of :mod:`desyr_sympy.methods`,
tried in the order of :data:`METHODS`.
"""
from desyr_sympy.method import ExactMethod
from desyr_sympy.methods import METHODS
from desyr_sympy.propose import Attempt, Proposals, propose

__all__ = ["propose", "Proposals", "Attempt", "ExactMethod", "METHODS"]
