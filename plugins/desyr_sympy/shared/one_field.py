"""One field's problem inside a system, and the amplitudes of a system's candidate fixed from the equations
that tie its fields and from the data: what the linear-part reductions (``linear_part``, ``vanishing``)
share."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from desyr.plugin import constraint_points, lambdify
from desyr_sympy.shared.candidates import solver_constants
from desyr_sympy.shared.forms import constants_of, jet_symbols, rational, slice_data, terms

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

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
        # data of a field the candidate does not hold yet (a pressure at t = 0, completed later) wait
        if d.operator in jets and jets[d.operator].field in candidate:
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
