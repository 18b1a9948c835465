"""Field completion: a field the equations hold only through its gradient, or with no derivative at
all, derived from the other fields of a candidate.

An incompressible flow's pressure enters each momentum equation only as ``p_x`` (``p_y``...), with a
constant coefficient: once the velocity is known, each of those equations reads ``p_x = R_x(u, v)``,
and the pressure is the potential of ``(R_x, R_y, ...)``, which exists where the cross derivatives
agree (``dR_x/dy = dR_y/dx``).  It is integrated one variable after the other; what the gradient
leaves free, a function of the variables no equation differentiates ``p`` by (the time), is taken from
the field's own data at a point of the other variables (a pressure anchor ``p(0, 0, t)``), else left
as one free constant for Stage B.  A field that enters without derivatives and linearly (``q - u_x**2``)
is solved for.  Nothing here decides that the completed candidate is exact: the verifier does.

The work is bounded: a field that is not of these kinds is declined by a look at the equations alone,
a failed cross-derivative check (sampled numerically) declines before any integral, and the SymPy
work runs under :data:`SECONDS` of an idle core, stretched by the load on a shared machine
(:func:`wall_for`): a bound meant for the work, not for the neighbours (Kovasznay's pressure takes
1.1 s of CPU and was cut at 5 s of wall at a load of 18 on 2 cores).
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from desyr.symbolic.expressions import ExpressionError, Jet, complexity
from desyr.symbolic.numeric import lambdify
from desyr.symbolic.simplify import bounded_simplify
from desyr.symbolic.time_limit import OutOfTime, time_limit

if TYPE_CHECKING:  # pragma: no cover
    from desyr.model.problem import Problem

GRADIENT, ALGEBRAIC = "gradient", "algebraic"
#: wall-clock bound on one completion's SymPy work (seconds)
SECONDS = 5.0
#: the most a busy machine stretches :data:`SECONDS` (a hopeless completion still ends)
MAX_STRETCH = 8.0
#: a proposal with a field larger than this (tree nodes) is not completed: no closed form we look for
MAX_NODES = 200
#: the free constant a completion without data starts from (not 0 or +-1: Stage B refits it)
FREE_CONSTANT = sp.Float(0.5)
#: points (and draws of the candidate's constants) where the cross derivatives are compared
_SAMPLES = 6


def completable(problem: Problem) -> dict[str, str]:
    """Each field the equations hold only through its gradient (``GRADIENT``) or only as itself
    (``ALGEBRAIC``), linearly with constant coefficients in the gradient case; a problem of one field
    has none."""
    if len(problem.fields) < 2:
        return {}
    found = {}
    for field in problem.fields:
        kind = _kind(problem, field)
        if kind:
            found[field] = kind
    return found


def _jets(problem: Problem, field: str) -> dict[sp.Symbol, Jet]:
    out = {}
    for eq in problem.equations:
        for sym in eq.residual.free_symbols:
            jet = problem.vocabulary.jet_of(sym)
            if jet is not None and jet.field == field:
                out[sym] = jet
    return out


def _kind(problem: Problem, field: str) -> str:
    jets = _jets(problem, field)
    if not jets:
        return ""
    every = {s for eq in problem.equations for s in eq.residual.free_symbols if problem.vocabulary.jet_of(s)}
    if all(j.order == 0 for j in jets.values()):
        return ALGEBRAIC if any(_linear_in(eq.residual, list(jets), every, constant=False)
                                for eq in problem.equations) else ""
    if any(j.order != 1 for j in jets.values()):
        return ""
    variables = set(problem.symbols)
    if all(_linear_in(eq.residual, list(jets), every | variables, constant=True) for eq in problem.equations):
        return GRADIENT
    return ""


def _linear_in(residual: sp.Expr, symbols: Sequence[sp.Symbol], banned: set[sp.Symbol], constant: bool) -> bool:
    """Whether ``residual`` is linear in ``symbols`` (and holds one), each coefficient free of the
    ``symbols`` and, where ``constant``, of everything ``banned`` (every jet and variable)."""
    present = [s for s in symbols if s in residual.free_symbols]
    if not present:
        return constant         # an equation without the field says nothing against it
    for s in present:
        coefficient = sp.diff(residual, s)
        if coefficient.free_symbols & (banned if constant else set(symbols)):
            return False
    rest = residual.xreplace({s: 0 for s in present})
    return bool(sp.expand(residual - rest - sum(sp.diff(residual, s) * s for s in present)) == 0)


def complete_fields(problem: Problem, known: Mapping[str, sp.Expr], seconds: float = SECONDS) -> dict[str, sp.Expr] | None:
    """``known`` with every missing field derived from it, or None when a missing field is not
    completable, its equations do not allow it (no potential), a field is larger than :data:`MAX_NODES`
    or the work runs past ``seconds``."""
    kinds = completable(problem)
    missing = [f for f in problem.fields if f not in known]
    if not missing or any(f not in kinds for f in missing):
        return None
    if any(complexity(sp.sympify(e)) > MAX_NODES for e in known.values()):
        return None             # differentiating and integrating a tree this size outlasts the bound
    floats = any(e.atoms(sp.Float) for e in known.values())
    exact = {f: _rational(sp.sympify(e)) for f, e in known.items()}
    out = dict(known)
    try:
        with time_limit(wall_for(seconds)):
            for field in missing:
                others = [f for f in missing if f != field]
                derived = (_potential if kinds[field] == GRADIENT else _solved)(problem, field, exact, others)
                if derived is None:
                    return None
                out[field] = _floats(derived) if floats else _tidy(derived)
    except OutOfTime:
        return None
    except Exception:  # noqa: BLE001 - SymPy can fail on unusual trees; a failed completion declines
        return None
    return out


def wall_for(seconds: float) -> float:
    """The wall time ``seconds`` of SymPy work takes here now: the one-minute load average per usable
    core, when above 1, stretches it (at most :data:`MAX_STRETCH` times)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):       # no load average on this platform: an idle machine
        return seconds
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return seconds * min(max(load / cores, 1.0), MAX_STRETCH)


def _equations(problem: Problem, field: str, known: Mapping[str, sp.Expr], others: Sequence[str],
               unknowns: Mapping[sp.Symbol, sp.Symbol]) -> list[sp.Expr]:
    """The equations that hold ``field`` and no other missing field, with the known fields put in and
    ``field``'s jets written as ``unknowns``."""
    out = []
    for eq in problem.equations:
        residual = eq.residual
        jets = {problem.vocabulary.jet_of(s) for s in residual.free_symbols} - {None}
        fields = {j.field for j in jets if j is not None}
        if field in fields and not fields & set(others):
            out.append(problem.apply(residual.xreplace(dict(unknowns)), known))
    return out


def _potential(problem: Problem, field: str, known: Mapping[str, sp.Expr], others: Sequence[str]) -> sp.Expr | None:
    names = problem.vocabulary.var_symbols
    jets = _jets(problem, field)
    slots = {s: sp.Dummy(f"d{j.wrt[0]}") for s, j in jets.items()}
    by_variable = {names[jets[s].wrt[0]]: d for s, d in slots.items()}
    gradient: dict[sp.Symbol, sp.Expr] = {}
    for eq in _equations(problem, field, known, others, slots):
        held = [v for v, d in by_variable.items() if d in eq.free_symbols]
        if len(held) == 1 and held[0] not in gradient:
            d = by_variable[held[0]]
            gradient[held[0]] = -eq.xreplace({d: 0}) / sp.diff(eq, d)
    if not gradient or not _curl_free(problem, gradient):
        return None
    phi = sp.Integer(0)
    for v, component in gradient.items():
        rest = sp.expand(component - sp.diff(phi, v))
        if rest != 0:
            integral = sp.integrate(rest, v)
            if integral.has(sp.Integral):
                return None
            phi += integral
    return phi + _free_part(problem, field, phi, list(gradient))


def _curl_free(problem: Problem, gradient: Mapping[sp.Symbol, sp.Expr]) -> bool:
    """Whether every cross derivative agrees, at a few points of the box (and of the candidate's own
    constants): a numerical look, enough to decline; the verifier proves what is kept."""
    variables = list(gradient)
    pairs = [(a, b) for i, a in enumerate(variables) for b in variables[i + 1:]]
    if not pairs:
        return True
    gaps = [sp.diff(gradient[a], b) - sp.diff(gradient[b], a) for a, b in pairs]
    sizes = [sp.diff(gradient[v], v) for v in variables]
    constants = sorted(set().union(*(g.free_symbols for g in gaps + sizes)) - set(problem.symbols), key=str)
    draw = np.random.default_rng(36)
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    points = lo + (hi - lo) * draw.uniform(0.1, 0.9, (_SAMPLES, len(lo)))
    values = [*points.T, *draw.uniform(0.5, 1.5, (len(constants), _SAMPLES))]
    try:
        with np.errstate(all="ignore"):
            found = lambdify([*problem.symbols, *constants], gaps + sizes)(*values)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return False
    table = np.array([np.broadcast_to(np.asarray(v, dtype=complex), (_SAMPLES,)) for v in found])
    scale = np.maximum(1.0, np.max(np.abs(table[len(gaps):]), axis=0)) if sizes else 1.0
    return bool(np.all(np.isfinite(table)) and np.all(np.abs(table[:len(gaps)]) <= 1e-8 * scale))


def _free_part(problem: Problem, field: str, phi: sp.Expr, determined: Sequence[sp.Symbol]) -> sp.Expr:
    """What the gradient leaves free, a function of the other variables: from the field's data at a
    point of the determined ones (``p(0, 0, t)``), else one free constant."""
    names = problem.vocabulary.var_symbols
    for c in problem.constraints:
        if c.kind != "pointwise" or problem.vocabulary.jet_of(c.operator) != Jet(field, ()):
            continue
        for face in getattr(c, "faces", ()):
            fixed = {names[n]: sp.nsimplify(v, [sp.pi], tolerance=1e-12) for n, v in getattr(face, "fixed", ())}
            if all(v in fixed for v in determined):
                return sp.expand(c.value.xreplace(fixed) - phi.xreplace(fixed))
    return FREE_CONSTANT


def _solved(problem: Problem, field: str, known: Mapping[str, sp.Expr], others: Sequence[str]) -> sp.Expr | None:
    """The field from the first equation linear in it."""
    (own,) = _jets(problem, field)
    slot = sp.Dummy(field)
    for eq in _equations(problem, field, known, others, {own: slot}):
        coefficient = sp.diff(eq, slot)
        if coefficient != 0 and slot not in coefficient.free_symbols:
            return sp.expand(-eq.xreplace({slot: 0}) / coefficient)
    return None


def _tidy(expr: sp.Expr) -> sp.Expr:
    """The simpler of ``expr`` and a short simplify of it (an integral's sum of squares of sines), of its
    one fraction first: simplify is four times quicker there (Kovasznay's pressure: 0.2 s against 0.8)."""
    simpler = bounded_simplify(sp.cancel(expr), seconds=1.0)
    return simpler if simpler is not None and complexity(simpler) < complexity(expr) else expr


def _rational(expr: sp.Expr) -> sp.Expr:
    """Floats as exact rationals, so that the cross derivatives of a float candidate cancel exactly."""
    floats = expr.atoms(sp.Float)
    return expr.xreplace({f: sp.nsimplify(f, rational=True) for f in floats}) if floats else expr


def _floats(expr: sp.Expr) -> sp.Expr:
    """A completion of a float candidate with its fractions as floats again, for Stage B to refit."""
    fractions = [r for r in expr.atoms(sp.Rational) if not r.is_integer]
    return expr.xreplace({r: sp.Float(r) for r in fractions}) if fractions else expr
