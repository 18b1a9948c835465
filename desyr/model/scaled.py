"""The verification's residuals, each with its scale: R_eq and R_con, and every residual relative to
the problem's own size (:mod:`desyr.symbolic.scales`; ``docs/verify.md``, "The tolerance's scale").

The run's in-process verification and the separate verifier both measure a candidate here, so the two
decide "exact" by the same rule.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from desyr.model.problem import Constraint, Problem
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.physics import Verification
from desyr.symbolic.residual_terms import split_terms
from desyr.symbolic.scales import Measured, Scaled, aggregate, measure, relative


def measured_verification(problem: Problem, solution: Mapping[str, sp.Expr], interior: np.ndarray,
                          constraint_points: Sequence[np.ndarray],
                          reductions: Sequence[np.ndarray | None] = ()) -> Verification:
    """R_eq, R_con, and each residual over its scale, on these points."""
    blocks = residual_blocks(problem, solution, interior, constraint_points, reductions)
    return verification_of(problem, measure(blocks, problem.symbols, interior))


def residual_blocks(problem: Problem, solution: Mapping[str, sp.Expr], interior: np.ndarray,
                    constraint_points: Sequence[np.ndarray],
                    reductions: Sequence[np.ndarray | None] = ()) -> list[Scaled]:
    """Every residual of ``solution`` with its data and terms, on its points: the equations, then the
    constraints."""
    apply = _applier(problem, solution)
    blocks = [_equation(problem, k, apply, interior) for k in range(len(problem.equations))]
    blocks += [_constraint(problem, con, l, solution, apply, constraint_points[l],
                           reductions[l] if l < len(reductions) else None)
               for l, con in enumerate(problem.constraints)]
    return blocks


def verification_of(problem: Problem, numbers: Sequence[Measured]) -> Verification:
    """The verification's numbers from each residual's measurement."""
    rel = relative(numbers)
    coupled = len(problem.fields) > 1
    absolute = {kind: [_plain(m.absolute) for m in numbers if m.kind == kind] for kind in ("equation", "constraint")}
    return Verification(
        R_eq=aggregate(numbers, "equation", coupled) or 0.0, R_con=aggregate(numbers, "constraint", coupled),
        R_eq_per_equation=absolute["equation"], R_con_per_constraint=absolute["constraint"],
        relative_per_equation=rel.equations, relative_per_constraint=rel.constraints,
        roundoff_per_equation=rel.roundoff_equations, roundoff_per_constraint=rel.roundoff_constraints,
        scale=rel.scale, size_per_equation=rel.sizes_equations, size_per_constraint=rel.sizes_constraints)


def _dependent(problem: Problem, expr: sp.Expr) -> set[sp.Symbol]:
    """What a candidate gives in ``expr``: the fields' jets and the unknowns."""
    unknowns = {problem.unknown_symbol(n) for n in problem.unknown_names}
    return {s for s in expr.free_symbols if problem.vocabulary.jet_of(s) is not None or s in unknowns}


Apply = Callable[[sp.Expr], sp.Expr]


def _applier(problem: Problem, solution: Mapping[str, sp.Expr]) -> Apply:
    """:meth:`Problem.apply` with each jet's derivative taken once (a 14th derivative takes SymPy seconds,
    and a residual and its terms need the same ones)."""
    taken: dict[sp.Basic, sp.Expr] = {}

    def apply(expr: sp.Expr) -> sp.Expr:
        for s in expr.free_symbols:
            if s not in taken and problem.vocabulary.jet_of(s) is not None:
                taken[s] = problem.apply(s, solution)
        jets = {s: taken[s] for s in expr.free_symbols if s in taken}
        return problem.resolved(expr.xreplace(jets) if jets else expr, solution)
    return apply


def _equation(problem: Problem, k: int, apply: Apply, interior: np.ndarray) -> Scaled:
    residual = problem.equations[k].residual
    terms = split_terms(residual, _dependent(problem, residual))
    applied = tuple(apply(f) for f in terms.factors)
    still = _still_data(problem, terms.data, terms.coefficients, terms.factors, applied, apply, interior)
    return Scaled("equation", k, apply(residual), terms.data, terms.coefficients, applied, interior,
                  shifted=terms.shifted + still)


#: how far the candidate is moved to see which terms do not move with it: each jet times 1 + NUDGE, the
#: fields' values also plus NUDGE
NUDGE = sp.Rational(1, 1000)


def _still_data(problem: Problem, data: sp.Expr, coefficients: Sequence[sp.Expr], factors: Sequence[sp.Expr],
                applied: Sequence[sp.Expr], apply: Apply, points: np.ndarray) -> tuple[sp.Expr, ...]:
    """The data plus the terms that do not move when the candidate does (``10**12*abs(u)/u`` where the
    candidate is positive, ``10**12*tanh(1000*u)`` where it is above 1): at the candidate they are data, and
    data they cancel are not the residual's size (red team 44c: against data of 1e12 that such a term met,
    a formula 3 % off was Verified).  A term is still when its values at the points are the same, to 1e-12,
    with every jet moved by :data:`NUDGE` both ways; nearly still when they move by at most 1e-6 of its
    value, and then its part that does not respond to the candidate counts, its value less its linear
    response (``10**12*exp(u/10**8)`` is ``10**12 + 10**4*u + ...``: the 1e12 is data; red team 44d).  One
    tuple of at most one expression, for :attr:`~desyr.symbolic.residual_terms.Terms.shifted`."""
    if not factors or not len(points):
        return ()
    symbols = problem.symbols
    still = []
    for c, f, at in zip(coefficients, factors, applied):
        if _monomial(problem, f):
            continue        # a product of powers of jets moves with them wherever it is not 0
        here = evaluate(at, symbols, points)
        if not np.all(np.isfinite(here)):
            continue
        ends = [apply(_nudged(problem, f, sign)) for sign in (1, -1)]
        moved = [evaluate(e, symbols, points) for e in ends]
        change = np.max([np.abs(m - here) for m in moved], axis=0)
        size = np.maximum(np.abs(here), 1e-300)
        if np.all(change <= STILL * size):
            still.append(c * at)
        elif np.all(change <= NEARLY_STILL * size):
            still.append(c * (at - (ends[0] - ends[1]) / (2 * NUDGE)))
    return (data + sp.Add(*still),) if still else ()


def _monomial(problem: Problem, factor: sp.Expr) -> bool:
    """Whether ``factor`` is a product of numeric powers of jets (``u_xx``, ``u*u_x``, ``u**3``)."""
    return all(problem.vocabulary.jet_of(base) is not None and exponent.is_number
               for base, exponent in factor.as_powers_dict().items())


#: a term moves by at most this (relative) under the nudge: still; at most the second: nearly still
STILL, NEARLY_STILL = 1e-12, 1e-6


def _nudged(problem: Problem, factor: sp.Expr, sign: int) -> sp.Expr:
    """``factor`` with each jet ``J`` as ``(1 + sign*NUDGE)*J``, a field's value also plus ``sign*NUDGE``."""
    moves = {}
    for s in factor.free_symbols:
        jet = problem.vocabulary.jet_of(s)
        if jet is not None:
            moves[s] = (1 + sign * NUDGE) * s + (sign * NUDGE if not jet.wrt else 0)
    return factor.xreplace(moves)


def _constraint(problem: Problem, con: Constraint, l: int, solution: Mapping[str, sp.Expr], apply: Apply,
                points: np.ndarray, reduction: np.ndarray | None) -> Scaled:
    residual = problem.constraint_residual(con, solution, apply(con.operator))
    data, coefficients, factors, spread = _constraint_terms(problem, con)
    moved = problem.shift_map(con) if con.kind == "periodic" else {}
    applied = tuple(apply(f).xreplace(moved) if at_partner else apply(f) for f, at_partner in factors)
    wide: tuple[sp.Expr, ...] = ()
    if con.kind == "periodic":
        # both sides of the pair are measured against the field's size inside, not only the point's side: with
        # x*u paired from x = 0, the point's side is 0 and the partner's is u(1), both ~0 for the true solution
        spread *= 2
        wide = tuple(apply(f) for f, _ in factors[:spread])
    still = () if con.kind in ("periodic", "integral") else \
        _still_data(problem, data, coefficients, [f for f, _ in factors], applied, apply, points)
    return Scaled("constraint", l, residual, data, coefficients, applied, points, reduction, spread,
                  _constraint_shifted(problem, con) + still, wide)


def _constraint_shifted(problem: Problem, con: Constraint) -> tuple[sp.Expr, ...]:
    """:attr:`Terms.shifted` of a value or derivative constraint (none for the others)."""
    if con.kind in ("periodic", "integral"):
        return ()
    written = con.operator - con.value
    return split_terms(written, _dependent(problem, written)).shifted


def _constraint_terms(problem: Problem, con: Constraint
                      ) -> tuple[sp.Expr, tuple[sp.Expr, ...], tuple[tuple[sp.Expr, bool], ...], int]:
    """A constraint's data, its terms' coefficients and factors (each with whether it is taken at the
    periodic partner), and how many factors are also measured over the interior."""
    if con.kind != "periodic":
        written = con.operator - (con.value / sp.Float(con.measure) if con.kind == "integral" else con.value)
        terms = split_terms(written, _dependent(problem, written))
        return (terms.data, terms.coefficients, tuple((f, False) for f in terms.factors),
                0 if con.kind == "integral" else len(terms.factors))
    # op(p) - op(p + shift) - value: the operator's terms at the point and at its partner, each a term
    moved = problem.shift_map(con)
    op = split_terms(con.operator, _dependent(problem, con.operator))
    value = split_terms(-con.value, _dependent(problem, con.value))
    return (op.data - op.data.xreplace(moved) + value.data,
            (*op.coefficients, *(-c.xreplace(moved) for c in op.coefficients), *value.coefficients),
            (*((f, False) for f in op.factors), *((f, True) for f in op.factors),
             *((f, False) for f in value.factors)), len(op.factors))


def problem_scale(problem: Problem, interior: np.ndarray, constraint_points: Sequence[np.ndarray],
                  reductions: Sequence[np.ndarray | None] = ()) -> float:
    """The problem's scale Q on these points, no candidate needed: the largest RMS of one residual's data
    (1 when the problem holds none)."""
    splits = [split_terms(eq.residual, _dependent(problem, eq.residual)) for eq in problem.equations]
    blocks = [Scaled("equation", k, t.data, t.data, (), (), interior, shifted=t.shifted) for k, t in enumerate(splits)]
    for l, con in enumerate(problem.constraints):
        d = _constraint_terms(problem, con)[0]
        blocks.append(Scaled("constraint", l, d, d, (), (), constraint_points[l],
                             reductions[l] if l < len(reductions) else None, shifted=_constraint_shifted(problem, con)))
    return relative(measure(blocks, problem.symbols, interior)).scale


def _plain(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:
        return float("inf")
