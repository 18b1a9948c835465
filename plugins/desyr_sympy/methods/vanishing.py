"""The exact method ``vanishing``: solutions of the linear part on which the nonlinear terms vanish (one nonlinear equation or a system).

A textbook way to exact solutions of a nonlinear problem: drop the terms nonlinear in the fields, solve
the linear problem that is left with the problem's own data, and keep the solutions on which the
dropped terms are zero.  The coupled Burgers system ``u_t = u_xx + 2*u*u_x - (u*v)_x`` (and the same
for ``v``) loses its products where ``u = v``, so ``exp(-t)*sin(x)`` for both, the heat equation's
solution with that data, solves it; ``u*u_x`` vanishes where ``u`` is constant in ``x``; a term
``u**2*(u_xx + u)`` vanishes on every mode ``sin(x)``.  Every field needs an equation whose linear part
holds that field alone; those are solved by the existing linear solvers (``separable``, ``polar``,
``angular``, ``undetermined``, ``dsolve`` for one variable) with that field's data, the amplitudes
fixed from the data as the flows' :mod:`desyr_sympy.methods.linear_part` fixes them.  A candidate goes out
only where the nonlinear terms are zero on it (numbers at a few points: a filter, the verifier
decides), free constants in them solved from the coefficient of each function where they are not.

Flows with a pressure are :mod:`desyr_sympy.methods.linear_part`'s (their products must be a gradient, not
zero), so a problem with such a field is left to it.  The check in the parent reads the data: where
every field is given on a face, the nonlinear terms whose derivatives run along that face must vanish
there already (``u*u_x`` on ``u(x, 0) = sin(x)`` does not), else no solution of the linear part can
solve the problem and the solver declines.
"""
from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import sympy as sp

from desyr.plugin import Face, completable, constraint_points, lambdify
from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.methods.dsolve import Dsolve
from desyr_sympy.methods.dsolve_ics import DsolveIcs
from desyr_sympy.methods.polar import Polar
from desyr_sympy.methods.separable import Separable
from desyr_sympy.methods.undetermined import Undetermined
from desyr_sympy.shared.angular import AngularModes
from desyr_sympy.shared.candidates import solver_constants
from desyr_sympy.shared.forms import constants_of, exact_number, jet_symbols, rational, residuals
from desyr_sympy.shared.one_field import OneField, distinct_modes, fitted_amplitudes

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: at most this many combinations of the fields' solutions are tried
MAX_COMBINATIONS = 8
#: fractions of the box where the nonlinear terms are evaluated (irrational, off the zeros of modes)
_SAMPLES = (0.2360679774997897, 0.6180339887498949, 0.8541019662496845, 0.4142135623730951)
#: points of each constraint's sets where a candidate is checked against the data
_POINTS = 16
#: a value this small against the size of its terms is zero
_TOLERANCE = 1e-9

#: the methods that solve one field's linear equation with its data, in the order they are asked
LINEAR_METHODS: tuple[ExactMethod, ...] = (Separable(), Polar(), AngularModes(), Undetermined(), DsolveIcs(), Dsolve())


@dataclass(frozen=True)
class Parts:
    """A problem as this solver reads it: the linear equation of each field to solve, the nonlinear
    remainders (in those fields), and the fields set equal to the one solved (``u = v``)."""

    own: dict[str, sp.Expr]
    remainders: list[sp.Expr]
    same: tuple[str, ...] = ()


def split(problem: Problem) -> Parts | None:
    """Each field's own linear equation (the terms of degree at most one in the jets of one equation,
    which hold that field alone) and the nonlinear remainders; else, where every field has the same
    data, the system with every field one (:func:`_identified`); None when neither reads."""
    jets = jet_symbols(problem)
    own: dict[str, sp.Expr] = {}
    remainders = []
    for residual in residuals(problem):
        linear, nonlinear = _parts(residual, [s for s in residual.free_symbols if s in jets])
        held = {jets[s].field for s in linear.free_symbols if s in jets}
        if len(held) != 1 or held <= set(own):
            return _identified(problem)
        own[held.pop()] = linear
        remainders.append(nonlinear)
    if set(own) != set(problem.fields) or all(n == 0 for n in remainders):
        return None
    return Parts(own, remainders)


def _identified(problem: Problem) -> Parts | None:
    """The symmetric reduction ``u = v = ...`` of a system whose linear parts tie the fields: every field
    has the same data, and with the fields one, every equation's linear part is a constant times the
    first's (``u_t - v_xx`` and ``v_t - u_xx`` both read ``w_t - w_xx``)."""
    first, *others = problem.fields
    if not others or not _same_data(problem):
        return None
    one = _as_first(problem)
    parts = [_parts(e, list(_jets(e, problem))) for e in (sp.expand(r.xreplace(one)) for r in residuals(problem))]
    base = parts[0][0]
    if not _jets(base, problem):
        return None
    for linear, _ in parts[1:]:
        ratio = sp.cancel(linear / base)
        if ratio == 0 or ratio.free_symbols & {*problem.symbols, *_jets(ratio, problem)}:
            return None
    return Parts({first: base}, [n for _, n in parts], tuple(others))


def _as_first(problem: Problem) -> dict[sp.Symbol, sp.Symbol]:
    """Every field's jets as the first field's same jets."""
    first = problem.fields[0]
    return {s: problem.jet_symbol(replace(j, field=first)) for s, j in jet_symbols(problem).items()}


def _same_data(problem: Problem) -> bool:
    """Whether every field has the same pointwise data (the same jets on the same sets, the same values)."""
    one = _as_first(problem)
    given: dict[str, set[str]] = {f: set() for f in problem.fields}
    for c in problem.constraints:
        held = {j.field for j in _jets(c.operator, problem).values()}
        if len(held) != 1:
            return False
        given[held.pop()].add(repr((c.kind, c.operator.xreplace(one), c.faces, rational(c.value))))
    return all(g == given[problem.fields[0]] and g for g in given.values())


def _jets(expr: sp.Expr, problem: Problem) -> dict[sp.Symbol, Any]:
    found = {s: problem.vocabulary.jet_of(s) for s in expr.free_symbols}
    return {s: j for s, j in found.items() if j is not None}


def _parts(residual: sp.Expr, jets: Sequence[sp.Symbol]) -> tuple[sp.Expr, sp.Expr]:
    """``residual`` as its terms of degree at most one in ``jets`` and the rest (products of jets, and
    jets inside a function: ``sin(u)``)."""
    linear: list[sp.Expr] = []
    nonlinear: list[sp.Expr] = []
    for term in sp.Add.make_args(sp.expand(residual)):
        held = [j for j in jets if j in term.free_symbols]
        degree = sp.Poly(term, *held).total_degree() if held and term.is_polynomial(*held) else len(held) and 2
        (linear if degree <= 1 else nonlinear).append(term)
    return sp.Add(*linear), sp.Add(*nonlinear)


class Vanishing(ExactMethod):
    name = "vanishing"
    summary = "nonlinear problems: the solutions of the linear part on which the nonlinear terms vanish"
    problems = ("one nonlinear equation or a system (as many equations as fields, no pressure: that is "
                "`linear_part`'s), polynomial or not in the field and its derivatives, where each field has an "
                "equation whose linear part holds that field alone, or where every field has the same data and, with "
                "the fields one (`u = v = w`), every equation's linear part is a constant times the first's")
    proposes = ("**solutions of the linear part on which the nonlinear terms vanish**: the terms of degree two or "
                "more in the field and its derivatives (and a field inside a function, `sin(u)`) are dropped, each "
                "field's linear equation is solved with that field's data by `separable`, `polar`, `angular`, "
                "`undetermined` or `dsolve`, the amplitudes fixed from the data as `linear_part` fixes them; a "
                "combination that no choice of its amplitudes fits to the data (least squares at points of every "
                "constraint's sets) is dropped, and one goes out only where the dropped terms are zero on it "
                "(numbers at four points of the box; free constants in them solved from the coefficient of each "
                "function). The coupled Burgers system `u_t = u_xx + 2*u*u_x - (u*v)_x` (and the same for `v`), `u = "
                "v = exp(-t)*sin(x)`; `u*u_x` on a `u` constant in `x`; `u**2*(u_xx + u_yy + 2*u)` on "
                "`exp(-2*t)*sin(x)*sin(y)`. The check in the parent declines where the dropped terms are nonzero on "
                "data that give every jet they hold (`u*u_x` on `u(x, 0) = sin(x)`, `u**3 - x*u**2` likewise, a "
                "point value in an ODE), or where they hold the fields without derivatives as one product (`x*u**5`) "
                "or free of the variables (`exp(u)`): zero only where a field is zero or constant")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if len(problem.equations) != len(problem.fields):
            return "not as many equations as fields"
        if completable(problem):
            return "a field enters only through its gradient or without derivatives (linear_part's)"
        parts = split(problem)
        if parts is None:
            return "linear, or a field without an equation of its own in the linear part"
        own, remainders = parts.own, parts.remainders
        if any(_only_where_constant(r, problem) for r in remainders):
            return "a nonlinear term without derivatives vanishes only where a field is zero or constant"
        for field, equation in own.items():
            if not _applying(cast("Problem", _View(problem, field, equation))):
                return f"no linear solver applies to the linear part of {field}'s equation"
        return _data_allow(problem, remainders)

    def solve(self, problem: Problem) -> Solutions:
        parts = split(problem)
        if parts is None:
            raise NotImplementedError("no linear part with an equation for every field")
        own, remainders = parts.own, parts.remainders
        fields = list(own)
        lists = [_solutions(problem, f, own[f]) for f in fields]
        if not all(lists):
            raise NotImplementedError("the linear part has no solution with the data")
        # the solvers give their candidates in one order (exact rates, then free ones): alike go together
        paired = zip(*lists) if len({len(x) for x in lists}) == 1 else itertools.product(*lists)
        out: list[dict[str, sp.Expr]] = []
        for combination in itertools.islice(paired, MAX_COMBINATIONS):
            found = distinct_modes(dict(zip(fields, combination)))
            candidate = fitted_amplitudes(problem, found | {f: found[fields[0]] for f in parts.same}, [])
            if candidate is not None and _meets_data(problem, candidate):
                out += [c for c in _vanishing(problem, candidate, remainders) if c not in out]
        if not out:
            raise NotImplementedError("no solution of the linear part meets the data with the nonlinear terms zero on it")
        return out


def _only_where_constant(remainder: sp.Expr, problem: Problem) -> bool:
    """Whether ``remainder`` holds the fields only as themselves and is one product (``x*u**5``, zero
    only where a field is) or holds one field and no variable (``exp(u)``, zero only at constant values;
    ``(u - v)**2`` is zero where ``u = v``)."""
    held = _jets(remainder, problem)
    if not held or any(j.wrt for j in held.values()):
        return False
    one_field = len({j.field for j in held.values()}) == 1
    return len(sp.Add.make_args(sp.expand(remainder))) == 1 or (
        one_field and not remainder.free_symbols & set(problem.symbols))


class _View(OneField):
    """One field's problem (:class:`~desyr_sympy.shared.one_field.OneField`), its jets those of its equation
    too: the symmetric reduction writes ``v_xx`` as ``u_xx``, which the problem may not hold."""

    def __init__(self, problem: Problem, field: str, equation: sp.Expr) -> None:
        super().__init__(problem, field, equation)
        self._extra = list(_jets(equation, problem).values())

    def jets(self) -> list[Any]:
        return list(dict.fromkeys([*super().jets(), *self._extra]))


def _applying(view: Problem) -> list[ExactMethod]:
    return [m for m in LINEAR_METHODS if not m.applies(view)]


def _data_allow(problem: Problem, remainders: Sequence[sp.Expr]) -> str:
    """"" unless a nonlinear remainder is surely nonzero on a face or at a point where the data give
    every jet it holds (a given jet, or its derivatives along the face): then no solution of the linear
    part solves the problem (``u*u_x`` on ``u(x, 0) = sin(x)``, ``u**5`` at ``u(0) = 1``)."""
    jets = jet_symbols(problem)
    names = problem.vocabulary.var_symbols
    # the terms must vanish for every parameter of a family, so at one value too (an unknown coefficient
    # may be the one value where they do: left symbolic, the check cannot tell)
    unknowns = {problem.unknown_symbol(n) for n in problem.unknown_names}
    family = {c: _SAMPLES[1] for c in constants_of(problem) - unknowns}
    for fixed, known in _given(problem, jets).items():
        for remainder in remainders:
            held = _jets(remainder, problem)
            values = {s: _derived(known.get(j.field, []), j.wrt, fixed, names) for s, j in held.items()}
            if not held or any(v is None for v in values.values()):
                continue
            on_face = remainder.xreplace(values).subs(dict(fixed))
            if _nonzero(on_face, problem, family):
                return f"the nonlinear terms do not vanish on the data where {', '.join(f'{v} = {a}' for v, a in fixed)}"
    return ""


def _given(problem: Problem, jets: Mapping[sp.Symbol, Any]) -> dict[tuple[tuple[sp.Symbol, sp.Expr], ...], dict[str, list[tuple[tuple[str, ...], sp.Expr]]]]:
    """For each face or point the data are given on (its fixed variables and values), each field's given
    jets (their variables of differentiation) and values."""
    names = problem.vocabulary.var_symbols
    out: dict[tuple[tuple[sp.Symbol, sp.Expr], ...], dict[str, list[tuple[tuple[str, ...], sp.Expr]]]] = {}
    for c in problem.constraints:
        jet = jets.get(c.operator)
        if c.kind != "pointwise" or jet is None:
            continue
        for face in c.faces:
            if isinstance(face, Face):
                fixed = tuple((names[n], exact_number(at)) for n, at in face.fixed)
                # a value derived from the reference is a function of every variable: take it on the face
                out.setdefault(fixed, {}).setdefault(jet.field, []).append((jet.wrt, rational(c.value).subs(dict(fixed))))
    return out


def _derived(given: Sequence[tuple[tuple[str, ...], sp.Expr]], wrt: tuple[str, ...],
             fixed: tuple[tuple[sp.Symbol, sp.Expr], ...], names: Mapping[str, sp.Symbol]) -> sp.Expr | None:
    """The value of the jet ``wrt`` from a given jet whose derivatives it extends along the face; None
    where none does."""
    across = {v for v, _ in fixed}
    for known, value in given:
        rest = Counter(wrt) - Counter(known)
        if Counter(known) <= Counter(wrt) and not {names[w] for w in rest} & across:
            variables = [names[w] for w in rest.elements()]
            return sp.diff(value, *variables) if variables else value
    return None


def _nonzero(expr: sp.Expr, problem: Problem, constants: Mapping[sp.Symbol, float]) -> bool:
    """Whether ``expr`` is surely not zero: numbers at a few points of the box (the constants at the
    given values), against the size of its terms; False where it cannot be evaluated."""
    if expr == 0:
        return False
    parts = sp.Add.make_args(sp.expand(expr.xreplace({c: sp.Float(v) for c, v in constants.items()})))
    for k in range(len(_SAMPLES)):
        point = {v: lo + (hi - lo) * _SAMPLES[(k + j) % len(_SAMPLES)]
                 for j, (v, (lo, hi)) in enumerate(zip(problem.symbols, problem.bounds))}
        try:
            values = [complex(p.xreplace(point).evalf()) for p in parts]
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        if not all(np.isfinite(v) for v in values):
            return False
        if abs(sum(values)) > _TOLERANCE * max(1.0, sum(abs(v) for v in values)):
            return True
    return False


def _solutions(problem: Problem, field: str, equation: sp.Expr) -> list[sp.Expr]:
    view = cast("Problem", _View(problem, field, equation))
    found = []
    for method in _applying(view):
        try:
            found += [c[field] for c in method.solve(view) if field in c]
        except NotImplementedError:
            continue
    return list(dict.fromkeys(found))


def _meets_data(problem: Problem, candidate: Mapping[str, sp.Expr]) -> bool:
    """False where no choice of the candidate's amplitudes meets the pointwise data (a least-squares fit
    at points of every constraint's sets leaves a residual): that candidate does not solve the linear
    problem; True where it does or where the check cannot tell (a constant in a rate, a parameter)."""
    constants = sorted({c for e in candidate.values() for c in solver_constants(e)}, key=lambda c: int(c.name[1:]))
    jets = jet_symbols(problem)
    rows, right = [], []
    rng = np.random.default_rng(36)
    for c in problem.constraints:
        held = {jets[s].field for s in c.operator.free_symbols if s in jets}
        if c.kind != "pointwise" or not held or not held <= set(candidate):
            continue
        residual = problem.apply(c.operator, candidate) - c.value
        columns = [sp.diff(residual, k) for k in constants]
        if any(col.free_symbols & set(constants) for col in columns) or \
                residual.free_symbols - set(constants) - set(problem.symbols):
            return True
        points = constraint_points(problem, c.faces, _POINTS, rng)
        values = lambdify(problem.symbols, [*columns, -residual.xreplace({k: 0 for k in constants})])(*points.T)
        table = np.column_stack([np.broadcast_to(np.asarray(v, dtype=float), (len(points),)) for v in values])
        rows.append(table[:, :-1])
        right.append(table[:, -1])
    if not rows:
        return True
    A, b = np.vstack(rows), np.concatenate(right)
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        return True
    fit = np.linalg.lstsq(A, b, rcond=None)[0] if constants else np.zeros(0)
    return bool(np.linalg.norm(A @ fit - b) <= 1e-6 * max(1.0, float(np.linalg.norm(b))))


def _vanishing(problem: Problem, candidate: dict[str, sp.Expr], remainders: Sequence[sp.Expr]) -> list[dict[str, sp.Expr]]:
    """``candidate`` (with its free constants solved where the remainders need it) when the
    nonlinear remainders are zero on it; else nothing."""
    values = [rational(problem.apply(r, candidate)) for r in remainders]
    constants = sorted({c for e in candidate.values() for c in solver_constants(e)}, key=lambda c: int(c.name[1:]))
    trial = {c: 0.3 + 0.7 * k / max(1, len(constants)) + 0.1 * (k % 2) for k, c in enumerate(constants)}
    if not any(_nonzero(v, problem, trial) for v in values):
        return [candidate]
    conditions = [g for v in values for g in _coefficients(v, constants, problem.symbols)]
    if not constants or not conditions:
        return []
    try:
        choices = sp.solve(conditions, constants, dict=True)
    except (NotImplementedError, ValueError):
        return []
    out = []
    for choice in choices:
        fixed = {f: sp.expand(e.xreplace(choice)) for f, e in candidate.items()}
        rest = {c: trial[c] for c in constants if c not in choice}
        if any(e != 0 for e in fixed.values()) and not any(
                _nonzero(problem.apply(r, fixed), problem, rest) for r in remainders):
            out.append(fixed)
    return out


def _coefficients(expr: sp.Expr, constants: Sequence[sp.Symbol], variables: Sequence[sp.Symbol]) -> list[sp.Expr]:
    """The coefficient of each function of ``variables`` in ``expr`` (polynomials in ``constants``);
    nothing where a constant sits inside a function."""
    groups: dict[sp.Expr, sp.Expr] = {}
    chosen, moving = set(constants), set(variables)
    for term in sp.Add.make_args(sp.expand(expr)):
        factors = sp.Mul.make_args(term)
        rest = sp.Mul(*[f for f in factors if f.free_symbols & moving])
        if rest.free_symbols & chosen:
            return []
        groups[rest] = groups.get(rest, sp.Integer(0)) + sp.Mul(*[f for f in factors if not f.free_symbols & moving])
    return [g for g in groups.values() if g != 0]
