"""The exact method ``polar``: radial modes on a disk or an annulus: ``u = R(r)*T(t)``, ``r`` measured from the shape's centre.

A linear equation whose operator is invariant under rotations about the centre of the domain's disk
or annulus (the Laplacian, Helmholtz, heat, with constant coefficients) keeps radially symmetric data
radially symmetric.  Written with ``u = T(t)*R(r)``, ``r = sqrt((x - x0)**2 + (y - y0)**2)``, the
equation divided by ``T`` must be an ODE in ``r`` alone, with no angle and no time left: ``dsolve``
solves it (Bessel's equation: ``besselj(0, k*r)`` and ``bessely(0, k*r)``; its modified form:
``besseli`` and ``besselk``; Laplace's: ``1`` and ``log(r)``).  The time factors ``T`` come from the
data (``exp(-9*t)`` of ``besselj(0, 3*r)*exp(-9*t)`` on the rim), with ``T = 1`` always tried.  On a
disk, whose centre is in the domain, the solutions singular at ``r = 0`` are left out.  Whether the
data really are radial is checked numerically on three angles; the integration constants are free
for Stage B, which fits them to the data.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr.plugin import Disk
from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.ansatz import as_ode, profile, substitute
from desyr_sympy.shared.bessel import real_basis
from desyr_sympy.shared.odes import explicit
from desyr_sympy.shared.round import linear_on_round, polar_frame, radial_data, regular_at_centre, time_factors

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Polar(ExactMethod):
    name = "polar"
    summary = "one linear equation on a disk or an annulus with radially symmetric data: radial modes `R(r)*T(t)`"
    problems = ("one linear equation on a `disk` or an `annulus` whose data are radially symmetric (the same on "
                "every circle about the shape's centre)")
    proposes = ("radial modes `R(r)*T(t)`, `r = sqrt((x - x0)**2 + (y - y0)**2)` from the shape's centre: the "
                "equation divided by `T` must be an ODE in `r` alone, which `dsolve` solves: `besselj(0, k*r)` (and "
                "`bessely(0, k*r)` on an annulus) for Helmholtz, `besseli`/`besselk` for the modified equation, `1` "
                "and `log(r)` for Laplace, and the heat mode `besselj(0, k*r)*exp(-k**2*t)`; `T` is `1` or a factor "
                "of the data in time alone (`exp(-9*t)` of the rim data); on a disk the modes singular at its centre "
                "(`bessely`, `besselk`, `log(r)`) are left out")

    def applies(self, problem: Problem) -> str:
        return linear_on_round(problem) or ("" if radial_data(problem) else "the data depend on the angle")

    def solve(self, problem: Problem) -> Solutions:
        """The radial modes of the equation, one candidate for each time factor that separates."""
        shape, (x, y, x0, y0, r, X), rho = polar_frame(problem)
        fs = profile("R")
        f = sp.Function("radial")(r)
        disk = isinstance(shape, Disk)
        field = problem.fields[0]
        out: list[dict[str, sp.Expr]] = []
        for factor in time_factors(problem):
            (reduced,) = substitute(problem, {field: factor * fs[0]}, rho, [fs])
            # y - y0 = sqrt(r**2 - X**2) turns rho into r; a rotation-invariant operator leaves no X
            ode = sp.cancel(sp.expand((reduced / factor).xreplace({x: x0 + X, y: y0 + sp.sqrt(r**2 - X**2)})))
            if ode.free_symbols & ({X} | set(problem.symbols)) or not ode.has(*fs[1:]):
                continue
            try:
                general = explicit(sp.dsolve(as_ode(ode, fs, f, r), f), {field: f})
            except (NotImplementedError, ValueError):
                continue
            for solution in general:
                mode = real_basis(solution[field])
                if disk:
                    mode = regular_at_centre(mode, r)
                if mode.has(r):
                    out.append({field: factor * mode.xreplace({r: rho})})
        if not out:
            raise NotImplementedError("no radial mode")
        return out
