"""The exact method ``linear_part``: solutions of a system's linear part whose nonlinear terms are a gradient (incompressible flows).

Many exact flows (Taylor-Green, Beltrami, Couette) solve the *linear* part of the Navier-Stokes
equations, the products of fields dropped, while the products they leave out form a gradient that
the pressure absorbs.  So: the fields the equations hold only through their gradient (a pressure,
:func:`desyr.plugin.completable`) are left out; every other field must have an equation of its own
whose linear part holds no other field (``u_t - (u_xx + u_yy)/10`` for ``u``), which the separable
and polar solvers solve with that field's data; the equations that tie the fields together with no
gradient field in them (continuity, ``u_x + v_y``) and the data fix the amplitudes where a linear
system of them can (each function of the variables gives one equation of its coefficients).  The
candidate goes out without the gradient field: stage 0 derives it from the others by integration
(docs/solvers.md, "Field completion") or drops the candidate when the products are not a gradient.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import sympy as sp

from desyr.plugin import completable
from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.methods.polar import Polar
from desyr_sympy.methods.separable import Separable
from desyr_sympy.shared.angular import AngularModes
from desyr_sympy.shared.forms import jet_symbols, residuals, split_linear
from desyr_sympy.shared.one_field import OneField, distinct_modes, fitted_amplitudes

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: at most this many combinations of the fields' candidates go out
MAX_COMBINATIONS = 4
#: the methods that solve one field's linear equation with its data, in the order they are asked
LINEAR_METHODS: tuple[ExactMethod, ...] = (Separable(), Polar(), AngularModes())


class LinearPart(ExactMethod):
    name = "linear_part"
    summary = "flows with a pressure: the solutions of their linear part, the pressure completed by stage 0"
    problems = ("systems with a field the equations hold only through its gradient, linearly with constant "
                "coefficients (a pressure: `p_x`, `p_y` in the momentum equations), every other field with an "
                "equation of its own once the products of fields are dropped (incompressible Navier-Stokes and "
                "Stokes flows whose velocity solves that linear part; not potential flows, whose time derivative the "
                "pressure balances with `Δu = 0`: their proposals fail the verifier and the teacher path goes on)")
    proposes = ("the solutions of that linear part, field by field, from `separable` (the data's shapes with "
                "exponential rates), `polar` (radial modes) and **angular modes** on a disk or an annulus "
                "(`R(r)*cos(n*theta)`, `sin(n*theta)` written as `Re((x + i*y)**n)/r**n`, the orders `n <= 4` read "
                "from the data's Fourier content on the shape's circles, `R` from `dsolve`: `y` and `y/(x**2 + "
                "y**2)` for Laplace with `n = 1`); the amplitudes solved from the equations that tie the fields "
                "(continuity `u_x + v_y`, each function of the variables giving one linear condition) and the data "
                "on faces, the rest fitted to all the fields' pointwise data where the fit is exact and its numbers "
                "simple (`1`, `pi/2`); where the whole forcing cannot hold with continuity, a momentum equation's "
                "forcing terms in its own gradient variable (and the time) go to the pressure. The candidate leaves "
                "the pressure out: stage 0 completes it (below) or drops the candidate where the dropped products "
                "are not a gradient. The decaying Taylor-Green vortex and Beltrami flow, Taylor-Couette flow in an "
                "annulus, the forced Stokes-Taylor-Green flow")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if len(problem.fields) < 2:
            return "not a system"
        if not completable(problem):
            return "no field enters only through its gradient or without derivatives"
        if _split(problem) is None:
            return "a field without an equation of its own in the linear part"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        split = _split(problem)
        if split is None:
            raise NotImplementedError("no equation of its own for every field")
        kept, own, ties = split
        # the whole forcing first; then without the forcing the gradient field can take
        for k in range(max(len(e) for e in own.values())):
            options = {f: _solutions(problem, f, own[f][min(k, len(own[f]) - 1)]) for f in kept}
            lists = [options[f] for f in kept]
            if not all(lists):
                continue
            # the solvers give their candidates in one order (exact rates, then free ones): alike go together
            paired = zip(*lists) if len({len(x) for x in lists}) == 1 else itertools.product(*lists)
            out = [c for c in (fitted_amplitudes(problem, distinct_modes(dict(zip(kept, combination))), ties)
                               for combination in itertools.islice(paired, MAX_COMBINATIONS)) if c is not None]
            if out:
                return out
        raise NotImplementedError("no solutions of the linear parts that the equations tying the fields allow")


def _split(problem: Problem) -> tuple[list[str], dict[str, list[sp.Expr]], list[sp.Expr]] | None:
    """The fields to solve, each one's own linear equation (and that equation without the forcing the
    gradient field can take), and the equations that tie them (no gradient field in them); None when
    some field has no equation of its own."""
    left_out = set(completable(problem))
    jets = jet_symbols(problem)
    kept = [f for f in problem.fields if f not in left_out]
    if not left_out or not kept:
        return None
    own: dict[str, list[sp.Expr]] = {}
    ties = []
    gradient = {jets[s].wrt[0] for s in jets if jets[s].field in left_out and len(jets[s].wrt) == 1}
    names = problem.vocabulary.var_symbols
    free = {s for n, s in names.items() if n not in gradient}
    for residual in residuals(problem):
        fields = {jets[s].field for s in residual.free_symbols if s in jets}
        part = _linear_part(residual, [s for s in residual.free_symbols if s in jets and jets[s].field in kept],
                            [s for s in residual.free_symbols if s in jets and jets[s].field in left_out])
        held = {jets[s].field for s in part.free_symbols if s in jets}
        if len(held) == 1 and held <= set(kept) and fields & left_out:
            along = {names[jets[s].wrt[0]] for s in residual.free_symbols
                     if s in jets and jets[s].field in left_out and len(jets[s].wrt) == 1}
            own.setdefault(held.pop(), list(dict.fromkeys([part, _absorbed(part, along | free, jets)])))
        elif not fields & left_out and split_linear(residual, jets) is not None:
            ties.append(residual)
    return (kept, own, ties) if set(own) == set(kept) else None


def _absorbed(part: sp.Expr, variables: set[sp.Symbol], jets: Mapping[sp.Symbol, Any]) -> sp.Expr:
    """``part`` without its forcing terms in ``variables`` alone: in the equation of ``p_x``, a term
    ``f(x, t)`` is the ``x``-derivative of a function no other component sees, which ``p`` can take."""
    kept = [t for t in sp.Add.make_args(part)
            if any(s in jets for s in t.free_symbols) or not t.free_symbols <= variables]
    return sp.Add(*kept)


def _linear_part(residual: sp.Expr, kept: Sequence[sp.Symbol], dropped: Sequence[sp.Symbol]) -> sp.Expr:
    """``residual`` without the gradient field's jets and without the terms of degree two or more in
    the other fields' jets."""
    expr = sp.expand(residual.xreplace({s: 0 for s in dropped}))
    out = []
    for term in sp.Add.make_args(expr):
        degree = sp.Poly(term, *kept).total_degree() if kept and term.free_symbols & set(kept) else 0
        if degree <= 1:
            out.append(term)
    return sp.Add(*out)


def _solutions(problem: Problem, field: str, equation: sp.Expr) -> list[sp.Expr]:
    view = cast("Problem", OneField(problem, field, equation))
    found = []
    for method in LINEAR_METHODS:
        if method.applies(view):
            continue
        try:
            found += [c[field] for c in method.solve(view)]
        except NotImplementedError:
            continue
    return found
