"""The exact method ``radial``: radial solutions of one nonlinear, rotation-invariant equation on a disk or
an annulus, or on any domain of the plane whose data are radially symmetric about a point
(:mod:`desyr_sympy.shared.centre`: Liouville's equation on a square).

The linear case is :mod:`desyr_sympy.methods.polar`'s.  A nonlinear equation whose operator is invariant
under rotations about the shape's centre (``u_xx + u_yy + exp(u)``, ``u_xx + u_yy + u**3``) keeps
radially symmetric data radially symmetric, and ``u = U(r)``, ``r = sqrt((x - x0)**2 + (y - y0)**2)``,
turns it into an ODE in ``r`` (no angle may be left).  That ODE is seldom autonomous, but it is often
invariant under a dilation of ``r``: ``r -> l*r, U -> l**k*U`` (a power nonlinearity) or, with ``U``
only in exponentials, ``r -> l*r, U -> U + k*log(l)`` (Liouville's ``U'' + U'/r + exp(U) = 0``, ``k = -2``).
In ``s = log(r)`` with ``U = r**k*w(s)`` or ``U = w(s) + k*s`` the ODE is autonomous and goes to the
energy integral (:mod:`desyr_sympy.shared.energy`).  On a disk the centre is in the domain, and a solution
regular there has ``r*U' -> 0``: ``w' -> -k`` as ``s -> -oo``, which fixes the energy level
(Liouville's ``log(8*exp(2*C1)/(exp(2*C1)*r**2 + 1)**2)``); the rim data pick the branch.  On another
domain the data's centre plays the disk's: where the domain holds it the solution must be regular there,
the data at one radius pick the branch, and the constants left free are fitted to the data in Stage B.
What no dilation makes autonomous goes to :mod:`desyr_sympy.shared.lowering` (total derivatives, then
``dsolve``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared import energy, lowering
from desyr_sympy.shared.ansatz import nonlinear, profile, substitute
from desyr_sympy.shared.candidates import real_start
from desyr_sympy.shared.centre import RadialFrame, radial_frame
from desyr_sympy.shared.forms import jet_symbols, rational
from desyr_sympy.shared.round import round_shape

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Radial(ExactMethod):
    name = "radial"
    summary = "one nonlinear steady equation whose data are radially symmetric about a point (a disk's, an annulus's or the data's own): radial solutions"
    problems = ("one nonlinear steady equation on a `disk` or an `annulus` whose data are radially symmetric (the "
                "linear ones are `polar`'s), or on any other domain of the plane whose data of the field are "
                "radially symmetric about a point (issue 47: Liouville on a square)")
    proposes = ("`u = U(r)` from the shape's centre, else from the centre read off the data (`(x - x0)*V_y - (y - "
                "y0)*V_x = 0` for every datum `V`, least squares at five points, an exact number, then the symmetry "
                "checked on three circles; `desyr_sympy.shared.centre`); the ODE in `r` (no angle may be left) made "
                "autonomous in `s = log(r)` by its dilation `r -> l*r, U -> l**k*U` (`U = r**k*w(s)`) or, with `U` "
                "only in exponentials, `r -> l*r, U -> U + k*log(l)` (`U = w(s) + k*s`), then the energy integral; "
                "on a disk, or a domain that holds the data's centre, the centre is regular (`r*U' -> 0`: `w' -> -k` "
                "as `s -> -oo`), which fixes the level, and the rim values (elsewhere the data's value at the "
                "distance to the nearest edge) pick the branch: Liouville's `log(8*exp(2*C1)/(exp(2*C1)*(x**2 + "
                "y**2) + 1)**2)`, written in `r**2 = x**2 + y**2`; else the ODE is lowered as in `separation`; on a "
                "disk, solutions singular at the centre are left out")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field and one equation"
        if problem.dim != 2 or problem.time is not None:
            return "not a steady equation in two variables"
        if not nonlinear(problem):
            return "linear: the polar solver's"
        frame = radial_frame(problem)
        if frame is None:
            return "the data depend on the angle" if round_shape(problem) is not None else \
                "not a disk or an annulus, and the data are not radially symmetric about a point"
        return "" if _radial_ode(problem, frame) is not None else "the equation is not rotation-invariant"

    def solve(self, problem: Problem) -> Solutions:
        frame = radial_frame(problem)
        found = None if frame is None else _radial_ode(problem, frame)
        if frame is None or found is None:
            raise NotImplementedError("the equation is not rotation-invariant")
        ode, fs, r, rho = found
        rim = _rim_values(problem, frame, r)
        out: list[sp.Expr] = []
        for reduced, ws, s, back, to_profile in energy.ode_reductions(ode, fs, r):
            values = [to_profile.subs({sp.Symbol("V"): v, r: at}) for at, v in rim]
            # a domain that holds the centre needs the solution regular there; one that does not may
            # still have it (data of a regular solution seen off its centre), the general family after it
            for regular in (True,) if frame.holds_centre else (True, False):
                ends = _regular_centre(back, r) if regular and s != r else []
                for w in energy.profiles(reduced, ws, s, values=values, slopes_at_infinity=ends):
                    found = w if s == r else energy.mapped_back(back, w, s, r)
                    if found not in out:
                        out.append(found)
        if not out:
            out = lowering.solve(ode, fs, r, lowering.Constants())
        if frame.holds_centre:        # the centre is in the domain: a solution singular there is no candidate
            out = [e for e in out if _finite_at_centre(e, r)]
        if not out:
            raise NotImplementedError("no radial solution")
        return [{problem.fields[0]: real_start(_in_square(e, r, rho), problem)} for e in out]


def _radial_ode(problem: Problem, frame: RadialFrame) -> tuple[sp.Expr, list[sp.Symbol], sp.Symbol, sp.Expr] | None:
    """The equation for ``u = U(r)`` over ``U``'s profile symbols and ``r``, with ``r`` in the problem's
    variables; None when an angle is left."""
    x, y, x0, y0 = frame.x, frame.y, frame.x0, frame.y0
    r, X = sp.Symbol("r", positive=True), sp.Symbol("X", real=True)
    rho = sp.sqrt((x - x0)**2 + (y - y0)**2)
    fs = profile("R")
    (reduced,) = substitute(problem, {problem.fields[0]: fs[0]}, rho, [fs])
    # y - y0 = sqrt(r**2 - X**2) turns rho into r; a rotation-invariant operator leaves no X
    ode = sp.cancel(sp.expand((reduced).xreplace({x: x0 + X, y: y0 + sp.sqrt(r**2 - X**2)})))
    if ode.free_symbols & {X, x, y} or not ode.has(*fs[1:]):
        return None
    return sp.numer(ode), fs, r, rho


def _rim_values(problem: Problem, frame: RadialFrame, r: sp.Symbol) -> list[tuple[sp.Expr, sp.Expr]]:
    """(radius, value) of each plain value of the field given at the frame's radius (a round shape's
    outer circle, or where the data of another domain are read)."""
    jets = jet_symbols(problem)
    out = []
    for c in problem.constraints:
        jet = jets.get(c.operator)
        if c.kind == "pointwise" and jet is not None and not jet.wrt:
            value = rational(c.value).xreplace({frame.x: frame.x0 + frame.radius, frame.y: frame.y0})
            if value.is_number:
                out.append((frame.radius, value))
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
