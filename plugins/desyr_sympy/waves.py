"""Reductions of evolution equations in ``(x, t)`` to ODEs: travelling waves and a rotating phase.

- ``waves``: every field a profile of ``xi = x -+ c t`` (``c`` a free speed, both directions)
  or of ``x`` alone (a stationary solution).  A single equation's reduced ODE goes to the energy
  integral (KdV's soliton: a total derivative, then ``f'' = c f - 3 f^2``), else to ``dsolve``; a
  system's to ``dsolve``.  Unlike ``travelling`` this needs no data at a fixed time.
- ``phase``: a pair ``(u, v)`` that is one complex field ``u + i v`` of a Schrodinger-type equation
  (``i psi_t + psi_xx + k |psi|^2 psi = 0`` as two real equations) tried as
  ``f(x) exp(+-i omega t)``; both equations must reduce to one real ODE for ``f``, which the
  energy integral solves (the bright soliton ``sqrt(2*omega/k)/cosh(sqrt(omega)*x)``).

The speed and the frequency are free constants that Stage B fits from the physics and the data.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy import energy
from desyr_sympy.ansatz import as_ode, loosen, nonlinear, profile, substitute
from desyr_sympy.odes import explicit

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


def _space_time(problem: Problem) -> tuple[sp.Symbol, sp.Symbol]:
    assert problem.time is not None        # applies() said so
    t = problem.vocabulary.var_symbols[problem.time]
    (x,) = [v for v in problem.symbols if v != t]
    return x, t


def _evolution(problem: Problem, fields: str) -> str:
    if problem.dim != 2 or problem.time is None:
        return "not one space variable and time"
    if len(problem.equations) != len(problem.fields):
        return f"{len(problem.equations)} equations for {len(problem.fields)} fields"
    if fields == "pair" and len(problem.fields) != 2:
        return "not a pair of fields"
    if len(problem.fields) > 3:
        return "more than three fields"
    return "" if nonlinear(problem) else "linear: the separable and characteristics solvers'"


def waves_applies(problem: Problem) -> str:
    return _evolution(problem, "any")


def waves(problem: Problem) -> list[dict[str, sp.Expr]]:
    x, t = _space_time(problem)
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


def phase_applies(problem: Problem) -> str:
    return _evolution(problem, "pair")


def phase(problem: Problem) -> list[dict[str, sp.Expr]]:
    x, t = _space_time(problem)
    omega = sp.Symbol("omega", positive=True)
    fs = profile("F")
    u, v = problem.fields
    out: list[dict[str, sp.Expr]] = []
    for sign in (1, -1):
        forms = {u: fs[0] * sp.cos(omega * t), v: sign * fs[0] * sp.sin(omega * t)}
        ode = _one_ode(substitute(problem, forms, x, [fs]), t, omega)
        if ode is None:
            continue
        for f in energy.profiles(ode.xreplace({x: sp.Symbol("xi")}), fs, sp.Symbol("xi")):
            shape = f.xreplace({sp.Symbol("xi"): x})
            out.append(loosen({u: shape * sp.cos(omega * t), v: sign * shape * sp.sin(omega * t)}, [omega]))
    if not out:
        raise NotImplementedError("no rotating phase reduces the pair to one ODE")
    return out


def _one_ode(reduced: list[sp.Expr], t: sp.Symbol, omega: sp.Symbol) -> sp.Expr | None:
    """The single real ODE that every reduced equation is a multiple of (the coefficients of the
    cosine and of the sine), or None when they are not all one equation."""
    parts = [sp.expand(sp.simplify(r.xreplace({t: at}))) for r in reduced for at in (0, sp.pi / (2 * omega))]
    parts = [p for p in parts if p != 0]
    if not parts or any(p.has(t) for p in parts):
        return None
    first = parts[0]
    for p in parts[1:]:
        ratio = sp.simplify(p / first)
        if ratio.free_symbols - {omega}:
            return None
    return first
