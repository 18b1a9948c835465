"""Ordinary differential equations and systems (one independent variable).

Three solvers, each a pure function of the problem that runs in a bounded child:

- ``dsolve``: the general solution, without conditions.  Its integration
  constants become Stage B parameters, so the physics-only refit fits them to
  whatever constraints the problem has (initial values, two-point, Robin).
- ``dsolve_ics``: the same with the constraints as initial conditions, when every
  constraint is a plain point value; it can fail where the general solution does not
  (SymPy answers ``[]`` for some nonlinear problems), and then the first still gives the form.
  For one ODE both come from one ``sympy.dsolve`` call (:func:`dsolve_both`): SymPy's answer with
  conditions is its general solution with the constants solved for.
- ``integrate``: ``a * u^(n) = f(x)`` by integrating ``f`` n times, plus the
  homogeneous polynomial; cheaper and more robust than ``dsolve`` on manufactured sources.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sympy as sp

from desyr_sympy.bessel import real_basis
from desyr_sympy.bounded import one_line
from desyr_sympy.forms import (
    field_functions,
    jet_symbols,
    linear_equation,
    outside_vocabulary,
    point_conditions,
    residuals,
    split_linear,
    to_derivatives,
)

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


def ode_applies(problem: Problem) -> str:
    """"" when the problem is an ODE or ODE system dsolve can be asked about, else why not."""
    if problem.dim != 1:
        return f"{problem.dim} independent variables"
    if len(problem.equations) != len(problem.fields):
        return f"{len(problem.equations)} equations for {len(problem.fields)} fields"
    return ""


def ics_applies(problem: Problem) -> str:
    return ode_applies(problem) or ("" if point_conditions(problem) else "a condition is not a plain point value")


def _equations(problem: Problem) -> tuple[Any, Any, dict[str, sp.Expr]]:
    """The equations and the functions to solve for (one of each for a single ODE, lists for a
    system), and every field's function."""
    functions = field_functions(problem)
    known = getattr(problem, "positive", lambda e: e)      # a family's positive constants, as such
    equations = [known(to_derivatives(r, problem, functions)) for r in residuals(problem)]
    targets = [functions[f] for f in problem.fields]
    if len(targets) == 1:
        return equations[0], targets[0], functions
    return equations, targets, functions


def dsolve_general(problem: Problem) -> list[dict[str, sp.Expr]]:
    equations, targets, functions = _equations(problem)
    # the modified Bessel equation's second solution comes as bessely(n, I*x): K_n(x) instead
    return [{f: real_basis(e) for f, e in solution.items()}
            for solution in explicit(sp.dsolve(equations, targets), functions)]


def dsolve_ics(problem: Problem) -> list[dict[str, sp.Expr]]:
    equations, targets, functions = _equations(problem)
    return explicit(sp.dsolve(equations, targets, ics=_ics(problem, functions)), functions)


def _ics(problem: Problem, functions: dict[str, sp.Expr]) -> dict[sp.Expr, Any]:
    x = problem.symbols[0]
    ics = {}
    for cond in point_conditions(problem) or []:
        f = functions[cond.field]
        key = f.subs(x, cond.at) if cond.order == 0 else f.diff(x, cond.order).subs(x, cond.at)
        ics[key] = cond.value
    return ics


#: the ``dsolve_ics`` half of :func:`dsolve_both`: ("ok", solutions), ("no solution" or "error",
#: why), or None where it must be asked of ``dsolve`` itself
Derived = tuple[str, Any] | None


def dsolve_both(problem: Problem) -> tuple[list[dict[str, sp.Expr]], Derived]:
    """``dsolve`` and ``dsolve_ics`` of one ODE from one ``sympy.dsolve`` call: ``dsolve(ics=)`` is the
    general solution with its constants solved from the conditions (``solve_ics``, as SymPy's own
    ``_helper_simplify`` does), so the second call repeated the first one's work (0.4 s for a logistic
    equation). None for the second where that is not how SymPy would impose them (a power series)."""
    equations, targets, functions = _equations(problem)
    # the modified Bessel equation's second solution comes as bessely(n, I*x): K_n(x) instead, before the
    # conditions are imposed, so that both answers keep it
    raw = _in_real_basis(sp.dsolve(equations, targets))
    general = explicit(raw, functions)
    if isinstance(equations, list) or any(e.has(sp.Order) for e in (raw if isinstance(raw, list) else [raw])):
        return general, None
    try:
        return general, ("ok", explicit(_imposed(raw, equations, targets, _ics(problem, functions)), functions))
    except NotImplementedError as exc:
        return general, ("no solution", one_line(exc))
    except Exception as exc:  # noqa: BLE001 - what dsolve(ics=) raises is that solver's record
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


def integrate_applies(problem: Problem) -> str:
    """"" for one field with ``a * u^(n) = f(x)``, a constant, n >= 1."""
    if problem.dim != 1 or len(problem.fields) != 1 or len(problem.equations) != 1:
        return "not a single 1-D equation"
    linear = split_linear(residuals(problem)[0], jet_symbols(problem))
    if linear is None:
        return "not linear"
    derivatives = [j for j in linear.coefficients if linear.coefficients[j] != 0]
    if len(derivatives) != 1 or not jet_symbols(problem)[derivatives[0]].wrt:
        return "not a single derivative equal to a source"
    if not linear.constant_coefficients(problem.symbols):
        return "variable coefficient"
    return ""


def integrate_source(problem: Problem) -> list[dict[str, sp.Expr]]:
    x = problem.symbols[0]
    linear = linear_equation(problem)
    (jet_symbol, coefficient), = [(j, c) for j, c in linear.coefficients.items() if c != 0]
    order = len(jet_symbols(problem)[jet_symbol].wrt)
    g = linear.forcing / coefficient
    for _ in range(order):
        g = antiderivative(g, x)
        if g is None:
            raise NotImplementedError(f"no elementary antiderivative of {linear.forcing}")
    # the homogeneous solution: a polynomial of degree order-1 with free coefficients
    homogeneous = sp.Add(*[sp.Symbol(f"C{k + 1}") * x**k for k in range(order)])
    return [{problem.fields[0]: g + homogeneous}]


def antiderivative(f: sp.Expr, x: sp.Symbol) -> sp.Expr | None:
    """An elementary antiderivative of ``f``, or None.  The Risch-Norman heuristic first: it takes a
    sum whole, where ``integrate`` goes term by term and fails on a manufactured source whose terms
    have no elementary integral of their own (Nguyen-5's ``2*cos(x)*cos(x**2) - 4*x*sin(x)*cos(x**2)
    - ...``: Fresnel integrals term by term, ``-sin(x)*sin(x**2) + ...`` whole); it is also the
    faster of the two here (0.05-3 s against 10-14 s on SSDE's sources)."""
    from sympy.integrals.heurisch import heurisch

    try:
        whole = heurisch(f, x)
    except Exception:  # noqa: BLE001 - the heuristic gives up in many ways; integrate may not
        whole = None
    if whole is not None and _elementary(whole):
        return whole
    found = sp.integrate(f, x)
    return found if _elementary(found) else None


def _elementary(expr: sp.Expr) -> bool:
    """Whether the parser reads the antiderivative: its functions, erf of ``exp(-x**2)`` included,
    and no unevaluated integral, case split or imaginary unit."""
    return not expr.has(sp.Piecewise) and not outside_vocabulary(expr)
