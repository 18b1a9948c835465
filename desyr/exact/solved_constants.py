"""Constants fixed by the physics: solve the equations for the floats that have no short closed form.

The Kovasznay rate ``10 - sqrt(100 + 4*pi**2)`` is not a short rational times a base,
so :func:`desyr.exact.identify.propose` cannot name it; it is a root of
``l**2 - 20*l - 4*pi**2``, which the momentum equations give as soon as ``l`` is a
symbol.  Here the float constants left after identification become symbols (a float
that is a short multiple of another, ``2*l`` or ``l/(2*pi)``, becomes that multiple of
the other's symbol, so a rate shared by several fields keeps one exact value), each
equation's residual is written as a sum of coefficient(symbols) * function(variables),
and SymPy solves "every coefficient is 0".  A root is kept only if it is real and
matches every float to ``MATCH_RTOL``; the residual check of ``exact_form`` then
decides, like for every other proposal.

Functions are told apart after rewriting trigonometric and hyperbolic functions as
exponentials and expanding: ``exp(l*x)``, ``exp(2*l*x)``, ``exp(2*I*pi*y)``, powers of the
variables are taken as linearly independent.  That is true for generic symbol values;
a root where two of them coincide is caught by the float match or the residual check.
Every SymPy call is bounded in size and, on the main thread, in time.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy as sp

from desyr.exact.identify import float_constants, propose, substitute
from desyr.exact.records import Acceptance, Check, ConstantDecision, ResidualPair, safe_check
from desyr.model.problem import Face
from desyr.symbolic.expressions import complexity
from desyr.symbolic.time_limit import OutOfTime, time_limit

if TYPE_CHECKING:
    from desyr.model.problem import Problem

MAX_UNKNOWNS = 3          # symbols after linking; sympy's polynomial systems grow fast beyond
MAX_INPUT_NODES = 400     # node count of the expression group
MAX_RESIDUAL_OPS = 4000   # count_ops of one substituted residual, before expansion
MAX_TERMS = 800           # terms of one expanded residual
MAX_EQUATIONS = 12        # smallest coefficient equations passed to sympy.solve (the check sees all)
MATCH_RTOL = 1e-8         # a root must reproduce every float this closely
SOLVE_SECONDS = 5.0       # wall-clock budget of the step: SymPy is interrupted at it, a residual check is not
MIN_SECONDS = 1.0         # a second attempt is not started with less left than this
MAX_CANDIDATES = 2        # residual checks per attempt


class NoSolution(Exception):
    """Why the physics gave no usable exact value (the text goes into the decision)."""


def solve_constants(problem: Problem, exprs: Mapping[str, sp.Expr], check: Check, before: ResidualPair,
                    rule: Acceptance = Acceptance()) -> tuple[dict[str, sp.Expr], list[ConstantDecision]]:
    """Replace the remaining floats of ``exprs`` by exact roots of the physics, if the check accepts them."""
    floats = float_constants(exprs)
    # only an exact numeric solution can satisfy the equations identically; elsewhere nothing to solve
    at_roundoff = all(b is None or b <= rule.roundoff for b in before)
    if not floats or not at_roundoff:
        return dict(exprs), []
    if sum(complexity(e) for e in exprs.values()) > MAX_INPUT_NODES:
        return dict(exprs), _refused(floats, before, "the expressions are too large to solve for")
    attempts = [link_constants(floats, exprs)]
    separate = {f: sp.Symbol(f"c{k}") for k, f in enumerate(floats)}
    if attempts[0] != separate:     # a wrong link must not hide a solution with separate unknowns
        attempts.append(separate)
    why = "no attempt"
    tried: list[ConstantDecision] = []
    deadline = time.monotonic() + SOLVE_SECONDS
    for attempt, forms in enumerate(attempts):
        unknowns = _unknowns(forms)
        if len(unknowns) > MAX_UNKNOWNS:
            why = f"{len(unknowns)} unknowns (at most {MAX_UNKNOWNS})"
            continue
        if attempt and deadline - time.monotonic() < MIN_SECONDS:
            break
        try:
            candidates = exact_candidates(problem, exprs, forms, unknowns, deadline - time.monotonic())
        except NoSolution as exc:
            why = str(exc)
            continue
        except Exception as exc:  # sympy can fail on unusual trees; never fatal to a run
            why = f"SymPy failed ({type(exc).__name__})"
            continue
        for values in candidates[:MAX_CANDIDATES]:
            trial = substitute(exprs, values)
            after = safe_check(check, trial)
            ok = rule.accepts(before, after)
            reason = "solved from the equations" if ok else \
                "solved from the equations; residuals change beyond round-off"
            decisions = [ConstantDecision(float(f), values[f], ok, before, after, reason) for f in floats]
            if ok:
                return trial, tried + decisions
            tried += decisions
        if not candidates:
            why = "no real root matches the floats"
    return dict(exprs), tried or _refused(floats, before, f"not solved from the equations: {why}")


def _refused(floats: Sequence[sp.Float], before: ResidualPair, reason: str) -> list[ConstantDecision]:
    return [ConstantDecision(float(f), None, False, before, None, reason) for f in floats]


def link_constants(floats: Sequence[sp.Float], exprs: Mapping[str, sp.Expr]) -> dict[sp.Float, sp.Expr]:
    """Each float as a symbol or a short multiple of an earlier float's symbol (``2*c0``, ``c0/(2*pi)``).

    The most frequent float gets the first symbol: Kovasznay's rate appears in ``u`` and ``v``,
    so ``2*rate`` in ``p`` and ``rate/(2*pi)`` in ``v`` are written with it.
    """
    count = {f: sum(e.count(f) for e in exprs.values()) for f in floats}
    ordered = sorted(floats, key=lambda f: -count[f])     # stable: ties keep float_constants' order
    roots: list[tuple[sp.Float, sp.Symbol]] = []
    forms: dict[sp.Float, sp.Expr] = {}
    for f in ordered:
        for root, symbol in roots:
            multiple = propose(float(f) / float(root), limit=1)
            if multiple and multiple[0] != 0:
                forms[f] = multiple[0] * symbol
                break
        else:
            symbol = sp.Symbol(f"c{len(roots)}")
            roots.append((f, symbol))
            forms[f] = symbol
    return {f: forms[f] for f in floats}


def _unknowns(forms: Mapping[sp.Float, sp.Expr]) -> list[sp.Symbol]:
    return sorted(set().union(*(form.free_symbols for form in forms.values())), key=str)


def exact_candidates(problem: Problem, exprs: Mapping[str, sp.Expr], forms: Mapping[sp.Float, sp.Expr],
                     unknowns: Sequence[sp.Symbol], seconds: float = SOLVE_SECONDS) -> list[dict[sp.Float, sp.Expr]]:
    """Exact values for the floats (float -> closed form) from roots of the coefficient equations,
    closest first; the equations first, the constraints too only if those leave an unknown free."""
    symbolic = substitute(exprs, forms)
    variables = list(problem.symbols)
    try:
        with time_limit(seconds):
            equations = _equation_residuals(problem, symbolic)
            roots = solve_coefficients(equations, variables, unknowns)
            if roots is None and problem.constraints:
                roots = solve_coefficients(equations + _constraint_residuals(problem, symbolic),
                                           variables, unknowns)
    except OutOfTime:
        raise NoSolution("SymPy ran out of time") from None
    if roots is None:
        raise NoSolution("the equations leave an unknown free")
    found = []
    for root in roots:
        values = _matching_values(forms, root)
        if values is not None:
            found.append(values)
    found.sort(key=lambda v: max(abs(float(v[f]) - float(f)) / abs(float(f)) for f in v))
    return found


def _equation_residuals(problem: Problem, exprs: Mapping[str, sp.Expr]) -> list[sp.Expr]:
    return [problem.apply(_as_rationals(eq.residual), exprs) for eq in problem.equations]


def _constraint_residuals(problem: Problem, exprs: Mapping[str, sp.Expr]) -> list[sp.Expr]:
    """Each constraint's residual on each of its sets whose fixed coordinates are exact numbers."""
    out = []
    for con in problem.constraints:
        if con.kind == "integral":
            continue          # checked numerically and by the proof, not as coefficient equations
        rational = dataclasses.replace(con, operator=_as_rationals(con.operator), value=_as_rationals(con.value))
        residual = problem.constraint_residual(rational, exprs)
        for face in con.faces:
            if not isinstance(face, Face):
                continue      # a part of a shape's boundary: no coordinate is fixed
            values = {}
            for name, value in face.fixed:
                exact = propose(float(value), limit=1)
                if not exact:
                    break
                values[problem.vocabulary.var_symbols[name]] = exact[0]
            else:
                out.append(residual.xreplace(values))
    return out


def _as_rationals(expr: sp.Expr) -> sp.Expr:
    """The config's decimals (``0.05`` in an equation) as the rationals they denote, as the verifier reads them."""
    floats = expr.atoms(sp.Float)
    return expr.xreplace({f: sp.Rational(Fraction(repr(float(f)))) for f in floats}) if floats else expr


def solve_coefficients(residuals: Sequence[sp.Expr], variables: Sequence[sp.Symbol],
                       unknowns: Sequence[sp.Symbol]) -> list[dict[sp.Symbol, sp.Expr]] | None:
    """Exact roots making every residual vanish identically in the variables: [] when none exist,
    None when the system leaves an unknown free (or names none)."""
    equations: dict[sp.Expr, None] = {}
    for residual in residuals:
        for coefficient in coefficients(residual, variables):
            for part in _real_parts(coefficient):
                part = _without_constant_factors(part, unknowns)
                if part == 0 or (not part.has(*unknowns) and _numerically_zero(part)):
                    continue
                if not part.has(*unknowns):
                    raise NoSolution("a term of the residual cannot vanish for any value of the unknowns")
                equations.setdefault(part)
    ordered = sorted(equations, key=sp.count_ops)[:MAX_EQUATIONS]
    if not ordered or set(unknowns) - set().union(*(e.free_symbols for e in ordered)):
        return None
    try:
        # check=False: checksol's substitution is most of solve's time here, and every root is
        # checked anyway (float match, then the residual check on unseen points)
        solutions = sp.solve(ordered, list(unknowns), dict=True, check=False)
    except OutOfTime:
        raise
    except Exception:  # sympy's solvers raise NotImplementedError and others on what they cannot do
        raise NoSolution("SymPy could not solve the coefficient equations") from None
    if not isinstance(solutions, list):
        return []
    complete = [s for s in solutions if set(s) >= set(unknowns) and not any(v.has(*unknowns) for v in s.values())]
    return complete if complete or not solutions else None


def coefficients(residual: sp.Expr, variables: Sequence[sp.Symbol]) -> list[sp.Expr]:
    """The coefficients of ``residual`` on the functions of the variables it is a sum of."""
    if sp.count_ops(residual) > MAX_RESIDUAL_OPS:
        raise NoSolution("a residual is too large to expand")
    expanded = sp.expand(residual.rewrite(sp.exp))
    if any(_has_denominator(term, variables) for term in sp.Add.make_args(expanded)):
        # tanh and quotients: the residual vanishes where its numerator does
        expanded = sp.expand(sp.numer(sp.together(expanded)))
    terms = sp.Add.make_args(expanded)
    if len(terms) > MAX_TERMS:
        raise NoSolution(f"a residual has {len(terms)} terms after expansion (at most {MAX_TERMS})")
    groups: dict[tuple[sp.Expr, sp.Expr], list[sp.Expr]] = {}
    for term in terms:
        coefficient, function = _split_term(term, variables)
        groups.setdefault(function, []).append(coefficient)
    # one function can be spelled two ways (exp(-x*sqrt(4*pi**2 + 100)) and exp(-2*x*sqrt(pi**2 + 25)));
    # split apart, each part of the coefficient would look like a term that cannot vanish
    merged: dict[object, list[sp.Expr]] = {}
    for function, parts in groups.items():
        merged.setdefault(_fingerprint(function), []).extend(parts)
    return [sp.Add(*parts) for parts in merged.values()]


#: where functions are compared: generic values, so that different functions differ there
_PRIMES = (17, 23, 29, 31, 37, 41, 43, 47, 59, 61, 67, 71)


def _fingerprint(function: tuple[sp.Expr, sp.Expr]) -> object:
    """The function's value (other factors, exponent) at a fixed generic point of its symbols, to 12
    digits; the function itself when it does not evaluate to a number there."""
    symbols = sorted(set().union(*(part.free_symbols for part in function)), key=str)
    point = {s: sp.Rational(_PRIMES[k % len(_PRIMES)], 53 + k) for k, s in enumerate(symbols)}
    try:
        values = [complex(sp.N(part.xreplace(point), 30)) for part in function]
    except (TypeError, ValueError, OverflowError):
        return function
    return tuple(float(f"{getattr(v, part):.12g}") for v in values for part in ("real", "imag"))


def _has_denominator(term: sp.Expr, variables: Sequence[sp.Symbol]) -> bool:
    denominator = sp.fraction(term)[1]
    return any(f.has(*variables) and not isinstance(f, sp.exp) for f in sp.Mul.make_args(denominator))


def _split_term(term: sp.Expr, variables: Sequence[sp.Symbol]) -> tuple[sp.Expr, tuple[sp.Expr, sp.Expr]]:
    """(coefficient free of the variables, (other factors, exponent)): the product of exponentials
    is keyed by its summed exponent, so ``exp(l*x)*exp(2*I*pi*y)`` and ``exp(l*x + 2*I*pi*y)`` meet."""
    constant: list[sp.Expr] = []
    other: list[sp.Expr] = []
    exponent = sp.Integer(0)
    for factor in sp.Mul.make_args(term):
        if not factor.has(*variables):
            constant.append(factor)
        elif isinstance(factor, sp.exp):
            exponent += factor.args[0]
        else:
            other.append(factor)
    fixed, varying = sp.expand(exponent).as_independent(*variables, as_Add=True)
    return sp.Mul(*constant) * sp.exp(fixed), (sp.Mul(*other), varying)


def _real_parts(equation: sp.Expr) -> list[sp.Expr]:
    """A + I*B = 0 with A, B real is A = 0 and B = 0 (the unknowns replace real floats); I inside a
    function (``exp(I*c0)``) is left to the solver."""
    expanded = sp.expand(equation)
    if not expanded.has(sp.I) or any(f.has(sp.I) for f in expanded.atoms(sp.Function)):
        return [expanded]
    return [expanded.coeff(sp.I, 0), expanded.coeff(sp.I, 1)]


def _numerically_zero(number: sp.Expr) -> bool:
    """``log(4) - 2*log(2)``: a constant sympy leaves unevaluated but that is 0 to 40 digits."""
    try:
        return abs(complex(sp.N(number, 40))) < 1e-30
    except (TypeError, ValueError, OverflowError):
        return False


def _without_constant_factors(equation: sp.Expr, unknowns: Sequence[sp.Symbol]) -> sp.Expr:
    """``I*c0*(c0 - 20)/(80*pi)`` -> ``c0*(c0 - 20)``: equal equations then look equal, and solve has less to carry."""
    factored = sp.factor_terms(equation)
    if not factored.is_Mul:
        return factored
    kept = [f for f in factored.args if f.has(*unknowns)]
    return sp.Mul(*kept) if kept else factored


def _matching_values(forms: Mapping[sp.Float, sp.Expr], root: Mapping[sp.Symbol, sp.Expr]
                     ) -> dict[sp.Float, sp.Expr] | None:
    """float -> exact value under ``root``, if every value is real and matches its float."""
    values = {}
    for f, form in forms.items():
        value = form.xreplace(dict(root))
        if value.free_symbols or value.has(sp.I, sp.zoo, sp.nan, sp.oo, sp.Float):
            return None
        try:
            number = complex(sp.N(value, 30))
        except (TypeError, ValueError, OverflowError):
            return None
        target = float(f)
        if abs(number.imag) > MATCH_RTOL * abs(target) or abs(number.real - target) > MATCH_RTOL * abs(target):
            return None
        values[f] = _tidy(value)
    return values


def _tidy(value: sp.Expr) -> sp.Expr:
    """The shorter of the root as solve wrote it and with common factors pulled out:
    ``(10 - 2*sqrt(pi**2 + 25))/(2*pi)`` -> ``(5 - sqrt(pi**2 + 25))/pi``."""
    return min((value, sp.factor_terms(value)), key=complexity)
