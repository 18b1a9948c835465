"""The base of every exact method of the SymPy searcher: one class per method, one module per class.

A method says whether it applies to a problem (cheap, in the parent process) and proposes solutions
(in a child process that is stopped at the time limit, :mod:`desyr_sympy.bounded`).  Its class
attributes describe it to the searcher: the name a config writes in ``[solvers.options.sympy] solvers``,
a one-line summary for the help text and the docs (and, for the detailed tables, the problems it is for
and what it proposes), whether it reduces an equation first (``reductions =
false`` leaves it out) and whether its answer settles the problem.  The ordered list of methods is
:data:`desyr_sympy.methods.METHODS`; docs/solvers.md ("Writing an exact method") shows how to add one.

Like SymPy's ``SingleODESolver`` (``_matches``, ``_get_general_solution``), each method is a class on a
common base; unlike it, a method is stateless, so one instance serves every problem, and ``applies``
says why not instead of a bare False (the attempt record shows the reason).
"""
from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar

import sympy as sp

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: a method's solutions: each maps every field to an expression in the problem's variables, its free
#: constants ``C1, C2...`` (they become floats that Stage B refits)
Solutions = list[dict[str, sp.Expr]]

#: what one child call of a method says of another it answers too (:meth:`ExactMethod.solve_both`):
#: ("ok", solutions), ("no solution" or "error", why), or None where the other must run on its own
Answer = tuple[str, Any] | None


class ExactMethod(abc.ABC):
    """One exact method: ``applies(problem)`` says why not (or "" when it applies), ``solve(problem)``
    proposes solutions in a bounded child process.

    ``solve`` may raise ``NotImplementedError`` to say the method finds nothing here (recorded as "no
    solution"); any other exception is an "error" record, never a failed run.  Both read the problem
    as :func:`desyr_sympy.shared.forms.coordinates` presents it (a family's parameters as constants).
    """

    #: the name users write in ``[solvers.options.sympy] solvers``, and the origin of its candidates
    #: (``sympy:<name>`` in the attempts table)
    name: ClassVar[str]
    #: one line, what it solves and how: the help text and docs/solvers.md's table are built from it
    summary: ClassVar[str]
    #: the problems it is for, and what it proposes there: its row of docs/solvers.md's detailed tables
    #: (markdown, one cell each; empty: the summary stands in)
    problems: ClassVar[str] = ""
    proposes: ClassVar[str] = ""
    #: it reduces an equation before SymPy or in its place (``reductions = false`` leaves it out)
    reduction: ClassVar[bool] = False
    #: its answer is the general solution of every problem it applies to: the later methods are not asked
    #: once it has one (they would only spend their time limits on the same answer); it runs first, alone
    settles: ClassVar[bool] = False

    @abc.abstractmethod
    def applies(self, problem: Problem) -> str:
        """"" when the method applies to ``problem``, else why not (one line).  Runs in the parent, before
        any child starts: keep it cheap (no ``dsolve``, no ``solve``)."""

    @abc.abstractmethod
    def solve(self, problem: Problem) -> Solutions:
        """The method's solutions of ``problem``, in the order they should be tried; runs in a child
        process stopped at the time limit."""

    def answers_too(self, problem: Problem) -> str:
        """The name of another method that one child call of this one answers as well on ``problem`` (see
        :meth:`solve_both`), or "" (the default).  Checked in the parent."""
        return ""

    def solve_both(self, problem: Problem) -> tuple[Solutions, Answer]:
        """Where :meth:`answers_too` names a method and both run, this runs in their one child instead of
        :meth:`solve`: this method's solutions and the other's :data:`Answer` (``dsolve`` and
        ``dsolve_ics`` of one ODE share one ``sympy.dsolve`` call)."""
        raise NotImplementedError(f"the method {self.name} answers no other method")

    def __repr__(self) -> str:
        return f"<exact method {self.name}>"
