"""The exact method ``waves``: every field a profile of ``xi = x -+ c t`` (``c`` a free speed, both directions)
or of ``x`` alone (a stationary solution).

A single equation's reduced ODE goes to the energy integral (KdV's soliton: a total derivative, then
``f'' = c f - 3 f^2``), else to ``dsolve``; a system's to ``dsolve``.  Unlike ``travelling`` this needs no
data at a fixed time.  The speed is a free constant that Stage B fits from the physics and the data.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared import energy
from desyr_sympy.shared.ansatz import as_ode, loosen, profile, substitute
from desyr_sympy.shared.evolution import evolution_applies, space_time
from desyr_sympy.shared.odes import explicit

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Waves(ExactMethod):
    name = "waves"
    summary = "nonlinear evolution equations and systems in `x` and `t`: profiles of `x - c*t`, `x + c*t` or `x`"
    problems = "nonlinear evolution equations and systems in `x` and `t`"
    proposes = ("every field a profile of `x - c*t`, else `x + c*t`, else `x` (stationary); one equation through "
                "`energy` (KdV: `c/(2*cosh(sqrt(c)*(x - c*t + C1)/2)**2)`), a system or what `energy` cannot do "
                "through `dsolve`; no data at a fixed time needed")
    reduction = True

    def applies(self, problem: Problem) -> str:
        return evolution_applies(problem, "any")

    def solve(self, problem: Problem) -> Solutions:
        x, t = space_time(problem)
        speed, xi = sp.Symbol("c", positive=True), sp.Symbol("xi", real=True)
        out: list[dict[str, sp.Expr]] = []
        # the energy integral first on every ansatz (fast); dsolve, which can spend the whole time
        # limit, only when that gave nothing
        for quick in (True, False):
            for moving in (x - speed * t, x + speed * t, x):
                for solution in _profiles(problem, moving, xi, (x, t), quick):
                    out.append(loosen({f: e.xreplace({xi: moving}) for f, e in solution.items()}, [speed]))
                if out:     # the first direction with a profile: each quadrature costs seconds
                    return out
        raise NotImplementedError("no travelling or stationary profile")


def _profiles(problem: Problem, moving: sp.Expr, xi: sp.Symbol, variables: tuple[sp.Symbol, sp.Symbol],
              quick: bool) -> list[dict[str, sp.Expr]]:
    """Profiles in ``xi`` of every field for the ansatz ``field = f(moving)``: by the energy integral
    (``quick``, a single equation) or by dsolve."""
    names = [profile(f"F{i}_") for i in range(len(problem.fields))]
    reduced = substitute(problem, {f: fs[0] for f, fs in zip(problem.fields, names)}, moving, names)
    if any(r.free_symbols & set(variables) for r in reduced):
        return []                          # the equation depends on x or t itself: no such wave
    if quick:
        single = len(problem.fields) == 1
        return [{problem.fields[0]: e} for e in energy.profiles(reduced[0], names[0], xi)] if single else []
    functions = {f: sp.Function(f"profile_{f}")(xi) for f in problem.fields}
    odes = []
    for r in reduced:
        for f, fs in zip(problem.fields, names):
            r = as_ode(r, fs, functions[f], xi)
        odes.append(r)
    try:
        if len(odes) == 1:
            return explicit(sp.dsolve(odes[0], functions[problem.fields[0]]), functions)
        return explicit(sp.dsolve(odes, list(functions.values())), functions)
    except (NotImplementedError, ValueError):     # dsolve's "no method covers it"
        return []
