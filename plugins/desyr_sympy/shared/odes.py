"""What the ODE methods share: the equations as SymPy's ``dsolve`` reads them, the point conditions as
its ``ics``, and its answers as solutions field -> expression (:func:`explicit`, also used by every
reduction that ends in ``dsolve``)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import sympy as sp

from desyr_sympy.shared.ansatz import as_ode
from desyr_sympy.shared.energy import integrate_once
from desyr_sympy.shared.forms import ALLOWED_FUNCTIONS, field_functions, point_conditions, residuals, to_derivatives

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


def ode_applies(problem: Problem) -> str:
    """"" when the problem is an ODE or ODE system dsolve can be asked about, else why not."""
    if problem.dim != 1:
        return f"{problem.dim} independent variables"
    if len(problem.equations) != len(problem.fields):
        return f"{len(problem.equations)} equations for {len(problem.fields)} fields"
    return ""


def equations(problem: Problem) -> tuple[Any, Any, dict[str, sp.Expr]]:
    """The equations and the functions to solve for (one of each for a single ODE, lists for a
    system), and every field's function."""
    functions = field_functions(problem)
    known = getattr(problem, "positive", lambda e: e)      # a family's positive constants, as such
    odes = [known(to_derivatives(r, problem, functions)) for r in residuals(problem)]
    targets = [functions[f] for f in problem.fields]
    if len(targets) == 1:
        return odes[0], targets[0], functions
    return odes, targets, functions


def initial_conditions(problem: Problem, functions: dict[str, sp.Expr]) -> dict[sp.Expr, Any]:
    """The point conditions as ``dsolve``'s ``ics`` (``u(0)``, ``u'(1)``: a value each)."""
    x = problem.symbols[0]
    ics = {}
    for cond in point_conditions(problem) or []:
        f = functions[cond.field]
        key = f.subs(x, cond.at) if cond.order == 0 else f.diff(x, cond.order).subs(x, cond.at)
        ics[key] = cond.value
    return ics


def explicit(answer: Any, functions: dict[str, sp.Expr]) -> list[dict[str, sp.Expr]]:
    """dsolve's answer (an Eq, a list of branches, a system's list, a list of systems) as
    solutions field -> expression; implicit equations solved for the field where SymPy can."""
    by_function = {fn: name for name, fn in functions.items()}
    if isinstance(answer, sp.Equality):
        answer = [answer]
    answer = list(answer)
    if len(functions) == 1:
        (name,) = functions
        return [{name: e} for eq in answer for e in _solve_for(eq, functions[name])]
    sets = answer if answer and not isinstance(answer[0], sp.Equality) else [answer]
    out = []
    for eqs in sets:
        solution = {by_function[eq.lhs]: eq.rhs for eq in eqs if eq.lhs in by_function}
        if len(solution) == len(functions):
            out.append(solution)
    return out


def _solve_for(eq: sp.Equality, function: sp.Expr) -> list[sp.Expr]:
    if eq.lhs == function and not eq.rhs.has(function):
        return [eq.rhs]
    return [s for s in sp.solve(eq, function) if not s.has(function)]


def dsolve_profiles(ode: sp.Expr, fs: Sequence[sp.Symbol], xi: sp.Symbol, field: str) -> list[sp.Expr]:
    """Profiles ``F(xi)`` of a reduced ODE over the profile symbols ``fs``: a conservation law lowers its
    order first where the ODE is a total derivative (``dsolve`` answers the heat equation's
    ``f'' + xi*f'/2 + f/2`` with a power series, its integral at once), then ``dsolve``; of each answer the
    terms in the config's functions that hold ``xi`` (``C1*exp(-xi**2/4) + C2*exp(-xi**2/4)*erfi(xi/2)``
    -> its first term)."""
    once = integrate_once(ode, fs, xi)
    f = sp.Function("profile")(xi)
    try:
        general = explicit(sp.dsolve(as_ode(once if once is not None else ode, fs, f, xi), f), {field: f})
    except (NotImplementedError, ValueError):
        return []
    out: list[sp.Expr] = []
    for g in general:
        kept = [term for term in sp.Add.make_args(sp.expand(g[field]))
                if all(isinstance(h, ALLOWED_FUNCTIONS) for h in term.atoms(sp.Function))
                and not term.has(sp.Integral, sp.Order)]
        shape = sp.Add(*kept)
        if shape.has(xi) and shape not in out:
            out.append(shape)
    return out
