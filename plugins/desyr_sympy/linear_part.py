"""Solutions of a system's linear part whose nonlinear terms are a gradient (incompressible flows).

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from desyr.plugin import completable, constraint_points, lambdify
from desyr_sympy import angular, polar, separable
from desyr_sympy.candidates import solver_constants
from desyr_sympy.forms import constants_of, jet_symbols, rational, residuals, slice_data, split_linear, terms

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: at most this many combinations of the fields' candidates go out
MAX_COMBINATIONS = 4
#: points of each constraint's sets where a candidate's free constants are fitted to the data
_POINTS = 24
#: a fitted constant whose fraction needs more digits than this is left to Stage B
_MAX_DENOMINATOR = 10_000


@dataclass(frozen=True)
class _Equation:
    residual: sp.Expr


class OneField:
    """The problem as one field's solver reads it: that field, its own equation, its own data."""

    def __init__(self, problem: Problem, field: str, equation: sp.Expr) -> None:
        self._problem = problem
        self.fields = [field]
        self.equations = [_Equation(equation)]
        jets = jet_symbols(problem)
        self.constraints = [c for c in problem.constraints
                            if {jets[s].field for s in c.operator.free_symbols if s in jets} == {field}]

    def jets(self) -> list[Any]:
        return [j for j in self._problem.jets() if j.field == self.fields[0]]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._problem, name)


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


def applies(problem: Problem) -> str:
    if len(problem.fields) < 2:
        return "not a system"
    if not completable(problem):
        return "no field enters only through its gradient or without derivatives"
    if _split(problem) is None:
        return "a field without an equation of its own in the linear part"
    return ""


def _solvers(view: Problem) -> list[Callable[[Problem], list[dict[str, sp.Expr]]]]:
    out: list[Callable[[Problem], list[dict[str, sp.Expr]]]] = []
    if not separable.applies(view):
        out.append(separable.separate)
    if not polar.applies(view):
        out.append(polar.radial)
    if not angular.applies(view):
        out.append(angular.modes)
    return out


def solve(problem: Problem) -> list[dict[str, sp.Expr]]:
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


def _solutions(problem: Problem, field: str, equation: sp.Expr) -> list[sp.Expr]:
    view = OneField(problem, field, equation)
    found = []
    for solver in _solvers(view):       # type: ignore[arg-type]
        try:
            found += [c[field] for c in solver(view)]    # type: ignore[arg-type]
        except NotImplementedError:
            continue
    return found


def distinct_modes(candidate: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """Each field's constants ``C1, C2...`` renamed apart from the other fields'."""
    out, k = {}, 0
    for field, expr in candidate.items():
        renames = {}
        for c in solver_constants(expr):
            k += 1
            renames[c] = sp.Symbol(f"C{k}")
        out[field] = expr.xreplace(renames)
    return out


def fitted_amplitudes(problem: Problem, candidate: dict[str, sp.Expr], ties: Sequence[sp.Expr]
                      ) -> dict[str, sp.Expr] | None:
    """The candidate with its constants fixed where the equations that tie the fields and the data,
    linear in them, decide; None when the ties cannot hold."""
    constants = sorted({c for e in candidate.values() for c in solver_constants(e)}, key=lambda c: int(c.name[1:]))
    if not constants:
        return candidate
    tied = [g for r in ties for g in _conditions(problem.apply(r, candidate), constants)]
    if _consistent(tied, constants) is None:
        return None
    jets = jet_symbols(problem)
    # each piece of data joins only where it can hold with the others: one that no choice of the
    # amplitudes meets (a rate the data do not share) is left to Stage B and the verifier
    for d in slice_data(problem):
        if d.operator in jets:
            more = _conditions(problem.apply(d.operator, candidate).subs(d.variable, d.at) - d.value, constants)
            if _consistent(tied + more, constants) is not None:
                tied += more
    values = _consistent(tied, constants)
    out = {f: sp.expand(e.xreplace(values or {})) for f, e in candidate.items()}
    out = _fitted(problem, out)
    return out if any(e != 0 for e in out.values()) else None


def _fitted(problem: Problem, candidate: dict[str, sp.Expr]) -> dict[str, sp.Expr]:
    """The constants the face data left free, fitted to all the fields' pointwise data (a circle's
    too) by least squares, where the fit is exact and every constant is a simple number (``1``,
    ``pi/2``); else the candidate as it is, for Stage B."""
    constants = sorted({c for e in candidate.values() for c in solver_constants(e)}, key=lambda c: int(c.name[1:]))
    if not constants or constants_of(problem):
        return candidate
    rows, right = [], []
    rng = np.random.default_rng(36)
    jets = jet_symbols(problem)
    for c in problem.constraints:
        held = {jets[s].field for s in c.operator.free_symbols if s in jets}
        if c.kind != "pointwise" or not held or not held <= set(candidate):
            continue
        residual = problem.apply(c.operator, candidate) - c.value
        points = constraint_points(problem, c.faces, _POINTS, rng)
        columns = [sp.diff(residual, k) for k in constants] + [-residual.xreplace({k: 0 for k in constants})]
        values = lambdify(problem.symbols, columns)(*points.T)
        table = np.column_stack([np.broadcast_to(np.asarray(v, dtype=float), (len(points),)) for v in values])
        rows.append(table[:, :-1])
        right.append(table[:, -1])
    if not rows:
        return candidate
    A, b = np.vstack(rows), np.concatenate(right)
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))) or np.linalg.matrix_rank(A) < len(constants):
        return candidate
    solution = np.linalg.lstsq(A, b, rcond=None)[0]
    if np.linalg.norm(A @ solution - b) > 1e-9 * max(1.0, float(np.linalg.norm(b))):
        return candidate
    scale = max(1.0, float(np.max(np.abs(solution))))
    exact = [sp.Integer(0) if abs(v) < 1e-9 * scale else sp.nsimplify(float(v), [sp.pi], tolerance=1e-10)
             for v in solution]
    if any(abs(float(e) - v) > 1e-9 * scale or not _simple(e) for e, v in zip(exact, solution)):
        return candidate
    return {f: sp.expand(e.xreplace(dict(zip(constants, exact)))) for f, e in candidate.items()}


def _consistent(conditions: list[sp.Expr], constants: Sequence[sp.Symbol]) -> dict[sp.Symbol, sp.Expr] | None:
    """A solution of the linear ``conditions`` (constants left free where they do not decide), or None."""
    if not conditions:
        return {}
    solution = sp.linsolve(conditions, list(constants))
    if not isinstance(solution, sp.FiniteSet) or not solution.args:
        return None
    return dict(zip(constants, solution.args[0]))


def _simple(number: sp.Expr) -> bool:
    """Whether a fitted constant reads as a closed form (``3/2``, ``pi/4``), not a long fraction."""
    return all(abs(r.q) <= _MAX_DENOMINATOR and abs(r.p) <= _MAX_DENOMINATOR for r in number.atoms(sp.Rational))


def _conditions(expr: sp.Expr, constants: Sequence[sp.Symbol]) -> list[sp.Expr]:
    """The coefficient of each function of the variables in ``expr``, linear in ``constants``; a
    sufficient condition for ``expr = 0`` (two forms of one function stay apart)."""
    groups: dict[sp.Expr, sp.Expr] = {}
    chosen = set(constants)
    for term in terms(rational(expr)):
        factors = sp.Mul.make_args(term)
        number = sp.Mul(*[f for f in factors if not (f.free_symbols - chosen)])
        rest = sp.Mul(*[f for f in factors if f.free_symbols - chosen])
        if rest.free_symbols & chosen:
            return []               # a constant inside a function: not linear, decided by Stage B
        groups[rest] = groups.get(rest, sp.Integer(0)) + number
    return [g for g in groups.values() if g != 0 and g.free_symbols & chosen] + \
        [sp.Integer(1) for g in groups.values() if g != 0 and not g.free_symbols & chosen]
