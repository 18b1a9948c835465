"""The exact method ``phase``: a pair ``(u, v)`` that is one complex field ``u + i v`` of a Schrodinger-type
equation (``i psi_t + psi_xx + k |psi|^2 psi = 0`` as two real equations), tried as ``f(x) exp(+-i omega t)``.

Both equations must reduce to one real ODE for ``f``, which the energy integral solves (the bright soliton
``sqrt(2*omega/k)/cosh(sqrt(omega)*x)``).  The frequency is a free constant that Stage B fits.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared import energy
from desyr_sympy.shared.ansatz import loosen, profile, substitute
from desyr_sympy.shared.evolution import evolution_applies, space_time

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Phase(ExactMethod):
    name = "phase"
    summary = "a nonlinear pair that is one Schrodinger-type field `u + i*v`: a profile times a rotating phase"
    problems = "a nonlinear pair `(u, v)` that is one Schrodinger-type field `u + i*v`"
    proposes = ("`u + i*v = f(x)*exp(+-i*omega*t)`; when both equations reduce to one real ODE for `f`, `energy` "
                "solves it (the bright soliton `sqrt(2*omega/k)/cosh(sqrt(omega)*x)`)")
    reduction = True

    def applies(self, problem: Problem) -> str:
        return evolution_applies(problem, "pair")

    def solve(self, problem: Problem) -> Solutions:
        x, t = space_time(problem)
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
