"""The equations' own branch conditions, proved for a candidate.

SymPy evaluates what the parser builds: ``sqrt(u)**2`` is ``u``, and once a candidate is put in,
``log(-1)`` is ``I*pi`` and ``log(-1)**2`` is ``-pi**2``, all exactly.  A formula for which the
equation as written is undefined (not real) everywhere then reduces its residual to 0, and the
numbers never see a ``nan``.  So the parser records what each node of the config's equations,
constraint operators and values needs of its argument, as written (:mod:`desyr.symbolic.conditions`),
and here, with the candidate's fields and unknowns substituted:

- no substituted residual may hold a non-real number (``I``);
- every condition of an equation is *proved* on the domain by interval arithmetic
  (:func:`desyr.verify.intervals.sign_on`).  An equation holds in the open domain, so on a box
  a quantity that is positive inside and reaches 0 only on faces passes
  (:func:`desyr.verify.edges.positive_inside`): Nguyen-8's source ``-1/(4*x**(3/2))`` on [0, 4].
  On a shape the proof is on the closed domain;
- every condition of a constraint on each of its sets: on a face of the box, with the face's
  values put in, on the rest of the face (its relative interior, as above); on a boundary part
  of a shape, in the part's parametrisation on the exact range of each of its pieces
  (:mod:`desyr.verify.spans`: ``sqrt(1 - x**2)`` on an arc of the unit circle needs
  ``1 - cos(s)**2 >= 0`` there); for an integral constraint, on the whole domain.
"""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from desyr.model.patches import exact_number
from desyr.model.problem import Constraint, Face, Problem
from desyr.symbolic.conditions import NEEDS, Condition
from desyr.symbolic.literals import non_real
from desyr.verify.edges import positive_inside
from desyr.verify.intervals import Bounds, sign_on
from desyr.verify.regions import Region
from desyr.verify.spans import spans

NOT_FINITE = "not finite on the domain"


def condition_reason(problem: Problem, exprs: Mapping[str, sp.Expr], bounds: Bounds,
                     region: Region | None) -> str | None:
    """None when the equations and constraints as written are real and defined for ``exprs`` where
    they must hold (the module's docstring); otherwise why not, in one line."""
    for k, eq in enumerate(problem.equations):
        imaginary = non_real(problem.apply(eq.lhs - eq.forcing, exprs))
        if imaginary is not None:
            return f"not real: equation {k + 1} takes the value {str(imaginary)[:40]} with this candidate"
        for c in eq.conditions:
            why = _fails(problem.apply(c.quantity, exprs), c.need, bounds, region)
            if why is not None:
                return _said(f"equation {k + 1}", c, why)
    for con in problem.constraints:
        imaginary = non_real(problem.constraint_residual(con, exprs))
        if imaginary is not None:
            return f"not real: constraint {con.label} takes the value {str(imaginary)[:40]} with this candidate"
        for c in con.conditions:
            q = problem.apply(c.quantity, exprs)
            for where, rest, place in _sets(problem, con, bounds):
                why = _fails(q.xreplace(where), c.need, rest, _within(problem, where, region), place)
                if why is not None:
                    return _said(f"constraint {con.label}", c, why)
    return None


def _within(problem: Problem, where: Mapping[sp.Symbol, sp.Expr], region: Region | None) -> Region | None:
    """The shape's inequalities on a set that fixes no spatial variable (time), else none (a box face)."""
    if region is None or problem.geometry is None:
        return None
    space = {problem.vocabulary.var_symbols[v] for v in problem.geometry.space}
    return None if set(where) & space else region


def _said(what: str, c: Condition, why: str) -> str:
    return f"{NOT_FINITE}: {c.describe()} in {what}, and with this candidate {why}"


def _sets(problem: Problem, con: Constraint, bounds: Bounds) -> list[tuple[dict[sp.Symbol, sp.Expr], Bounds, str]]:
    """(values put in, bounds of the rest, where) for each set a condition is proved on: a face of the box
    (and its periodic partner); a boundary part in its parametrisation, on the exact range of each of its
    pieces (:mod:`desyr.verify.spans`); else (an integral) the whole domain."""
    symbols = problem.vocabulary.var_symbols
    out: list[tuple[dict[sp.Symbol, sp.Expr], Bounds, str]] = []
    for face in con.faces if con.kind != "integral" else []:
        if not isinstance(face, Face):
            out += [(piece.values, piece.bounds, face.describe()) for piece in spans(problem, face) or []]
            continue
        shifts = [{}] if con.kind != "periodic" else [{}, dict(zip(problem.variable_names, con.moved(problem.numbers)))]
        for shift in shifts:
            values = {symbols[name]: exact_number(value, problem.numbers) + shift.get(name, 0)
                      for name, value in face.fixed}
            place = ", ".join(f"{s} = {v}" for s, v in values.items())
            out.append((values, {s: b for s, b in bounds.items() if s not in values}, place))
    return out or [({}, bounds, "the domain")]


def _fails(q: sp.Expr, need: str, bounds: Bounds, region: Region | None, place: str = "the domain") -> str | None:
    """None when ``q`` is proved ``need`` on the closed set (or, on a box, inside it); else why not."""
    strict = need != "nonnegative"
    sign = sign_on(q, bounds, strict=strict, region=region)
    if sign == "positive" or (sign == "negative" and need == "nonzero"):
        return None
    if region is None and bounds and _inside(q, need, bounds):
        return None
    said = {"changes": "changes sign or reaches 0", "negative": "takes negative values"}.get(sign, "could not be shown to keep its sign")
    return f"{str(q)[:60]} {said} on {place} (it must be {NEEDS[need]})"


def _inside(q: sp.Expr, need: str, bounds: Bounds) -> bool:
    """Whether ``q`` is proved to meet ``need`` on the open box: positive inside (0 only on faces), or for
    "nonzero" of one sign inside, factor by factor (``x**(3/2)`` is not 0 where ``x`` is not)."""
    if need != "nonzero":
        return positive_inside(q, bounds)[0] == "positive"
    return all(any(positive_inside(side, bounds)[0] == "positive" for side in (f, -f)) for f in _factors(q))


def _factors(q: sp.Expr) -> list[sp.Expr]:
    """Quantities whose being nonzero makes ``q`` nonzero: the factors of a product, the base of a
    positive power; numbers and exponentials are never 0 and drop out."""
    if q.is_number or isinstance(q, sp.exp):
        return [] if q != 0 else [q]
    if isinstance(q, sp.Mul):
        return [f for a in q.args for f in _factors(a)]
    if isinstance(q, sp.Pow) and q.exp.is_number:
        return _factors(q.base) if q.exp.is_positive else []
    return [q]
