"""Registers the SymPy exact searcher: ``dsolve``, integration, characteristics, separation of
variables and travelling waves, run before any teacher is trained (``[solvers]`` in the config, docs/solvers.md)."""
from __future__ import annotations

from typing import Any

from desyr.plugin import ExactSearcher, Option, Problem, Proposals, SolverAttempt, hookimpl

SOLVER_NAMES = ("integrate", "dsolve_ics", "dsolve", "characteristics", "separable", "polar", "travelling",
                "energy", "waves", "fronts", "phase", "similarity", "parabolic", "linear_part",
                "vanishing", "undetermined", "linearise", "pair", "separation", "radial")


class SympySearcher(ExactSearcher):
    """Candidates from SymPy's solvers, each call in a child process stopped at the time limit."""

    name = "sympy"
    options = {
        "solvers": Option(None, "SymPy solvers to try, in order; None: all of " + ", ".join(SOLVER_NAMES),
                          kind=list, item=str, choices=SOLVER_NAMES, nullable=True, low=1),
        "reductions": Option(True, "also reduce nonlinear ODEs and PDEs to ODEs (energy integral, travelling "
                             "waves, a rotating phase, similarity variables, additive and multiplicative separation, radial solutions; linear parabolic equations to the heat "
                             "equation; linear equations with a source by undetermined coefficients; a flow's linear part, its pressure completed; a nonlinear problem's linear part where its nonlinear terms vanish; travelling fronts by the tanh method; Cole-Hopf-type substitutions to linear equations; cubic reaction-diffusion equations through an overdetermined linear pair); false: the plain SymPy calls only",
                             kind=bool),
        "workers": Option(None, "solver calls at once; None: the usable cores", kind=int, low=1, high=64,
                          nullable=True),
    }

    def propose(self, problem: Problem, time_limit: float) -> Proposals:
        from desyr_sympy.propose import propose

        found = propose(problem, time_limit=time_limit, solvers=self.settings["solvers"],
                        reductions=self.settings["reductions"],
                        workers=self.settings["workers"])
        return Proposals(tuple(found.candidates), tuple(found.origins),
                         tuple(SolverAttempt(a.solver, round(a.seconds, 4), a.outcome, a.detail)
                               for a in found.attempts))


@hookimpl
def desyr_register_searchers() -> list[type[Any]]:
    return [SympySearcher]
