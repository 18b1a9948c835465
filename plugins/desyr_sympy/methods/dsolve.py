"""The exact method ``dsolve``: the general solution of an ODE or an ODE system, without conditions.

Its integration constants become Stage B parameters, so the physics-only refit fits them to whatever
constraints the problem has (initial values, two-point, Robin).  For one ODE the same ``sympy.dsolve``
call answers ``dsolve_ics`` too (:meth:`Dsolve.solve_both`): SymPy's answer with conditions is its
general solution with the constants solved for.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sympy as sp

from desyr_sympy.bounded import one_line
from desyr_sympy.method import Answer, ExactMethod, Solutions
from desyr_sympy.shared.bessel import real_basis
from desyr_sympy.shared.odes import equations, explicit, initial_conditions, ode_applies

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Dsolve(ExactMethod):
    name = "dsolve"
    summary = "ODEs and ODE systems: SymPy's general solution, its constants free for Stage B"
    problems = "ODEs and ODE systems"
    proposes = ("the general solution: its C1…Cn become Stage-B parameters, so any constraints (initial, boundary, "
                "Robin) fix them; special functions included: `C1*airyai(x) + C2*airybi(x)` for `u'' = x*u`, "
                "`besselj`/`bessely` for Bessel's equation and its scaled forms, `besseli`/`besselk` for the "
                "modified one (SymPy's `bessely(n, I*x)` is written in the real basis `besselk(n, x)`, with a "
                "constant of its own)")

    def applies(self, problem: Problem) -> str:
        return ode_applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        odes, targets, functions = equations(problem)
        # the modified Bessel equation's second solution comes as bessely(n, I*x): K_n(x) instead
        return [{f: real_basis(e) for f, e in solution.items()}
                for solution in explicit(sp.dsolve(odes, targets), functions)]

    def answers_too(self, problem: Problem) -> str:
        return "dsolve_ics" if len(problem.fields) == 1 else ""

    def solve_both(self, problem: Problem) -> tuple[Solutions, Answer]:
        """``dsolve`` and ``dsolve_ics`` of one ODE from one ``sympy.dsolve`` call: ``dsolve(ics=)`` is the
        general solution with its constants solved from the conditions (``solve_ics``, as SymPy's own
        ``_helper_simplify`` does), so the second call repeated the first one's work (0.4 s for a logistic
        equation). None for the second where that is not how SymPy would impose them (a power series)."""
        odes, targets, functions = equations(problem)
        # the modified Bessel equation's second solution comes as bessely(n, I*x): K_n(x) instead, before the
        # conditions are imposed, so that both answers keep it
        raw = _in_real_basis(sp.dsolve(odes, targets))
        general = explicit(raw, functions)
        if isinstance(odes, list) or any(e.has(sp.Order) for e in (raw if isinstance(raw, list) else [raw])):
            return general, None
        try:
            imposed = _imposed(raw, odes, targets, initial_conditions(problem, functions))
            return general, ("ok", explicit(imposed, functions))
        except NotImplementedError as exc:
            return general, ("no solution", one_line(exc))
        except Exception as exc:  # noqa: BLE001 - what dsolve(ics=) raises is that method's record
            return general, ("error", one_line(exc))


def _in_real_basis(raw: Any) -> Any:
    if isinstance(raw, sp.Equality):
        return sp.Eq(raw.lhs, real_basis(raw.rhs), evaluate=False)
    if isinstance(raw, list):
        return [_in_real_basis(r) for r in raw]
    return raw


def _imposed(raw: Any, equation: sp.Expr, function: sp.Expr, ics: dict[sp.Expr, Any]) -> Any:
    """What ``sympy.dsolve(..., ics=ics)`` returns, from its answer without them (SymPy 1.12-1.14's
    ``sympy.solvers.ode.ode._helper_simplify``: branches whose constants cannot be solved are left out)."""
    from sympy.solvers.ode.ode import solve_ics

    known: set[sp.Symbol] = set(sp.sympify(equation).free_symbols)

    def constants(s: sp.Eq) -> set[sp.Symbol]:
        return set(s.free_symbols) - known

    if isinstance(raw, (sp.Expr, sp.Equality)):
        return raw.subs(solve_ics([raw], [function], constants(raw), ics))
    kept = []
    for branch in raw:
        try:
            solved = solve_ics([branch], [function], constants(branch), ics)
        except ValueError:
            continue
        kept.append(branch.subs(solved))
    return kept[0] if len(kept) == 1 else kept
