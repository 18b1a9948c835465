"""The exact method ``fronts``: travelling fronts by the tanh / exp-function method (Malfliet; Polyanin & Zaitsev's ``1/(1 + exp)`` ansatz).

A front of an autonomous equation polynomial in its fields and their derivatives is often a
polynomial in ``Y = 1/(1 + exp(xi))`` (``(1 - tanh(xi/2))/2``), with ``xi = k . (x, y, ..., t)`` a
linear phase: every field ``sum_j a_j Y**j`` of one degree ``m``.  ``dY/dxi = -Y (1 - Y)`` turns each
derivative into a polynomial in ``Y`` (a derivative along ``v`` is ``k_v`` times ``-Y (1 - Y) d/dY``), so
the equations become polynomials in ``Y`` whose coefficients must all vanish: an algebraic system
for the ``a_j`` and the wave vector ``k`` (the speed is its time component, the direction its space
ones) that ``sympy.solve`` settles.  ``m`` comes from balancing the highest derivative against the
strongest nonlinearity (``m + n = p m + q``), then 1, 2, 3.  A wave-vector component the algebra
leaves free (the direction of an isotropic equation's front) and the phase's shift stay free
constants for Stage B.

This reaches the fronts whose profile ODE has a first-derivative term (Fisher-KPP's
``1/(1 + exp(x))**2``, Nagumo's and Burgers' fronts, coupled Burgers systems, oblique fronts in the
plane), which neither ``dsolve`` nor the energy integral solves.  It declines where it cannot help:
equations that are linear, not polynomial, with coefficients that vary, a first-order ODE
(separable: dsolve's), a reversible equation in one variable or in ``x`` and ``t`` (the energy
integral's, in ``energy`` and ``waves``), and data at a fixed time that no such front can take.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared.ansatz import loosen, nonlinear
from desyr_sympy.shared.forms import jet_symbols, residuals, slice_data

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: the degrees tried after the balance's (a higher one rarely solves within the time limit)
DEGREES = (1, 2, 3)
#: the most fields and variables the algebra is given (its unknowns grow with both)
MAX_FIELDS, MAX_VARIABLES = 3, 4
#: functions a front takes at a fixed time: rational in exponentials of the space variables
_FRONT_FUNCTIONS = (sp.exp, sp.tanh, sp.sinh, sp.cosh, sp.coth, sp.sech, sp.csch)
#: candidates per problem, at most (each costs a Stage B refit)
MAX_CANDIDATES = 4
#: the parameter of a direction on a circle (:func:`_real_directions`)
_W = sp.Dummy("w")


class Fronts(ExactMethod):
    name = "fronts"
    summary = "autonomous nonlinear equations polynomial in the fields: travelling fronts by the tanh method"
    problems = ("one to three autonomous equations polynomial in the fields and their derivatives, nonlinear, in up "
                "to four variables (an ODE of order two or more, `x, t`, `x, y, t`...); not where the energy "
                "integral applies (an equation in one variable or in `x, t` that keeps its form as every variable "
                "changes sign: `energy`'s and `waves'`), not where data at a fixed time are not built of "
                "exponentials (a front's values at any time are)")
    proposes = ("the **tanh / exp-function method** (Malfliet; the `1/(1 + exp)` ansatz of Polyanin-Zaitsev): every "
                "field `sum_j a_j*Y**j`, `Y = 1/(1 + exp(k_x*x + k_y*y + ... + k_t*t + C1))`, `dY/dxi = -Y*(1 - Y)`; "
                "the equations become polynomials in `Y` whose coefficients must vanish, an algebraic system for the "
                "`a_j` and the wave vector (speed and direction) that `sympy.solve` settles. The degree `m` from "
                "balancing the highest derivative against the strongest nonlinearity (`m + n = p*m + q`), then 1, 2, "
                "3, the first that gives a front. Components the algebra leaves free stay free constants, a "
                "direction on a circle through its rational parameterization (`2*w/(1 + w**2)`, `(1 - w**2)/(1 + "
                "w**2)`, real for every `w`); the shift `C1` is free; of a front and its mirror image (`k -> -k`, `Y "
                "-> 1 - Y`) one is proposed, at most four. Fisher-KPP's `1/(1 + exp(x))**2` (its profile ODE `U'' + "
                "5*U' + 6*U*(1 - U) = 0`), Nagumo's oblique front `1/(1 + exp((3*x + 4*y)/5 - t/2))`, the coupled "
                "2-D Burgers system. In a system every field has the same degree `m`")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if not 1 <= len(problem.fields) <= MAX_FIELDS or len(problem.equations) != len(problem.fields):
            return f"not one to {MAX_FIELDS} equations for as many fields"
        if not 1 <= problem.dim <= MAX_VARIABLES:
            return f"not one to {MAX_VARIABLES} variables"
        jets = jet_symbols(problem)
        if problem.dim == 1 and max((j.order for j in jets.values()), default=0) < 2:
            return "a first-order autonomous ODE: separable, dsolve's"
        equations = residuals(problem)
        if any(r.free_symbols & set(problem.symbols) for r in equations):
            return "a coefficient depends on the variables"
        if not all(r.is_polynomial(*jets) for r in equations):
            return "not polynomial in the fields and their derivatives"
        if not nonlinear(problem):
            return "linear: dsolve's and the separable solver's"
        if (problem.dim == 1 or (problem.dim == 2 and problem.time is not None)) and _reversible(equations, jets):
            return "reversible: the energy integral's (energy, waves)"
        for data in slice_data(problem):
            if not _front_like(data.value, set(problem.symbols)):
                return f"data at {data.variable} = {data.at} no front takes"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        jets = jet_symbols(problem)
        equations = residuals(problem)
        names = problem.vocabulary.var_symbols
        y = sp.Dummy("Y")
        wave = {v: sp.Dummy(f"k_{v}") for v in problem.symbols}
        shift = sp.Dummy("shift")
        phase = sp.Add(*[k * v for v, k in wave.items()]) + shift
        space = [k for v, k in wave.items() if problem.time is None or v != names[problem.time]]
        for m in degrees(equations, jets):
            amplitudes = {f: [sp.Dummy(f"a_{f}_{j}") for j in range(m + 1)] for f in problem.fields}
            polynomials = {f: sp.Add(*[a * y**j for j, a in enumerate(amps)]) for f, amps in amplitudes.items()}
            values = {s: _derivative(polynomials[j.field], [wave[names[v]] for v in j.wrt], y) for s, j in jets.items()}
            system = [c for r in equations for c in sp.Poly(sp.expand(r.xreplace(values)), y).coeffs()]
            unknowns = [a for amps in amplitudes.values() for a in amps] + list(wave.values())
            # one field of degree m exactly, a phase that moves in space, as z*q = 1 (Rabinowitsch): the branches
            # without (constants, lower degrees) leave the Groebner basis, 5-10x faster; in a system, whose
            # fields may differ in degree, a product of amplitudes slows it down instead
            single = len(amplitudes) == 1
            nonzero = [*(amps[-1] for amps in amplitudes.values() if single), *space[:len(space) == 1]]
            inverses = [sp.Dummy(f"z{i}") for i in range(len(nonzero))]
            system += [z * q - 1 for z, q in zip(inverses, nonzero)]
            out: list[dict[str, sp.Expr]] = []
            for solution in sp.solve(system, unknowns + inverses, dict=True):
                if _mirrored(solution, polynomials, y, unknowns):
                    continue
                candidate = _candidate(solution, polynomials, amplitudes, space, y, phase)
                if candidate is not None:
                    candidate = _real_directions(candidate, _free(candidate, unknowns + inverses))
                    if _real(candidate) and not any(_same(candidate, c) for c in out):
                        out.append(candidate)
            if out:
                return [loosen(c, [shift, *_free(c, unknowns + inverses + [_W])]) for c in out[:MAX_CANDIDATES]]
        raise NotImplementedError("no front polynomial in 1/(1 + exp(xi))")


def _reversible(equations: Sequence[sp.Expr], jets: dict[sp.Symbol, Any]) -> bool:
    """True when every equation keeps its form as each variable changes sign (``f'`` only in even
    powers of odd derivatives): then ``f'' = F(f)`` and its kin, which the energy integral solves."""
    flip = {s: -s for s, j in jets.items() if j.order % 2}
    for r in equations:
        flipped = sp.expand(r.xreplace(flip))
        if sp.expand(flipped - r) != 0 and sp.expand(flipped + r) != 0:
            return False
    return True


def _front_like(value: sp.Expr, variables: set[sp.Symbol]) -> bool:
    """Whether data could be a front at a fixed time: a constant, or built of exponentials (and
    their hyperbolic kin) of the variables with rational operations and powers only."""
    if not value.free_symbols & variables:
        return True
    calls = value.atoms(sp.Function)
    return bool(calls) and all(isinstance(c, _FRONT_FUNCTIONS) for c in calls) and not any(
        isinstance(p, sp.Pow) and p.exp.free_symbols & variables for p in value.atoms(sp.Pow))


# ------------------------------------------------------------------ the algebra, in the bounded child
def _derivative(p: sp.Expr, factors: Sequence[sp.Symbol], y: sp.Symbol) -> sp.Expr:
    """The derivative of ``p(Y(xi))`` along the variables whose wave-vector components are ``factors``."""
    for k in factors:
        p = sp.expand(-k * y * (1 - y) * sp.diff(p, y))
    return p


def _mirrored(solution: dict[sp.Symbol, sp.Expr], polynomials: dict[str, sp.Expr], y: sp.Symbol,
              unknowns: Sequence[sp.Symbol]) -> bool:
    """True for the second of a mirror pair: ``k -> -k`` with ``P(Y) -> P(1 - Y)`` is the same front
    (``1 - Y(xi) = Y(-xi)``), and swaps the states ``P(0)``, ``P(1)`` it joins; the pair whose states
    are numbers keeps the one whose first state sorts first."""
    states = [(p.xreplace(solution).subs(y, 0), p.xreplace(solution).subs(y, 1)) for p in polynomials.values()]
    if any(s.free_symbols & set(unknowns) for pair in states for s in pair):
        return False
    keys = [tuple(sp.default_sort_key(s) for s in pair) for pair in states]
    return [k[0] for k in keys] > [k[1] for k in keys]


def _real_directions(candidate: dict[str, sp.Expr], free: Sequence[sp.Symbol]) -> dict[str, sp.Expr]:
    """A free component ``s`` under ``sqrt(A - B s**2)`` (a direction on a circle, ``A, B > 0``) through
    the rational parameterization ``s = r 2w/(1 + w**2)``, ``sqrt(A - B s**2) = sqrt(A)(1 - w**2)/(1 + w**2)``,
    ``r = sqrt(A/B)``: real for every ``w`` Stage B tries (``3/5, 4/5`` at ``w = 1/2``)."""
    for s in free:
        roots = {p for e in candidate.values() for p in e.atoms(sp.Pow) if p.exp == sp.S.Half and p.base.has(s)}
        if len(roots) != 1:
            continue
        (root,) = roots
        poly = sp.Poly(root.base, s)
        a, b = poly.coeff_monomial(1), -poly.coeff_monomial(s**2)
        if poly.degree() != 2 or poly.coeff_monomial(s) != 0 or not (a.is_positive and b.is_positive):
            continue
        circle = {root: sp.sqrt(a) * (1 - _W**2) / (1 + _W**2), s: sp.sqrt(a / b) * 2 * _W / (1 + _W**2)}
        candidate = {f: e.xreplace(circle) for f, e in candidate.items()}
    return candidate


def _sample(candidates: Sequence[dict[str, sp.Expr]]) -> dict[sp.Symbol, sp.Expr]:
    """A point for every symbol of the candidates (variables and free constants alike), no special values."""
    symbols = sorted(set().union(*(e.free_symbols for c in candidates for e in c.values())) - {_W}, key=str)
    return {s: sp.Rational(3 + 2 * i, 7 + i) for i, s in enumerate(symbols)} | {_W: sp.Rational(2, 5)}


def _real(candidate: dict[str, sp.Expr]) -> bool:
    """False where a root of a negative number makes the candidate complex (``sqrt(-C**2)``)."""
    point = _sample([candidate])
    return all(abs(complex(sp.N(e.xreplace(point))).imag) < 1e-12 for e in candidate.values())


def _same(one: dict[str, sp.Expr], other: dict[str, sp.Expr]) -> bool:
    """Whether two candidates are one family: equal at a sample point, also with the circle's
    parameter inverted (``w -> 1/w`` flips the component under the root, so the two roots' families
    are one)."""
    point = _sample([one, other])
    for flip in ({}, {_W: 1 / _W}):
        values = [complex(sp.N(one[f].xreplace(flip).xreplace(point) - other[f].xreplace(point))) for f in one]
        if all(abs(v) < 1e-9 for v in values):
            return True
    return False


def _candidate(solution: dict[sp.Symbol, sp.Expr], polynomials: dict[str, sp.Expr],
               amplitudes: dict[str, list[sp.Symbol]], space: Sequence[sp.Symbol], y: sp.Symbol,
               phase: sp.Expr) -> dict[str, sp.Expr] | None:
    """The fields of one solution of the algebra, or None where it is not a real front (a constant,
    a phase that does not move in space, the imaginary unit)."""
    if any(v.has(sp.I) for v in solution.values()):
        return None
    if all(sp.expand(solution.get(a, a)) == 0 for amps in amplitudes.values() for a in amps[1:]):
        return None
    if all(sp.expand(solution.get(k, k)) == 0 for k in space):
        return None
    front = 1 / (1 + sp.exp(phase.xreplace(solution)))
    return {f: sp.factor(p.xreplace(solution)).xreplace({y: front}) for f, p in polynomials.items()}


def _free(candidate: dict[str, sp.Expr], unknowns: Sequence[sp.Symbol]) -> list[sp.Symbol]:
    """The unknowns the algebra left free (a direction, an amplitude), in their order."""
    present = set().union(*(e.free_symbols for e in candidate.values()))
    return [u for u in unknowns if u in present]


def degrees(equations: Sequence[sp.Expr], jets: dict[sp.Symbol, Any]) -> list[int]:
    """The degrees ``m`` to try: the balances first (the highest derivative ``m + n`` against each
    nonlinear term ``p m + q``), then :data:`DEGREES`."""
    balanced = []
    for r in equations:
        linear: list[tuple[int, int]] = []
        nonlinear_terms: list[tuple[int, int]] = []
        for term in sp.Add.make_args(sp.expand(r)):
            powers = term.as_powers_dict()
            factors = [(jets[s].order, int(powers[s])) for s in term.free_symbols if s in jets]
            p = sum(e for _, e in factors)
            q = sum(n * e for n, e in factors)
            (linear if p == 1 else nonlinear_terms).append((p, q))
        top = max((q for _, q in linear), default=None)
        for p, q in nonlinear_terms:
            if top is not None and p > 1 and (top - q) % (p - 1) == 0 and top > q:
                balanced.append((top - q) // (p - 1))
    return list(dict.fromkeys([m for m in balanced if m <= max(DEGREES) + 1] + list(DEGREES)))
