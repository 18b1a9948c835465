"""The exact method ``radial``: radial solutions of one nonlinear, rotation-invariant equation on a disk or an annulus.

The linear case is :mod:`desyr_sympy.methods.polar`'s.  A nonlinear equation whose operator is invariant
under rotations about the shape's centre (``u_xx + u_yy + exp(u)``, ``u_xx + u_yy + u**3``) keeps
radially symmetric data radially symmetric, and ``u = U(r)``, ``r = sqrt((x - x0)**2 + (y - y0)**2)``,
turns it into an ODE in ``r`` (no angle may be left).  That ODE is seldom autonomous, but it is often
invariant under a dilation of ``r``: ``r -> l*r, U -> l**k*U`` (a power nonlinearity) or, with ``U``
only in exponentials, ``r -> l*r, U -> U + k*log(l)`` (Liouville's ``U'' + U'/r + exp(U) = 0``, ``k = -2``).
In ``s = log(r)`` with ``U = r**k*w(s)`` or ``U = w(s) + k*s`` the ODE is autonomous and goes to the
energy integral (:mod:`desyr_sympy.shared.energy`).  On a disk the centre is in the domain, and a solution
regular there has ``r*U' -> 0``: ``w' -> -k`` as ``s -> -oo``, which fixes the energy level
(Liouville's ``log(8*exp(2*C1)/(exp(2*C1)*r**2 + 1)**2)``); the rim data pick the branch.  What no
dilation makes autonomous goes to :mod:`desyr_sympy.shared.lowering` (total derivatives, then ``dsolve``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr.plugin import Disk
from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared import energy, lowering
from desyr_sympy.shared.ansatz import nonlinear, profile, substitute
from desyr_sympy.shared.candidates import real_start
from desyr_sympy.shared.forms import exact_number, jet_symbols, rational
from desyr_sympy.shared.round import plane_variables, radial_data, radii, round_shape

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Radial(ExactMethod):
    name = "radial"
    summary = "one nonlinear steady equation on a disk or an annulus with radially symmetric data: radial solutions"
    reduction = True

    def applies(self, problem: Problem) -> str:
        if round_shape(problem) is None:
            return "not a disk or an annulus"
        if len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field and one equation"
        if problem.dim != 2 or plane_variables(problem) is None:
            return "not a steady equation in the shape's two variables"
        if not nonlinear(problem):
            return "linear: the polar solver's"
        if not radial_data(problem):
            return "the data depend on the angle"
        return "" if _radial_ode(problem) is not None else "the equation is not rotation-invariant"

    def solve(self, problem: Problem) -> Solutions:
        found = _radial_ode(problem)
        if found is None:
            raise NotImplementedError("the equation is not rotation-invariant")
        ode, fs, r, rho = found
        disk = isinstance(round_shape(problem), Disk)
        rim = _rim_values(problem, r)
        out: list[sp.Expr] = []
        for reduced, ws, s, back, to_profile in energy.ode_reductions(ode, fs, r):
            values = [to_profile.subs({sp.Symbol("V"): v, r: at}) for at, v in rim]
            ends = _regular_centre(back, r) if disk and s != r else []
            for w in energy.profiles(reduced, ws, s, values=values, slopes_at_infinity=ends):
                out.append(w if s == r else energy.mapped_back(back, w, s, r))
        if not out:
            out = lowering.solve(ode, fs, r, lowering.Constants())
        if disk:        # the centre is in the domain: a solution singular there is no candidate
            out = [e for e in out if _finite_at_centre(e, r)]
        if not out:
            raise NotImplementedError("no radial solution")
        return [{problem.fields[0]: real_start(_in_square(e, r, rho), problem)} for e in out]


def _radial_ode(problem: Problem) -> tuple[sp.Expr, list[sp.Symbol], sp.Symbol, sp.Expr] | None:
    """The equation for ``u = U(r)`` over ``U``'s profile symbols and ``r``, with ``r`` in the problem's
    variables; None when an angle is left."""
    shape, spatial = round_shape(problem), plane_variables(problem)
    if shape is None or spatial is None:
        return None
    x, y = spatial
    x0, y0 = (exact_number(float(c)) for c in shape.c)
    r, X = sp.Symbol("r", positive=True), sp.Symbol("X", real=True)
    rho = sp.sqrt((x - x0)**2 + (y - y0)**2)
    fs = profile("R")
    (reduced,) = substitute(problem, {problem.fields[0]: fs[0]}, rho, [fs])
    # y - y0 = sqrt(r**2 - X**2) turns rho into r; a rotation-invariant operator leaves no X
    ode = sp.cancel(sp.expand((reduced).xreplace({x: x0 + X, y: y0 + sp.sqrt(r**2 - X**2)})))
    if ode.free_symbols & {X, x, y} or not ode.has(*fs[1:]):
        return None
    return sp.numer(ode), fs, r, rho


def _rim_values(problem: Problem, r: sp.Symbol) -> list[tuple[sp.Expr, sp.Expr]]:
    """(radius, value) of each plain value of the field given on the shape's outer circle."""
    shape, spatial = round_shape(problem), plane_variables(problem)
    assert shape is not None and spatial is not None      # applies() said so
    x, y = spatial
    x0, y0 = (exact_number(float(c)) for c in shape.c)
    outer = exact_number(float(radii(shape)[1]))
    jets = jet_symbols(problem)
    out = []
    for c in problem.constraints:
        jet = jets.get(c.operator)
        if c.kind == "pointwise" and jet is not None and not jet.wrt:
            value = rational(c.value).xreplace({x: x0 + outer, y: y0})
            if value.is_number:
                out.append((outer, value))
    return out


def _in_square(expr: sp.Expr, r: sp.Symbol, rho: sp.Expr) -> sp.Expr:
    """``expr`` through ``r**2 = (x - x0)**2 + (y - y0)**2`` when it is a function of ``r**2`` (a radial
    solution regular at the centre usually is): ``(exp(2*C1)*r**2 - 1)**2``, not the factors of its root
    ``(exp(C1)*r - 1)**2*(exp(C1)*r + 1)**2``, whose sign the verifier cannot follow."""
    z = sp.Dummy("z", positive=True)
    expanded = expr.replace(lambda e: isinstance(e, sp.log), lambda e: sp.log(sp.cancel(sp.expand(e.args[0]))))
    even = sp.powdenest(expanded.xreplace({r: sp.sqrt(z)}), force=True)
    if any(p.base == z and not p.exp.is_integer for p in even.atoms(sp.Pow)):
        return expr.xreplace({r: rho})
    even = even.replace(lambda e: isinstance(e, sp.log), lambda e: sp.log(sp.factor(sp.cancel(e.args[0]))))
    return even.xreplace({z: sp.expand(rho**2)})


def _regular_centre(back: sp.Expr, r: sp.Symbol) -> list[tuple[sp.Expr, sp.Expr]]:
    """Where ``w`` goes as ``s = log(r) -> -oo`` and the slope it tends to there, for ``U`` regular at
    ``r = 0`` (``r*U' -> 0``): ``U = w + k*s`` gives ``w' -> -k``, ``w -> sign(k)*oo``."""
    k = sp.expand(back - sp.Symbol("P")).coeff(sp.log(r))
    if not back.is_Add or not k.is_number or k == 0:
        return []
    return [(sp.oo if k > 0 else -sp.oo, -k)]


def _finite_at_centre(expr: sp.Expr, r: sp.Symbol) -> bool:
    try:
        at = sp.limit(expr.xreplace({c: sp.Rational(1, 2) for c in expr.free_symbols - {r}}), r, 0, "+")
    except (NotImplementedError, ValueError):
        return False
    return bool(at.is_finite)
