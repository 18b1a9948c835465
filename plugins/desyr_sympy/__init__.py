"""Exact solvers on SymPy that propose candidates before any teacher is trained (issue 22).

    from desyr.plugin import problem_from_toml
    from desyr_sympy import propose

    proposals = propose(problem_from_toml(text), time_limit=10.0)
    proposals.candidates   # [{"u": exp(-t)*(0.8*sin(2*t) + 0.4*cos(2*t))}, ...]
    proposals.attempts     # [Attempt("dsolve", 0.41, "candidates: 1"), ...]

Candidates carry their free constants as floats, so Stage B's parameterization makes
each of them a refit parameter; they earn no shortcut past the gates and the verifier.
"""
from desyr_sympy.propose import SOLVERS, Attempt, Proposals, Solver, propose

__all__ = ["propose", "Proposals", "Attempt", "Solver", "SOLVERS"]
